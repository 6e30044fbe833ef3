/**
 * A request body as a checked value: JSON content type (415), at most `MAX_BODY_BYTES` (413, counted
 * while reading, not trusted from Content-Length; counted decoded when it came gzip- or
 * deflate-encoded, any other Content-Encoding 415), valid JSON nested at most `MAX_JSON_DEPTH` deep
 * (400), the schema's shape (400 with the issues listed). A cast is not a check.
 */
import { LIMITS } from '../api/limits';
import { ApiError, invalidRequest } from '../lib/errors';
import { nestsDeeperThan, TOO_DEEP_MESSAGE } from '../lib/json-depth';
import type { z } from '../lib/zod';

export const MAX_BODY_BYTES = LIMITS.bodyBytes;

/**
 * The checked value, and the body's text as it came (what an Idempotency-Key is bound to). `plain`
 * may recognise the common shape by hand, giving exactly what the schema would (it is held to that by
 * a test); whatever it does not recognise goes to the schema. The schema may come as the function that
 * makes it (`madeOnce`), or loads its module: a body `plain` recognises never makes it.
 */
export async function readJsonBody<Schema extends z.ZodMiniType>(
  request: Request,
  schema: Schema | (() => Schema | Promise<Schema>),
  plain?: (json: unknown) => z.infer<Schema> | undefined,
): Promise<{ data: z.infer<Schema>; text: string }> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the body as JSON, with "Content-Type: application/json".');
  }
  const body = await readBoundedJson(request);
  if ('problem' in body) {
    if (body.problem === 'too_large') throw tooLarge();
    const encoding = encodingRefusal(request, body.problem);
    if (encoding) throw new ApiError(encoding.status, encoding.status === 415 ? 'unsupported_content_encoding' : 'invalid_json', encoding.message, { headers: encoding.headers });
    throw new ApiError(400, 'invalid_json', body.problem === 'not_json' ? 'The body is not valid JSON.' : `The body is too deeply nested: ${TOO_DEEP_MESSAGE}`);
  }
  const recognised = plain?.(body.json);
  if (recognised !== undefined) return { data: recognised, text: body.text };
  const parsed = (typeof schema === 'function' ? await schema() : schema).safeParse(body.json);
  if (!parsed.success) throw invalidRequest('The request body', parsed.error.issues);
  return { data: parsed.data, text: body.text };
}

/**
 * Why a body could not be taken as JSON; each door answers it in its own words (JSON-RPC's, for MCP
 * and A2A). `unknown_encoding`: a Content-Encoding other than gzip and deflate; `undecodable`: a body
 * its Content-Encoding does not decode.
 */
export type BodyProblem = 'too_large' | 'not_json' | 'too_deep' | 'unknown_encoding' | 'undecodable';

/**
 * A body its Content-Encoding kept from being read, as every door refuses it: `415` for a coding
 * not taken (with the `Accept-Encoding` that names those that are), `400` for a body its coding does
 * not decode. Undefined for any other problem.
 */
export function encodingRefusal(request: Request, problem: BodyProblem): { status: 415 | 400; message: string; headers: Record<string, string> } | undefined {
  const coding = request.headers.get('content-encoding')?.trim().slice(0, 40) ?? '';
  if (problem === 'unknown_encoding') {
    return { status: 415, message: `A body's Content-Encoding may be gzip or deflate, not "${coding}".`, headers: { 'accept-encoding': 'gzip, deflate' } };
  }
  if (problem === 'undecodable') return { status: 400, message: `The body is not valid ${coding.toLowerCase()} data.`, headers: {} };
  return undefined;
}

/** The body as JSON, bounded as every door's is (`MAX_BODY_BYTES`, `MAX_JSON_DEPTH`), or what is wrong with it. */
export async function readBoundedJson(request: Request): Promise<{ json: unknown; text: string } | { problem: BodyProblem }> {
  const coding = codingOf(request);
  if (coding === undefined) return { problem: 'unknown_encoding' };
  let text: string;
  try {
    text = await readBodyText(request, coding);
  } catch (error) {
    if (error instanceof ApiError && error.status === 413) return { problem: 'too_large' };
    if (coding !== 'identity') return { problem: 'undecodable' };
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: 'not_json' };
  }
  return nestsDeeperThan(json) ? { problem: 'too_deep' } : { json, text };
}

/**
 * The body's coding: `identity` with no Content-Encoding, `gzip` or `deflate` (one coding, as HTTP
 * clients send a compressed body), undefined for any other.
 */
function codingOf(request: Request): 'identity' | 'gzip' | 'deflate' | undefined {
  const coding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return 'identity';
  if (coding === 'gzip' || coding === 'x-gzip') return 'gzip';
  return coding === 'deflate' ? 'deflate' : undefined;
}

/**
 * The body's text, at most `MAX_BODY_BYTES` (a `413` ApiError beyond, counted while reading). An
 * encoded body is counted as it decodes: a small body that inflates past the bound is refused as
 * soon as it does, never held whole.
 */
async function readBodyText(request: Request, coding: 'identity' | 'gzip' | 'deflate'): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return '';
  // A declared length was checked above: the body is read at once, then counted all the same.
  if (coding === 'identity' && request.headers.has('content-length')) {
    const bytes = await request.arrayBuffer();
    if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
    return new TextDecoder().decode(bytes);
  }
  const stream = coding === 'identity' ? request.body : request.body.pipeThrough(new DecompressionStream(coding));
  const reader = stream.getReader();
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
