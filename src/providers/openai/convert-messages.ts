/**
 * Our history and tool specs in the shape of the Chat Completions API: tool call ids as the server
 * takes them (`tool-call-ids.ts`), the rest in its dialect (`dialect.ts`).
 */
import { plainText, type AssistantBlock, type HistoryMessage, type ImageBlock, type TextBlock } from '../../api/content';
import { functionName } from '../../api/function-names';
import { leftOutImage, takenImageType } from '../image-types';
import type { ChatDialect } from './dialect';
import { nineCharacterId, openaiToolCallId } from './tool-call-ids';
import { toolParameters } from './tool-schemas';
import type { ToolSpec } from '../types';

type ToolCall = { id: string; type: 'function'; function: { name: string; arguments: string }; extra_content?: { google: { thought_signature: string } } };

/** What Gemini takes for a call whose thought signature is not at hand (`thoughtSignatures`, dialect.ts). */
const UNSIGNED_CALL = 'skip_thought_signature_validator';

type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: ToolCall[];
      reasoning_content?: string;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/**
 * The messages in the server's dialect (`dialect.ts`). Thinking goes back only to a server that asked
 * for it (`reasoningBack`: each assistant message's as `reasoning_content`, an empty one for none),
 * since Chat Completions has no field for it that every server accepts. Each message's conversion is
 * kept with it (`converted`), so the history a session sends again with every call is converted once.
 */
export function convertMessages(system: string, messages: HistoryMessage[], dialect: ChatDialect = {}): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (system) out.push({ role: 'system', content: system });
  const key = conversionKey(dialect);
  for (const message of messages) {
    let entry = converted.get(message);
    if (entry?.key !== key) {
      entry = { key, value: convertMessage(message, dialect) };
      converted.set(message, entry);
    }
    if (entry.value) out.push(entry.value);
  }
  return dialect.alternating ? alternating(out) : out;
}

/**
 * Each history message's conversion, under the dialect's options that shape one message. A history
 * message is never changed once made, nor is its conversion (`alternating` changes copies), so the
 * provider writes a converted message's JSON once too (`wellFormedJsonWithItems`).
 */
const converted = new WeakMap<HistoryMessage, { key: string; value: ChatMessage | undefined }>();

/** The dialect's options that `convertMessage` reads: every option it reads belongs here, or a kept conversion would outlive a change of it. */
const conversionKey = (dialect: ChatDialect): string => `${dialect.nineCharacterIds ? 1 : 0}${dialect.thoughtSignatures ? 1 : 0}${dialect.reasoningBack ? 1 : 0}`;

/** One message in the server's dialect; undefined for an answer that says nothing. */
function convertMessage(message: HistoryMessage, dialect: ChatDialect): ChatMessage | undefined {
  const toolCallId = dialect.nineCharacterIds ? nineCharacterId : openaiToolCallId;
  switch (message.role) {
    case 'system':
      return { role: 'system', content: plainText(message.content) };
    case 'user':
      return { role: 'user', content: typeof message.content === 'string' ? message.content : message.content.map(toContentPart) };
    case 'assistant': {
      const blocks: AssistantBlock[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      const calls = blocks.flatMap((block) =>
        block.type === 'tool_use'
          ? [
              {
                id: toolCallId(block.toolCallId),
                type: 'function' as const,
                function: { name: functionName(block.name), arguments: JSON.stringify(block.input) },
                ...(dialect.thoughtSignatures && { extra_content: { google: { thought_signature: block.signature ?? UNSIGNED_CALL } } }),
              },
            ]
          : [],
      );
      // An answer with neither text nor calls (a model that spent its output thinking) says nothing,
      // and servers refuse it ("Assistant message must have either content or tool_calls"): left out.
      if (text === '' && calls.length === 0) return undefined;
      const reasoning = dialect.reasoningBack ? { reasoning_content: blocks.flatMap((block) => (block.type === 'thinking' && !block.redacted ? [block.thinking] : [])).join('') } : {};
      return calls.length > 0 ? { role: 'assistant', content: text || null, tool_calls: calls, ...reasoning } : { role: 'assistant', content: text, ...reasoning };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: toolCallId(message.toolCallId), content: toolResultText(plainText(message.content), message.isError) };
  }
}

/**
 * The messages as strict chat templates take them. Such a template reads user messages and answers
 * (assistant messages without tool calls; calls and their results lie between, unread) and refuses
 * them unless they alternate, user first. So every system message's text goes in one, first; each
 * run of user messages is joined into one, and each run of answers (an answer before its model's
 * tool calls takes them on). Where a user message would follow another with only calls and results
 * between (a turn that stopped after its tools ran, before its answer), a short answer that says so
 * goes before it.
 */
function alternating(messages: ChatMessage[]): ChatMessage[] {
  const system = messages.flatMap((message) => (message.role === 'system' ? [message.content] : [])).join('\n\n');
  const out: ChatMessage[] = system ? [{ role: 'system', content: system }] : [];
  const read = () => out.findLast((message) => message.role === 'user' || (message.role === 'assistant' && !message.tool_calls));
  for (const message of messages) {
    const last = out.at(-1);
    if (message.role === 'system') continue;
    if (message.role === 'user' && last?.role === 'user') last.content = joinedContent(last.content, message.content);
    else if (message.role === 'assistant' && last?.role === 'assistant' && !last.tool_calls) {
      last.content = [last.content, message.content].filter(Boolean).join('\n\n') || null;
      if (message.tool_calls) last.tool_calls = message.tool_calls;
      if (message.reasoning_content !== undefined) last.reasoning_content = [last.reasoning_content, message.reasoning_content].filter(Boolean).join('\n\n');
    } else {
      if (message.role === 'user' && read()?.role === 'user') out.push({ role: 'assistant', content: NO_ANSWER });
      out.push({ ...message });
    }
  }
  return out;
}

/** The answer a strict template is given where a turn stopped after its tools ran, before its own. */
export const NO_ANSWER = '(The turn stopped here, before an answer.)';

/** Two user messages' content as one: text joined by a blank line, or the parts of both. */
function joinedContent(first: string | ChatContentPart[], second: string | ChatContentPart[]): string | ChatContentPart[] {
  if (typeof first === 'string' && typeof second === 'string') return `${first}\n\n${second}`;
  const parts = (content: string | ChatContentPart[]): ChatContentPart[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : content);
  return [...parts(first), ...parts(second)];
}

/**
 * Chat Completions has no error flag on a tool message: a failed call says so in its text, or the
 * model takes the error's words for the tool's answer.
 */
export function toolResultText(text: string, isError: boolean | undefined): string {
  return isError ? `[The tool call failed] ${text}` : text;
}

/**
 * The tools in Chat Completions' shape, in the server's dialect (`dialect.ts`): a description past
 * its `maxDescription` shortened, each schema as the server takes it (`tool-schemas.ts`).
 */
export function convertTools(tools: ToolSpec[], dialect: Pick<ChatDialect, 'maxDescription' | 'unknownSchemaKeys'> = {}) {
  const max = dialect.maxDescription ?? Infinity;
  const unknown = new Set(dialect.unknownSchemaKeys);
  return tools.map((tool) => ({
    type: 'function' as const,
    function: {
      name: tool.name,
      description: tool.description.length > max ? `${tool.description.slice(0, max - 1)}…` : tool.description,
      parameters: toolParameters(tool.parameters, unknown),
    },
  }));
}

function toContentPart(block: TextBlock | ImageBlock): ChatContentPart {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if ('url' in block) return { type: 'image_url', image_url: { url: block.url } };
  const type = takenImageType(block.mimeType);
  return type ? { type: 'image_url', image_url: { url: `data:${type};base64,${block.data}` } } : { type: 'text', text: leftOutImage(block.mimeType) };
}
