/**
 * A request body as a checked value: JSON content type (415), at most `MAX_BODY_BYTES` (413, counted
 * while reading, not trusted from Content-Length), valid JSON nested at most `MAX_JSON_DEPTH` deep
 * (400), the schema's shape (400 with the issues listed). A cast is not a check.
 */
import { LIMITS } from '../api/limits';
import { ApiError, invalidRequest } from '../lib/errors';
import { nestsDeeperThan, TOO_DEEP_MESSAGE } from '../lib/json-depth';
import type { z } from '../lib/zod';

export const MAX_BODY_BYTES = LIMITS.bodyBytes;

/** The checked value, and the body's text as it came (what an Idempotency-Key is bound to). */
export async function readJsonBody<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
): Promise<{ data: z.infer<Schema>; text: string }> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the body as JSON, with "Content-Type: application/json".');
  }
  const text = await readBodyText(request);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'The body is not valid JSON.');
  }
  if (nestsDeeperThan(json)) throw new ApiError(400, 'invalid_json', `The body is too deeply nested: ${TOO_DEEP_MESSAGE}`);
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw invalidRequest('The request body', parsed.error.issues);
  return { data: parsed.data, text };
}

/** The body's text, at most `MAX_BODY_BYTES` (a `413` ApiError beyond, counted while reading). */
export async function readBodyText(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return '';
  // A declared length was checked above: the body is read at once, then counted all the same.
  if (request.headers.has('content-length')) {
    const bytes = await request.arrayBuffer();
    if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
    return new TextDecoder().decode(bytes);
  }
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

function tooLarge(): ApiError {
  return new ApiError(413, 'payload_too_large', `The body is larger than ${MAX_BODY_BYTES} bytes.`);
}
