/**
 * The embedded demo model's rules: a deterministic reading of the last user message. It is not a
 * language model; it exists so that the API can be tried offline and every part of the protocol
 * shown. Each clause of the message (clauses split at ";" and line breaks) may ask for one tool.
 */
import { plainText, type HistoryMessage } from '../../api/content';

/** `json`: the arguments as the user wrote them (`call <tool> {json}`), streamed as they are, as a model's would be. */
export type DemoToolCall = { name: string; input: Record<string, unknown>; json?: string };

export type DemoPlan =
  | { kind: 'tools'; calls: DemoToolCall[] }
  | { kind: 'text'; thinking: string; text: string }
  | { kind: 'refuse' }
  | { kind: 'long' }
  | { kind: 'fail' };

const ARITHMETIC = /^[\d\s+\-*/%^().eE]+$/;

export function lastUserText(messages: HistoryMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  }
  return '';
}

/** What the demo model does for a user message, given the names of the tools it is offered. */
export function planForUserText(text: string, offered: Set<string>): DemoPlan {
  const lower = text.toLowerCase();
  if (lower.includes('demo:refuse')) return { kind: 'refuse' };
  if (lower.includes('demo:long')) return { kind: 'long' };
  if (lower.includes('demo:error')) return { kind: 'fail' };

  const calls = text
    .split(/[;\n]/)
    .map((clause) => clause.trim())
    .flatMap((clause) => {
      const call = callForClause(clause);
      return call && offered.has(call.name) ? [call] : [];
    });
  if (calls.length > 0) return { kind: 'tools', calls };
  return { kind: 'text', thinking: 'No tool fits this message, so I answer with text.', text: introduction(text) };
}

function callForClause(clause: string): DemoToolCall | undefined {
  const lower = clause.toLowerCase();
  if (lower.includes('demo:loop')) return { name: 'calculator', input: { expression: '1+1' } };

  const explicit = /^call\s+([A-Za-z0-9_-]+)\s*(\{.*\})?\s*$/s.exec(clause);
  if (explicit?.[1]) {
    const input = parseObject(explicit[2]);
    return { name: explicit[1], input: input ?? {}, ...(input && explicit[2] ? { json: explicit[2] } : {}) };
  }

  const math = /^(?:calculate|compute|what is|what's)\s+(.+?)\??$/i.exec(clause);
  if (math?.[1] && ARITHMETIC.test(math[1])) return { name: 'calculator', input: { expression: math[1].trim() } };

  const count = /^count to (\d{1,2})$/i.exec(clause);
  if (count?.[1]) return { name: 'count_to', input: { to: Number(count[1]) } };

  const chart = /^(?:draw a |plot a |)chart(?: of)?\s*:?\s+(-?[\d.]+(?:\s*,\s*-?[\d.]+)*)$/i.exec(clause);
  if (chart?.[1]) return { name: 'render_chart', input: { values: chart[1].split(',').map((value) => Number(value.trim())) } };

  const remember = /^(?:remember|save a note|note)\s*:?\s+(.+)$/i.exec(clause);
  if (remember?.[1]) return { name: 'memory_save', input: { text: remember[1].trim() } };

  if (/\b(list (my )?notes|what do you remember|show (my )?notes|recall)\b/.test(lower)) return { name: 'memory_list', input: {} };

  if (/\b(time|date)\b/.test(lower)) {
    const zone = /\bin\s+([A-Za-z]+(?:\/[A-Za-z_+-]+)+|UTC)\b/.exec(clause)?.[1];
    return { name: 'current_time', input: zone ? { timezone: zone } : {} };
  }
  return undefined;
}

/** The object a clause's JSON writes, if it writes one (anything else calls the tool with `{}`). */
function parseObject(json: string | undefined): Record<string, unknown> | undefined {
  if (!json) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function introduction(text: string): string {
  const quoted = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return (
    `You said: "${quoted}". I am the demo model, not a language model: I follow fixed rules. ` +
    'Try "calculate (2+3)*4", "what time is it in Asia/Tokyo", "remember buy milk", "list notes", "count to 5", "chart 3, 5, 2", ' +
    'or "call <tool> {json}" for a tool of your own.'
  );
}

/** The reply after tool results: one line per result of the last batch, in call order. */
export function summarizeToolResults(messages: HistoryMessage[]): string {
  const lines: string[] = [];
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'assistant' && typeof message.content !== 'string') {
      for (const block of message.content) if (block.type === 'tool_use') names.set(block.toolCallId, block.name);
    }
  }
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'tool') break;
    const content = plainText(message.content, ' ');
    lines.unshift(`- ${names.get(message.toolCallId) ?? 'tool'}: ${content}`);
  }
  return `Here is what the tools returned:\n${lines.join('\n')}`;
}

/** The demo's summary for compaction: how much it covers and what the user asked, shortened. */
export function summarizeConversation(messages: HistoryMessage[]): string {
  const transcript = typeof messages[0]?.content === 'string' ? messages[0].content : '';
  const asked = [...transcript.matchAll(/^user: (.*)$/gm)].map((match) => (match[1] ?? '').slice(0, 40));
  const previous = /^Summary so far \((\d+) messages\)/.exec(transcript)?.[1];
  const lines = transcript.split('\n').filter((line) => /^(user|assistant|tool|system): /.test(line)).length;
  return `The demo model's summary of ${lines} messages${previous ? ` (and ${previous} summarised before)` : ''}. The user asked: ${asked.join('; ') || 'nothing'}.`;
}

/** The demo's title: the first words of what the user asked first. */
export function titleFor(messages: HistoryMessage[]): string {
  const transcript = typeof messages[0]?.content === 'string' ? messages[0].content : '';
  const asked = /^user: (.*)$/m.exec(transcript)?.[1] ?? '';
  const words = asked.replace(/[^\p{L}\p{N}\s+\-*/().]/gu, ' ').split(/\s+/).filter(Boolean).slice(0, 6);
  const title = words.join(' ');
  return title === '' ? 'A new conversation' : title.charAt(0).toUpperCase() + title.slice(1);
}
