/**
 * Followers of a turn: each gets every event of the turn in order, from the first, and writes to
 * its own client what comes after the point it starts from. The client that started the turn, a
 * client resuming after a drop, and an idempotent retry are all followers; the turn does not know
 * how many there are.
 */
import { sseModeSchema, type SseMode, type StreamMode } from '../api/turn-request';
import { harnessFraming, type HarnessFormat } from '../transport/harness-framing';
import { createSseStream, SSE_FRAMING, type Framing, type LagBound } from '../transport/sse-stream';
import { createTurnsJsonEncoder, type TurnJsonBody } from '../protocol/turns-json-encoder';
import { createAguiEncoder } from '../protocol/agui-encoder';
import { createHarnessEncoder } from '../protocol/harness-encoder';
import { harnessSse } from '../protocol/harness-sse';
import { createPiEncoder } from '../protocol/pi-encoder';
import { createTurnsSseEncoder } from '../protocol/turns-sse-encoder';
import { typedSse, type SseItem, type WireEncoder } from '../protocol/encoder';
import { piSse } from '../protocol/pi-sse';
import type { ServerFrame } from '../protocol/socket-frames';
import { emptyUsage } from '../agent/usage';
import { turnUsage } from '../protocol/turns-usage';
import type { LoggedEvent } from './event-log';

/**
 * Followers one running turn takes at once (the sockets count as one): each holds what its client
 * has not read yet, up to `FOLLOWER_MAX_UNREAD_CHARS`, and the object's memory is not the clients' to fill.
 */
export const MAX_FOLLOWERS = 16;
export const FOLLOWER_MAX_UNREAD_CHARS = 4 * 1024 * 1024;

/**
 * The last event of a stream cut for falling too far behind: where to resume (the turns API's resume
 * route, with `Last-Event-ID`), and why. Never sent to a client that keeps up.
 */
const LAG: LagBound = {
  maxChars: FOLLOWER_MAX_UNREAD_CHARS,
  notice: (lastId) => ({
    event: 'resume_required',
    data: {
      type: 'resume_required',
      lastEventId: lastId,
      message: `This stream fell more than ${FOLLOWER_MAX_UNREAD_CHARS} characters behind the turn, so it ends here: resume from event ${lastId} (GET .../turns/{turnId}/events with Last-Event-ID).`,
    },
  }),
};

export type StartedTurn = { kind: 'sse'; body: ReadableStream<Uint8Array> } | { kind: 'json'; body: TurnJsonBody };

/** Anything that hears a turn's events in order, then its end. */
export interface Listener {
  deliver(entry: LoggedEvent): void;
  close(): void;
}

export interface Follower extends Listener {
  /** What the request gets back: the stream at once, or the JSON body when the turn stops. */
  result(): Promise<StartedTurn>;
}

/** A JSON answer's last touch, made as the turn stops (the turns API names the messages it stored). */
export type FinishBody = (body: TurnJsonBody) => TurnJsonBody;

export function createFollower(mode: StreamMode, after = 0, finish?: FinishBody): Follower {
  return mode === 'none' ? jsonFollower(finish) : sseFollower(sseEncoderFor(mode), after);
}

/** The heartbeat of a stream whose turn waits in the queue: `: queued`, until the turn starts. */
const QUEUED_HEARTBEAT = ': queued\n\n';

/** A follower of a turn that waits in the queue: told so at once and at every heartbeat, then its events. */
export function queuedFollower(mode: SseMode, after: number): Follower {
  return sseFollower(sseEncoderFor(mode), after, undefined, true, true);
}

/** Where a door's follower starts: after event `after`; `queued`: its turn waits in the queue. */
export type FollowFrom = { after?: number; queued?: boolean };

/** The wire format of each streaming mode: a pure encoder of the turn's events. */
export function sseEncoderFor(mode: SseMode): WireEncoder<SseItem> {
  return mode === 'pi' ? piSse(createPiEncoder()) : createTurnsSseEncoder(mode);
}

/** The follower of an AG-UI run (`POST /ag-ui`): its events over SSE. */
export function aguiFollower(run: { threadId: string; runId: string }, from: FollowFrom = {}): Follower {
  return sseFollower(typedSse(createAguiEncoder(run)), from.after ?? 0, undefined, true, from.queued);
}

/** The follower of a Harness run (`POST /harness/chat`): its events as SSE `data:` lines or a JSON array. */
export function harnessFollower(sessionId: string, format: HarnessFormat, from: FollowFrom = {}): Follower {
  return sseFollower(harnessSse(createHarnessEncoder({ sessionId, now: Date.now })), from.after ?? 0, harnessFraming(format), true, from.queued);
}

/**
 * The follower of a sub-agent's run, for the session that spawned it: the internal events
 * themselves, one JSON line each (a stream between two of this service's objects, not a wire format).
 */
export function eventsFollower(after = 0): Follower {
  const lines: WireEncoder<SseItem> = { encode: (event) => [{ event: event.type, data: event }] };
  // Read by the calling turn as it comes, never cut: a cut would lose the sub-agent's answer.
  return sseFollower(lines, after, { item: ({ data }) => `${JSON.stringify(data)}\n`, heartbeat: '\n' }, false);
}

function sseFollower(encoder: WireEncoder<SseItem>, after: number, framing?: Framing, bounded = true, queued = false): Follower {
  // Encoders see every event, so that any state they keep is right; only later ones are written.
  const sse = createSseStream({ ...(framing ? { framing } : {}), ...(bounded ? { lag: LAG } : {}) });
  // Only a framing whose heartbeat is an SSE comment can say `: queued` (not the Harness JSON array).
  let waiting = queued && (framing ?? SSE_FRAMING).heartbeat.startsWith(':');
  if (waiting) {
    sse.comment('queued');
    sse.setHeartbeat(QUEUED_HEARTBEAT);
  }
  return {
    deliver({ seq, event }) {
      if (waiting) {
        waiting = false;
        sse.setHeartbeat((framing ?? SSE_FRAMING).heartbeat);
      }
      const items = encoder.encode(event);
      if (seq <= after) return;
      for (const item of items) sse.send(item, String(seq));
    },
    close: () => sse.close(),
    result: async () => ({ kind: 'sse', body: sse.readable }),
  };
}

function jsonFollower(finish: FinishBody = (body) => body): Follower {
  const encoder = createTurnsJsonEncoder();
  let turnId = '';
  let resolve: (body: TurnJsonBody) => void = () => {};
  const body = new Promise<TurnJsonBody>((done) => (resolve = done));
  return {
    deliver: ({ event }) => {
      if (event.type === 'turn-start') turnId = event.turnId;
      for (const body of encoder.encode(event)) {
        // The touch is an addition: without it, the answer is still the answer.
        try {
          resolve(finish(body));
        } catch (error) {
          console.error('finishing the JSON answer failed', error);
          resolve(body);
        }
      }
    },
    // Closed before its body was made (its encoder failed): the request still gets an answer.
    close: () => resolve(failedTurnBody(turnId)),
    result: async () => ({ kind: 'json', body: await body }),
  };
}

function failedTurnBody(turnId: string): TurnJsonBody {
  return {
    stopReason: 'error',
    messages: [],
    turnId,
    usage: turnUsage(emptyUsage(), []),
    error: { code: 'internal_error', message: 'The server failed to build this turn’s answer; the history holds what the turn stored.' },
  };
}

/**
 * The session's chat sockets (docs/chat-socket.md): one encoder for the turn, its frames sent to every socket
 * open at the time. The encoder starts with the first event at which a socket may be open, so that a
 * session with no socket pays nothing for it; a socket that connects mid-turn gets the rest of it.
 */
export function socketListener(
  createEncoder: () => WireEncoder<ServerFrame>,
  socketsOpen: () => boolean,
  broadcast: (frames: ServerFrame[]) => void,
): Listener {
  let encoder: WireEncoder<ServerFrame> | undefined;
  return {
    deliver: ({ event }) => {
      if (!encoder) {
        if (!socketsOpen()) return;
        encoder = createEncoder();
      }
      broadcast(encoder.encode(event));
    },
    close: () => {},
  };
}

/** The stream a streaming follower gives its request. */
export async function streamOf(follower: Follower): Promise<{ body: ReadableStream<Uint8Array> }> {
  const started = await follower.result();
  if (started.kind !== 'sse') throw new Error('a streaming follower gave no stream');
  return { body: started.body };
}

/** The mode a turn is followed in by default: the one it was started in, or `delta` for a JSON turn. */
export function storedSseMode(mode: string): SseMode {
  const parsed = sseModeSchema.safeParse(mode);
  return parsed.success ? parsed.data : 'delta';
}
