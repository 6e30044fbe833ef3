/**
 * How a turn came in (`Door`) and what the launcher did with it (`Launched`): the words every door
 * (the turns API, the Harness, AG-UI, the chat socket, sub-agents, the queue) and the launcher
 * (`turn-runner.ts`) share. Types only, so that what the launcher uses (the opening's writes among
 * them) can speak of a door without importing the launcher.
 */
import type { PermissionRule } from '../tools/permission-rules';
import type { Follower, Listener } from './followers';
import type { TurnRow } from './store/turns';

/** How a turn came in, and who listens: everything the launcher needs besides the request. */
export type Door = {
  sessionId: string;
  model: string;
  /** The follower of the request that starts the turn (none for a socket's completion). */
  follower?: Follower;
  /** Set when a chat socket starts the turn. */
  socket?: { requestId: string | null; reasoning: boolean };
  /** Sampling the request asked for (the Harness door's `chatModel.temperature`). */
  sampling?: { temperature?: number };
  /** A retry of this key within its window runs nothing: `launch` answers with the turn it started. */
  idempotency?: { key: string; hash: string };
  /** A sub-agent's turn: its tools lack `agent_spawn`, and it takes the rules of the session that spawned it. */
  subagent?: { rules: PermissionRule[]; parentSessionId?: string };
  /** A queued turn that starts: its id, and the followers that waited for it (read as it starts). */
  queued?: { turnId: string; followers: () => Listener[] };
};

/** What `launch` did: started a turn, found the turn a retried key started, or found nothing to start. */
export type Launched = { turnId: string } | { replay: TurnRow } | { nothing: true };
