/**
 * The embedded demo model as a provider: it streams thinking, text and tool calls like a real one,
 * with usage (about four characters a token), so that every encoder and the whole loop run offline.
 */
import { arrayJsonOnce } from '../../lib/well-formed-json';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../types';
import { lastUserText, planForUserText, summarizeConversation, summarizeToolResults, titleFor, type DemoPlan } from './demo-rules';

export function createDemoProvider(): ModelProvider {
  // Nothing of the demo's answer waits for anything: it comes as one batch, as one network read would.
  return {
    async *stream(request) {
      yield [...demoParts(request)];
    },
  };
}

function* demoParts(request: ModelRequest): Generator<ModelStreamPart> {
  const offered = new Set(request.toolChoice === 'none' ? [] : request.tools.map((tool) => tool.name));
  const plan = planFor(request, offered);
  // As long as the prompt's JSON, each message's written once (`arrayJsonOnce`): the history goes
  // with every call, and a model's server, not the Worker, counts what it is sent.
  const inputChars = request.system.length + arrayJsonOnce(request.messages).length;
  let outputChars = 0;
  const say = function* (type: 'text-delta' | 'thinking-delta', text: string): Generator<ModelStreamPart> {
    outputChars += text.length;
    for (const piece of text.match(/\S+\s*|\s+/g) ?? []) yield { type, delta: piece };
  };
  const usage = (): ModelStreamPart => ({
    type: 'usage',
    usage: { inputTokens: Math.ceil(inputChars / 4), outputTokens: Math.ceil(outputChars / 4) },
  });

  switch (plan.kind) {
    case 'text':
      yield* say('thinking-delta', plan.thinking);
      yield* say('text-delta', plan.text);
      yield usage();
      yield { type: 'finish', reason: 'end_turn' };
      return;
    case 'tools': {
      const names = plan.calls.map((call) => call.name).join(', ');
      yield* say('thinking-delta', `The message asks for ${names}; I will call ${plan.calls.length === 1 ? 'it' : 'them'}.`);
      yield* say('text-delta', `Let me use ${names}.`);
      const base = absoluteLength(request);
      for (const [index, call] of plan.calls.entries()) {
        const json = call.json ?? JSON.stringify(call.input);
        const half = Math.ceil(json.length / 2);
        yield { type: 'tool-call-delta', index, id: `call_demo_${base}_${index}`, name: call.name, argumentsDelta: json.slice(0, half) };
        yield { type: 'tool-call-delta', index, argumentsDelta: json.slice(half) };
        outputChars += json.length;
      }
      yield usage();
      yield { type: 'finish', reason: 'tool_use' };
      return;
    }
    case 'refuse':
      yield* say('text-delta', "I can't help with that.");
      yield usage();
      yield { type: 'finish', reason: 'refusal' };
      return;
    case 'long':
      yield* say('text-delta', 'This answer runs on and on until the output limit cuts it while it writes a tool call');
      yield { type: 'tool-call-delta', index: 0, id: `call_demo_${absoluteLength(request)}_0`, name: 'calculator', argumentsDelta: '{"expression": "1+' };
      yield usage();
      yield { type: 'finish', reason: 'max_tokens' };
      return;
    case 'fail':
      yield* say('text-delta', 'I start to answer, and then');
      yield { type: 'error', code: 'upstream_error', message: 'The demo model failed on purpose (demo:error).' };
      return;
  }
}

/**
 * The conversation's length as if nothing were summarised: a compacted prompt starts with a summary
 * that names how many messages it stands for. Keeps the demo's call ids unique in a session.
 */
function absoluteLength({ messages, summarizedMessages: summarized }: ModelRequest): number {
  return summarized === undefined ? messages.length : summarized + messages.length - 1;
}

function planFor(request: ModelRequest, offered: Set<string>): DemoPlan {
  if (request.purpose === 'summary') return { kind: 'text', thinking: 'I summarise the conversation.', text: summarizeConversation(request.messages) };
  if (request.purpose === 'title') return { kind: 'text', thinking: 'I name the conversation.', text: titleFor(request.messages) };
  const last = request.messages.at(-1);
  const text = lastUserText(request.messages);
  if (last?.role === 'tool') {
    // demo:loop keeps calling tools for as long as they are offered, to show the iteration bound.
    if (text.toLowerCase().includes('demo:loop') && offered.has('calculator')) return planForUserText(text, offered);
    return { kind: 'text', thinking: 'The tools have answered; I report what they returned.', text: summarizeToolResults(request.messages) };
  }
  return planForUserText(text, offered);
}
