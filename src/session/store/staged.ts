/**
 * What the chat socket keeps between frames, in SQLite so that it survives hibernation: messages and
 * answers appended but not yet taken by a completion, and the options of the last completion. Shared
 * by every socket of the session. Read back through the turns API's own schemas.
 */
import { clientToolSchema, inputMessageSchema, type InputMessage } from '../../api/turn-request';
import { madeOnce } from '../../lib/made-once';
import * as z from '../../lib/zod';
import type { SessionMeta } from './meta';

/** Made by the first read of a socket's options (`madeOnce`), as the request schemas it takes are. */
const optionsSchema = madeOnce(() =>
  z.object({
    model: z.optional(z.string()),
    reasoning: z.boolean(),
    tools: z.array(clientToolSchema()),
  }),
);

export type CompletionOptions = z.infer<ReturnType<typeof optionsSchema>>;

export class SocketStore {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly meta: SessionMeta,
  ) {}

  /** Call only once the session's tables exist (`SessionMeta.ensureCreated`). */
  stage(message: InputMessage): void {
    this.meta.ensure('socket_staged');
    this.storage.sql.exec(`INSERT INTO socket_staged (body) VALUES (?)`, JSON.stringify(message));
  }

  staged(): InputMessage[] {
    if (!this.hasTables()) return [];
    return this.storage.sql
      .exec<{ body: string }>(`SELECT body FROM socket_staged ORDER BY seq`)
      .toArray()
      .map((row) => inputMessageSchema().parse(JSON.parse(row.body)));
  }

  /** How many messages are staged, and their JSON's length. */
  size(): { count: number; bytes: number } {
    if (!this.hasTables()) return { count: 0, bytes: 0 };
    const row = this.storage.sql.exec<{ count: number; bytes: number | null }>(`SELECT COUNT(*) AS count, SUM(length(body)) AS bytes FROM socket_staged`).one();
    return { count: row.count, bytes: row.bytes ?? 0 };
  }

  clear(): void {
    if (this.hasTables()) this.storage.sql.exec(`DELETE FROM socket_staged`);
  }

  options(): CompletionOptions | undefined {
    if (!this.hasTables()) return undefined;
    const row = this.storage.sql.exec<{ body: string }>(`SELECT body FROM socket_options WHERE id = 1`).toArray()[0];
    return row ? optionsSchema().parse(JSON.parse(row.body)) : undefined;
  }

  setOptions(options: CompletionOptions): void {
    this.meta.ensure('socket_staged');
    this.storage.sql.exec(
      `INSERT INTO socket_options (id, body) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body`,
      JSON.stringify(options),
    );
  }

  private hasTables(): boolean {
    return this.meta.has('socket_staged');
  }
}
