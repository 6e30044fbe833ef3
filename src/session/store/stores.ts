/**
 * A session's storage, by table family: its own row (`meta`), the history, the side tables, the
 * turns with their event logs, and what the chat socket stages. One storage, opened once per object.
 */
import type { PendingToolCall } from '../../agent/events';
import type { Usage } from '../../agent/usage';
import { HistoryStore } from './history';
import { SessionMeta } from './meta';
import { QueueStore, type QueuePosition } from './queue';
import { SideTables } from './side-tables';
import { SocketStore } from './staged';
import { TurnStore, type LastTurn } from './turns';
import { WebhookDeliveries } from './webhook-deliveries';

export type SessionStores = {
  meta: SessionMeta;
  history: HistoryStore;
  side: SideTables;
  turns: TurnStore;
  staged: SocketStore;
  queue: QueueStore;
  deliveries: WebhookDeliveries;
};

export function openStores(storage: DurableObjectStorage): SessionStores {
  const meta = new SessionMeta(storage);
  return {
    meta,
    history: new HistoryStore(storage, meta),
    side: new SideTables(storage, meta),
    turns: new TurnStore(storage, meta),
    staged: new SocketStore(storage, meta),
    queue: new QueueStore(storage, meta),
    deliveries: new WebhookDeliveries(storage, meta),
  };
}

export type SessionSummary = {
  /** Made by the model after the first exchange (the chat protocol's conversation title). */
  title?: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  pendingToolCalls: PendingToolCall[];
  usage: Usage;
  lastTurn?: LastTurn;
  /** The turns waiting for the session, first to run first. */
  queuedTurns: QueuePosition[];
  /** The session and message a fork copied its history from. */
  forkedFrom?: { sessionId: string; messageId: string };
};

export type SessionView = SessionSummary & { sessionId: string; running: boolean; runningTurnId?: string };

/** What `GET /sessions/{id}` tells of a session that exists, with the turn that runs in it, if one does. */
export function summarize({ meta, history, turns, queue }: SessionStores, sessionId: string, runningTurnId: string | undefined): SessionView {
  const title = meta.title();
  const lastTurn = turns.last();
  const forkedFrom = meta.forkedFrom();
  return {
    sessionId,
    ...(title !== undefined ? { title } : {}),
    ...meta.times(),
    messageCount: history.messageCount(),
    pendingToolCalls: history.pendingCalls(),
    usage: meta.usage(),
    ...(lastTurn ? { lastTurn } : {}),
    queuedTurns: queue.positions(),
    ...(forkedFrom ? { forkedFrom } : {}),
    running: runningTurnId !== undefined,
    ...(runningTurnId ? { runningTurnId } : {}),
  };
}
