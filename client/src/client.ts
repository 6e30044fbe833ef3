/**
 * `createClient({ baseUrl, token })`: the sessions and turns of the service, typed. A turn's stream
 * survives a dropped connection: it reconnects on its own, from the last event it received
 * (`Last-Event-ID`), and a drop before the turn was named is retried with the same Idempotency-Key,
 * which follows the same turn. Nothing is yielded twice and nothing is missed.
 */
import { errorOf, TurnsApiError } from './errors.js';
import { runExchange, type RunOptions, type RunResult } from './run.js';
import { readTurnEvents } from './sse.js';
import type { AcceptedTurn, Branch, CancelledTurn, Delivery, ExportLine, IfBusy, MessagesPage, Schedule, ScheduleInput, Session, SessionList, TurnBody, TurnEvent, TurnInput, TurnsPage, TurnStatus, TurnView, UsageReport, UserView } from './types.js';

export type ClientOptions = {
  /** Where the service is, e.g. `https://agent.example.com`. */
  baseUrl: string;
  /** A bearer token, or a function that gives one for each request (tokens expire). */
  token?: string | (() => string | Promise<string>);
  /** A fetch of your own (tests, a service binding). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** How a dropped stream is resumed: attempts in a row without progress, and the wait before each. */
  reconnect?: { attempts?: number; delayMs?: number };
};

export type StreamOptions = {
  /** `delta` (default): text as it streams; `message`: each block whole. */
  mode?: 'delta' | 'message';
  /** Sent with the POST; one is made for you, so that a retry never starts a second turn. */
  idempotencyKey?: string;
  signal?: AbortSignal;
};

export type Client = ReturnType<typeof createClient>;

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  const attempts = options.reconnect?.attempts ?? 5;
  const delayMs = options.reconnect?.delayMs ?? 250;

  async function call(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const token = typeof options.token === 'function' ? await options.token() : options.token;
    if (token) headers.set('authorization', `Bearer ${token}`);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    const response = await doFetch(`${base}${path}`, { ...init, headers });
    if (!response.ok) throw await errorOf(response);
    return response;
  }
  const json = async <T>(path: string, init?: RequestInit): Promise<T> => (await call(path, init)).json() as Promise<T>;
  const session = (id: string) => `/sessions/${encodeURIComponent(id)}`;

  async function* follow(sessionId: string, turnId: string, after = 0, opts: StreamOptions = {}): AsyncGenerator<TurnEvent> {
    yield* resumable(sessionId, opts, { turnId, lastId: after });
  }

  async function* stream(sessionId: string, input: TurnInput, opts: StreamOptions = {}): AsyncGenerator<TurnEvent> {
    const key = opts.idempotencyKey ?? crypto.randomUUID();
    const post = () =>
      call(`${session(sessionId)}/turns`, {
        method: 'POST',
        body: JSON.stringify({ ...input, stream: opts.mode ?? 'delta' }),
        headers: { 'idempotency-key': key },
        ...signalOf(opts),
      });
    yield* resumable(sessionId, opts, { lastId: 0 }, post);
  }

  /**
   * Reads a turn's events to `turn_stop`, reconnecting after a drop (of the stream, or of a request
   * that opens it): by the turn's events after the last one received once the turn is named, by the
   * same POST (and key) before. A refusal of the API ends it; so do `attempts` drops in a row.
   */
  async function* resumable(
    sessionId: string,
    opts: StreamOptions,
    position: { turnId?: string; lastId: number },
    post?: () => Promise<Response>,
  ): AsyncGenerator<TurnEvent> {
    const events = (turnId: string) =>
      call(`${session(sessionId)}/turns/${turnId}/events${opts.mode ? `?stream=${opts.mode}` : ''}`, {
        headers: { 'last-event-id': String(position.lastId) },
        ...signalOf(opts),
      });
    for (let failures = 0; ; ) {
      try {
        const response = position.turnId !== undefined ? await events(position.turnId) : await post!();
        for await (const event of readTurnEvents(response.body!)) {
          failures = 0;
          if (event.id <= position.lastId) continue; // a replay's events the caller already has
          position.lastId = event.id;
          if (event.event === 'turn_start') position.turnId = event.data.turnId;
          yield event;
          if (event.event === 'turn_stop') return;
        }
      } catch (error) {
        if (opts.signal?.aborted || error instanceof TurnsApiError) throw error;
        // A dropped connection: tried again below.
      }
      if (++failures > attempts) {
        throw new TurnsApiError(0, 'stream_lost', `The turn's stream dropped and could not be resumed after ${attempts} attempts.`);
      }
      await new Promise((resolve) => setTimeout(resolve, delayMs * failures));
    }
  }

  const client = {
    sessions: {
      /** The caller's sessions, most recently changed first, a page at a time. */
      list: (page: { limit?: number; cursor?: string } = {}) => json<SessionList>(`/sessions${queryOf(page)}`),
      get: (sessionId: string) => json<Session>(session(sessionId)),
      /** A page of a branch: the active one, or the one that ends at `leaf`. */
      messages: (sessionId: string, page: { limit?: number; cursor?: string; leaf?: string } = {}) => json<MessagesPage>(`${session(sessionId)}/messages${queryOf(page)}`),
      /** The session's branches, one per leaf. */
      branches: async (sessionId: string): Promise<Branch[]> => (await json<{ branches: Branch[] }>(`${session(sessionId)}/branches`)).branches,
      /** Makes the branch that ends at `leafId` the active one. */
      activate: (sessionId: string, leafId: string) => json<Branch>(`${session(sessionId)}/branches/${encodeURIComponent(leafId)}/activate`, { method: 'POST' }),
      /** A new session of the same user with a copy of the active branch (up to `upTo`); its id. */
      fork: async (sessionId: string, fork: { sessionId?: string; upTo?: string } = {}): Promise<string> =>
        (await json<{ sessionId: string }>(`${session(sessionId)}/fork`, { method: 'POST', body: JSON.stringify(fork) })).sessionId,
      delete: async (sessionId: string): Promise<void> => {
        await call(session(sessionId), { method: 'DELETE' });
      },
      /** The session's last 50 webhook deliveries, with each attempt. */
      deliveries: async (sessionId: string): Promise<Delivery[]> => (await json<{ deliveries: Delivery[] }>(`${session(sessionId)}/deliveries`)).deliveries,
    },
    /** Turns that run at a time or on a cron, with no client (their ends go to the webhook). */
    schedules: {
      create: (sessionId: string, schedule: ScheduleInput) => json<{ scheduleId: string; nextRunAt: string }>(`${session(sessionId)}/schedules`, { method: 'POST', body: JSON.stringify(schedule) }),
      list: async (sessionId: string): Promise<Schedule[]> => (await json<{ schedules: Schedule[] }>(`${session(sessionId)}/schedules`)).schedules,
      delete: async (sessionId: string, scheduleId: string): Promise<void> => {
        await call(`${session(sessionId)}/schedules/${encodeURIComponent(scheduleId)}`, { method: 'DELETE' });
      },
    },
    turns: {
      /** One turn, answered as one JSON body when it stops. */
      create: (sessionId: string, input: TurnInput, opts: { idempotencyKey?: string; signal?: AbortSignal } = {}) =>
        json<TurnBody>(`${session(sessionId)}/turns`, {
          method: 'POST',
          body: JSON.stringify({ ...input, stream: 'none' }),
          headers: opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {},
          ...signalOf(opts),
        }),
      /**
       * A turn sent while another may run, with what to do then (`ifBusy`): its body if it ran at once
       * (an idle session, or `interrupt`), or `{turnId, status: "queued" | "steered"}` (follow a queued
       * turn with `follow`; a steered one is the running turn).
       */
      submit: (sessionId: string, input: TurnInput & { ifBusy: IfBusy }, opts: { idempotencyKey?: string; signal?: AbortSignal } = {}) =>
        json<TurnBody | AcceptedTurn>(`${session(sessionId)}/turns`, {
          method: 'POST',
          body: JSON.stringify({ ...input, stream: 'none' }),
          headers: opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {},
          ...signalOf(opts),
        }),
      /** One turn's events as they happen, to `turn_stop`, across dropped connections. */
      stream,
      /** A turn's events after `after` (an event id), then live to its end. */
      follow,
      cancel: (sessionId: string, turnId: string) => json<CancelledTurn>(`${session(sessionId)}/turns/${turnId}/cancel`, { method: 'POST' }),
      /** A turn that runs without its client (`Prefer: respond-async`): its id and state at once; its end goes to the webhook. */
      background: (sessionId: string, input: TurnInput & { ifBusy?: IfBusy }, opts: { idempotencyKey?: string } = {}) =>
        json<AcceptedTurn>(`${session(sessionId)}/turns`, {
          method: 'POST',
          body: JSON.stringify(input),
          headers: { prefer: 'respond-async', ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}) },
        }),
      /** A turn's state; once it ended, what a JSON turn would have answered. */
      get: (sessionId: string, turnId: string) => json<TurnView>(`${session(sessionId)}/turns/${turnId}`),
      /** The session's turns, newest first, a page at a time; `status` keeps those in one state, `since` those whose state changed since (ISO 8601). */
      list: (sessionId: string, page: { limit?: number; cursor?: string; status?: TurnStatus; since?: string } = {}) => json<TurnsPage>(`${session(sessionId)}/turns${queryOf(page)}`),
    },
    /** The caller's own: their usage per UTC day and model, their view, their export and their erasure. */
    me: {
      get: () => json<UserView>('/users/me'),
      usage: (range: { from?: string; to?: string } = {}) => json<UsageReport>(`/usage${queryOf(range)}`),
      /** Everything the caller has, a line at a time, as the service streams it. */
      export: async function* (): AsyncGenerator<ExportLine> {
        const body = (await call('/users/me/export')).body;
        if (!body) return;
        let buffer = '';
        for await (const chunk of body.pipeThrough(new TextDecoderStream()) as unknown as AsyncIterable<string>) {
          buffer += chunk;
          const lines = buffer.split('\n');
          buffer = lines.pop() ?? '';
          for (const line of lines) if (line.trim() !== '') yield JSON.parse(line) as ExportLine;
        }
        if (buffer.trim() !== '') yield JSON.parse(buffer) as ExportLine;
      },
      /** Erases every session of the caller; the usage numbers stay. */
      delete: () => json<{ deletedSessions: number }>('/users/me', { method: 'DELETE' }),
    },
    /** A whole exchange: turns, client tools and permission prompts, until the agent stops. */
    run: (sessionId: string, run: RunOptions): Promise<RunResult> => runExchange(client, sessionId, run),
  };
  return client;
}

/** `?key=value&...` of the fields that are set, or nothing. */
function queryOf(fields: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) query.set(key, String(value));
  return query.size > 0 ? `?${query}` : '';
}

function signalOf(opts: { signal?: AbortSignal }): RequestInit {
  return opts.signal ? { signal: opts.signal } : {};
}
