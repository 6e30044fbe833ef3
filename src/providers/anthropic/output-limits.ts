/**
 * The output limit a model told us, learnt from its refusal. `ANTHROPIC_MAX_TOKENS` (8192 by default)
 * is over some models' own limit, Claude 3 Haiku's and Opus's 4096, and the Messages API refuses such
 * a call ("max_tokens: 8192 > 4096, which is the maximum allowed number of output tokens for
 * claude-3-haiku-20240307"): every turn on them would fail. The call is sent again with the limit the
 * refusal names, and the server and model keep it for the isolate's life.
 */
import { BoundedMap } from '../../lib/bounded-map';

const REFUSAL = /max_tokens: \d+ > (\d+), which is the maximum allowed number of output tokens/;

const limits = new BoundedMap<string, number>(256);

/** The limit learnt for a server and model, if any. */
export function outputLimitOf(server: string): number | undefined {
  return limits.get(server);
}

/** The limit a refusal names, remembered; undefined when it names none (or none lower than `sent`). */
export function learnOutputLimit(server: string, sent: number, detail: string): number | undefined {
  const limit = Number(REFUSAL.exec(detail)?.[1]);
  if (!(limit > 0 && limit < sent)) return undefined;
  limits.set(server, limit);
  return limit;
}
