/**
 * Upstream failures as stream parts. What may be retried follows from the status (408, 409, 429,
 * 5xx) or the kind (unreachable, timed out, cut); whether it is retried is the loop's decision, which
 * also knows whether any output already reached the client.
 */
import type { ModelStreamPart } from './types';

export type ErrorPart = Extract<ModelStreamPart, { type: 'error' }>;

/**
 * How servers say the prompt does not fit: OpenAI, vLLM, DeepSeek, Mistral ("maximum context
 * length"), Anthropic ("prompt is too long", and with the output's room "input length and
 * `max_tokens` exceed context limit"), llama.cpp ("exceeds the available context size", its forks'
 * "Context size has been exceeded"), xAI ("maximum prompt length"), Gemini ("The input token count
 * … exceeds the maximum number of tokens allowed"), others. One not read so fails its turn instead
 * of compacting, and so every later turn.
 */
const CONTEXT_OVERFLOW =
  /context_length_exceeded|maximum context length|context window|prompt is too long|too many tokens|exceeds? (the )?(available )?context|context limit|context size has been exceeded|maximum prompt length|exceeds the maximum number of tokens/i;

/**
 * Where an overflow names the window, the number: "maximum context length is 8192 tokens" (OpenAI,
 * vLLM, DeepSeek), llama.cpp's `n_ctx`, xAI's "maximum prompt length is 131072", Gemini's "maximum
 * number of tokens allowed (1048576)", Anthropic's "> 200000 maximum" and "> 200000, decrease".
 */
const WINDOW_NAMED = [
  /maximum context length is (\d+)/i,
  /"n_ctx":\s*(\d+)/,
  /available context size \((\d+) tokens\)/i,
  /maximum prompt length is (\d+)/i,
  /maximum number of tokens allowed \((\d+)\)/i,
  /> (\d+) maximum/i,
  /> (\d+), decrease/i,
];

/** The window an overflow names, if it names one. */
function namedWindow(detail: string): number | undefined {
  for (const pattern of WINDOW_NAMED) {
    const window = Number(pattern.exec(detail)?.[1]);
    if (window > 0) return window;
  }
  return undefined;
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from `now`; undefined if absent or bad. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The overflow a server's words tell, with the window they name; undefined when they tell none. Read
 * from an error answer, or from an error a stream carries (llama.cpp and LM Studio answer 200 and
 * send the overflow as the stream's one event).
 */
export function overflowPart(detail: string): ErrorPart | undefined {
  if (!CONTEXT_OVERFLOW.test(detail)) return undefined;
  const window = namedWindow(detail);
  return { type: 'error', code: 'context_overflow', message: 'The prompt is longer than the model’s context window.', ...(window ? { window } : {}) };
}

export async function httpErrorPart(response: Response, provider: string): Promise<ErrorPart> {
  const detail = await response.text().catch(() => '');
  // The upstream's own words go to the log; the client reads the status.
  console.error(`${provider}: upstream answered`, response.status, detail.slice(0, 2000));
  // Some servers answer an overflow 500 (llama.cpp's forks: "Context size has been exceeded"): sent
  // again, it would fail again.
  const overflow = response.status === 400 || response.status === 413 || response.status === 500 ? overflowPart(detail) : undefined;
  if (overflow) return overflow;
  const part: ErrorPart = {
    type: 'error',
    code: 'upstream_error',
    message: `The model server answered HTTP ${response.status}.`,
    retryable: isRetryableStatus(response.status),
  };
  // Refused as made: a 413 too (a history whose images pass the API's size, 32 MB for Anthropic's
  // Messages API), which the same request would meet on every later turn.
  if (response.status === 400 || response.status === 413 || response.status === 422) part.refused = true;
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  if (retryAfterMs !== undefined) part.retryAfterMs = retryAfterMs;
  return part;
}
