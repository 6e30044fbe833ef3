/**
 * Structured logs: one JSON object a line, which Workers Logs (and `wrangler tail`) index by field.
 * `kind` names the record: `request` (one per HTTP request, from the Worker) and `turn` (one per
 * turn, from the session's object, which knows its usage and how it ended).
 */
export type LogRecord =
  | { kind: 'request'; method: string; path: string; status: number; latencyMs: number; user?: string; session?: string; errorCode?: string }
  | {
      kind: 'turn';
      session: string;
      turn: string;
      user: string;
      model: string;
      stopReason: string;
      errorCode?: string;
      latencyMs: number;
      usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number; cacheWriteInputTokens: number; reasoningTokens: number };
      modelCalls: number;
    };

export function log(record: LogRecord): void {
  const level = record.kind === 'request' ? (record.status >= 500 ? 'error' : 'info') : record.errorCode && record.errorCode !== 'cancelled' ? 'warn' : 'info';
  console.log(JSON.stringify({ level, time: new Date().toISOString(), ...record }));
}
