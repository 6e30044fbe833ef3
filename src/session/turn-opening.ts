/**
 * When a turn stores what it opens with: a new session's tables, the turn's row (and its
 * Idempotency-Key), the rules its answers bring. All of it before the turn's first event reaches
 * anyone (docs/decisions.md, 43), and, for a plain turn or one with a client's results (a session's
 * first among them), after its first model request has left: the loop sends that request, then awaits the opening (`TurnDeps.opening`), which
 * waits one task, so that the request is on its way, and writes. A Durable Object sends nothing while
 * a write of its own is unconfirmed, so written first, they held the request for their commit; written
 * after, they are confirmed while the model takes its time to a first token (bench/PROFILE.md, "The
 * model asked before the turn is stored"). The loop tells nothing before the opening is done, and the
 * launcher answers only once it is, so no follower, no reply and no id leaves before the writes.
 */
import type { ResolvedAnswer } from '../agent/run-turn';
import type { Door } from './door';
import type { SessionStores } from './store/stores';

export type Opening = {
  /** For the loop (`TurnDeps.opening`): undefined when the turn stored its opening at once. */
  opening?: (sent: boolean) => Promise<void>;
  /** Settles once the opening is stored (or failed to be). */
  opened: Promise<void>;
};

/** `write` now (`late` false), or when the loop opens the turn, a task after its first request (`afterThisTask`, `task-end.ts`). */
export function openTurn(write: () => void, late: boolean, afterThisTask: () => Promise<void>): Opening {
  if (!late) {
    write();
    return { opened: Promise.resolve() };
  }
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const opened = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  // Awaited by the launcher only after the loop has begun: not a rejection nobody handles meanwhile.
  opened.catch(() => {});
  return {
    opened,
    opening: async (sent) => {
      try {
        if (sent) await afterThisTask();
        write();
        settle.resolve();
      } catch (error) {
        settle.reject(error);
        throw error;
      }
    },
  };
}

/** What a turn opens with, as `openTurn` writes it: its door's session, key and sub-agent's rules, and the turn itself. */
export type TurnOpening = Pick<Door, 'sessionId' | 'subagent' | 'idempotency'> & {
  turnId: string;
  /** The model the turn runs (resolved from the one its door asked for). */
  model: string;
  mode: string;
  /** The message the turn starts from (`parentId`), when not the branch's last. */
  parent: number | null | undefined;
  answers: ResolvedAnswer[];
  /** A queued turn's row is there already: it starts. */
  queued: boolean;
};

export function storeOpening(stores: SessionStores, turn: TurnOpening): void {
  stores.meta.ensureCreated(turn.sessionId);
  stores.history.beginTurn(turn.parent);
  // Rules the answers bring last: kept before the turn runs, so that its own calls obey them.
  stores.side.addRules(turn.answers.flatMap(({ answer }) => (answer.kind === 'permission' ? (answer.rules ?? []) : [])));
  // A sub-agent's session takes the rules of the session that spawned it, for good: what is denied
  // or asked there is denied or asked here, in this turn and in any the user later runs here.
  if (turn.subagent) stores.side.addRules(turn.subagent.rules);
  if (turn.subagent?.parentSessionId !== undefined && stores.meta.parentSession() === undefined) stores.meta.setParentSession(turn.subagent.parentSessionId);
  if (turn.queued) stores.turns.startQueued(turn.turnId, turn.model);
  else stores.turns.beginTurn(turn.turnId, turn.model, turn.mode, turn.idempotency);
}
