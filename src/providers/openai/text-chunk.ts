/**
 * The one chunk shape that is nearly every chunk of an answer, `{choices: [{delta: {content}}]}`,
 * recognised by hand. zod (jitless in workerd) cost about a sixth of a long answer's CPU in the
 * object (bench/PROFILE.md). Anything else, or anything more, goes to `chatChunkSchema`, which stays
 * the definition: what this accepts is a subset of what the schema accepts, with the same result
 * (a property test holds it to that).
 */
import { isRecord } from '../../lib/is-record';
import type { ChatChunk } from './chunk-schema';

type Json = Record<string, unknown>;

const absent = (value: unknown) => value === undefined || value === null;
const isText = (value: unknown) => value === undefined || value === null || typeof value === 'string';

/** Keys a text chunk's delta may hold besides its content (the others of the schema must be absent or null). */
const QUIET_DELTA_KEYS = ['refusal', 'reasoning_content', 'reasoning', 'tool_calls'] as const;

/** The chunk as the schema would parse it, if it is a plain text chunk; undefined for any other. */
export function textChunk(json: unknown): ChatChunk | undefined {
  if (!isRecord(json) || !absent(json.usage) || !absent(json.error)) return undefined;
  const choices = json.choices;
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const choice = choices[0];
  if (!isRecord(choice) || !isText(choice.finish_reason)) return undefined;
  const delta = choice.delta;
  if (!isRecord(delta) || typeof delta.content !== 'string') return undefined;
  for (const key of QUIET_DELTA_KEYS) if (!absent(delta[key])) return undefined;
  // What the schema gives: the known keys it saw, unknown ones dropped.
  const parsedDelta: Json = { content: delta.content };
  for (const key of QUIET_DELTA_KEYS) if (key in delta) parsedDelta[key] = delta[key];
  const parsedChoice: Json = { delta: parsedDelta };
  if ('finish_reason' in choice) parsedChoice.finish_reason = choice.finish_reason;
  const chunk: Json = { choices: [parsedChoice] };
  if ('usage' in json) chunk.usage = json.usage;
  if ('error' in json) chunk.error = json.error;
  return chunk as ChatChunk;
}
