/**
 * An A2A message's parts, as the turn's messages (docs/a2a.md): its text parts and its images one
 * user message, in their order; its data parts answers to the calls the task waits for. An image
 * comes as a file part in either version's shape: v1.0's `raw` (base64) or `url` with its
 * `mediaType`, v0.3's `file` with `bytes` or `uri` and its `mimeType`. A file of another type is
 * refused, not dropped: the model would answer without it.
 */
import { RPC_ERRORS, RpcError } from '../api/json-rpc';
import { userInputContentSchema, type InputMessage } from '../api/turn-request';
import type { ImageBlock, TextBlock } from '../api/content';
import { quoted } from '../lib/quoted';
import * as z from '../lib/zod';

const fileOf = { mediaType: z.optional(z.string()), filename: z.optional(z.string()) };
export const partSchema = z.union([
  z.object({ text: z.string() }),
  z.object({ data: z.record(z.string(), z.unknown()) }),
  z.object({ raw: z.string(), ...fileOf }),
  z.object({ url: z.string(), ...fileOf }),
  z.object({ file: z.object({ bytes: z.optional(z.string()), uri: z.optional(z.string()), mimeType: z.optional(z.string()), name: z.optional(z.string()) }) }),
]);
type Part = z.infer<typeof partSchema>;

const answerSchema = z.union([
  z.object({ toolCallId: z.string(), granted: z.boolean(), reason: z.optional(z.string().check(z.maxLength(2000))) }),
  z.object({ toolCallId: z.string(), result: z.unknown() }),
]);

const invalid = (message: string) => new RpcError(RPC_ERRORS.invalidParams, message);

export function messagesOf(parts: Part[]): InputMessage[] {
  const blocks: (TextBlock | ImageBlock)[] = [];
  const answers: InputMessage[] = [];
  for (const part of parts) {
    if ('text' in part) blocks.push({ type: 'text', text: part.text });
    else if ('data' in part) answers.push(answerOf(part.data));
    else blocks.push(imageOf(part));
  }
  const texts = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  // Text alone is one text, as it always was; with images, each part a block of its own.
  const content = blocks.length === texts.length ? texts.join('\n') : blocks;
  if (content === '' || (Array.isArray(content) && content.length === 0)) return answers;
  const checked = userInputContentSchema().safeParse(content);
  if (!checked.success) throw invalid(`params.message.parts: ${checked.error.issues[0]?.message ?? 'not a user message'}`);
  return [{ role: 'user', content: checked.data }, ...answers];
}

function answerOf(data: Record<string, unknown>): InputMessage {
  const answer = answerSchema.safeParse(data);
  if (!answer.success) throw invalid('A data part answers a call: {"toolCallId", "granted", "reason"?} or {"toolCallId", "result"}.');
  const value = answer.data;
  if ('granted' in value) return { role: 'tool_permission', toolCallId: value.toolCallId, granted: value.granted, ...(value.reason ? { reason: value.reason } : {}) };
  return { role: 'tool', toolCallId: value.toolCallId, content: typeof value.result === 'string' ? value.result : JSON.stringify(value.result) };
}

function imageOf(part: Exclude<Part, { text: string } | { data: Record<string, unknown> }>): ImageBlock {
  const file = 'file' in part ? { bytes: part.file.bytes, url: part.file.uri, type: part.file.mimeType, name: part.file.name } : { bytes: 'raw' in part ? part.raw : undefined, url: 'url' in part ? part.url : undefined, type: part.mediaType, name: part.filename };
  if (file.type === undefined) throw invalid('A file part is taken as an image, and names its media type (image/png, image/jpeg, …).');
  if (!/^image\/[\w.+-]+$/.test(file.type)) throw invalid(`A file part is taken as an image: ${quoted(file.name ?? file.type)} is ${quoted(file.type)}.`);
  if (file.bytes) return { type: 'image', mimeType: file.type, data: file.bytes };
  if (file.url && /^https?:\/\//i.test(file.url)) return { type: 'image', url: file.url };
  throw invalid('A file part brings its bytes (base64) or an http(s) URL.');
}
