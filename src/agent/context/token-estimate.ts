/**
 * Prompt size in tokens, estimated before a call: about four characters a token plus a small cost per
 * message, multiplied by a per-session calibration that the tokens providers report correct after
 * every call. No tokenizer is bundled: the encodings of the OpenAI family weigh megabytes, which an
 * edge Worker pays on every cold start, and no one tokenizer fits every provider this service speaks.
 */
import type { HistoryMessage } from '../../api/content';
import type { ToolSpec } from '../../providers/types';

const CHARS_PER_TOKEN = 4;
const PER_MESSAGE = 4;

export function estimateTokens(system: string, messages: HistoryMessage[], tools: ToolSpec[]): number {
  let chars = system.length;
  for (const message of messages) chars += contentChars(message) + PER_MESSAGE * CHARS_PER_TOKEN;
  for (const tool of tools) chars += tool.name.length + tool.description.length + schemaChars(tool.parameters);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** A server tool's schema is one object for the isolate's life: its length is counted once, not at every estimate. */
const schemaLengths = new WeakMap<object, number>();

function schemaChars(parameters: Record<string, unknown>): number {
  let chars = schemaLengths.get(parameters);
  if (chars === undefined) {
    chars = JSON.stringify(parameters).length;
    schemaLengths.set(parameters, chars);
  }
  return chars;
}

/** About how many characters fit in this many tokens, by the same reckoning. */
export function charsIn(tokens: number): number {
  return Math.floor(tokens * CHARS_PER_TOKEN);
}

/** About how many tokens this many characters make, by the same reckoning. */
export function tokensIn(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

export function estimateMessageTokens(message: HistoryMessage): number {
  return Math.ceil(contentChars(message) / CHARS_PER_TOKEN) + PER_MESSAGE;
}

/** The bounds of a calibration: a provider's count is taken within four times ours either way. */
export const MAX_CALIBRATION = 4;
const MIN_CALIBRATION = 0.25;

/** The next calibration after a call: reported over estimated, smoothed, within sane bounds. */
export function recalibrate(previous: number, estimated: number, reported: number): number {
  if (estimated <= 0 || reported <= 0) return previous;
  const observed = Math.min(MAX_CALIBRATION, Math.max(MIN_CALIBRATION, reported / estimated));
  return Math.round((previous * 0.5 + observed * 0.5) * 1000) / 1000;
}

/**
 * The characters of each frozen content made of blocks, counted once: a deeply frozen content never
 * changes (the session keeps its history so), and every model call of every later turn estimates the
 * whole history again, each tool call's input written as JSON.
 */
const countedChars = new WeakMap<object, number>();

function contentChars({ content }: HistoryMessage): number {
  if (typeof content === 'string') return content.length;
  if (!Object.isFrozen(content)) return blockChars(content);
  let chars = countedChars.get(content);
  if (chars === undefined) countedChars.set(content, (chars = blockChars(content)));
  return chars;
}

function blockChars(content: Exclude<HistoryMessage['content'], string>): number {
  let chars = 0;
  for (const block of content) {
    if (block.type === 'text') chars += block.text.length;
    else if (block.type === 'thinking') chars += block.thinking.length + (block.signature?.length ?? 0) / 4;
    else if (block.type === 'tool_use') chars += block.name.length + JSON.stringify(block.input).length;
    else chars += 1000; // an image: providers count them by size; a fixed share keeps the estimate honest
  }
  return chars;
}
