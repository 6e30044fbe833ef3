// A stand-in for the Workers AI binding, at the binding's own interface: `run(model, inputs)`
// resolving, with `stream: true`, to a stream of SSE bytes in the shapes Workers AI models answer
// with (native `response`/`tool_calls` chunks, or OpenAI-style `choices[].delta`), ending in [DONE].
// No recording of a real Workers AI stream exists in the fixtures (see their SOURCES.md); these are
// built from the shapes Cloudflare's own provider (`workers-ai-provider`) reads and its changelog
// reports from real models:
// - a streamed call closed by a piece that names nothing;
// - `reasoning` beside `reasoning_content`, and a finish reason outside `choices`;
// - a whole answer where a stream was asked for (as GPT-OSS and Kimi answer on the REST route);
// - the binding's refusal of a message whose `content` is null.
// Runs in workerd as a service binding.
import { WorkerEntrypoint } from 'cloudflare:workers';

const calls = [];

function sse(chunks) {
  const text = chunks.map((chunk) => `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`).join('');
  return new Response(text).body;
}

const afterTool = (inputs) => inputs.messages.at(-1)?.role === 'tool';

/** What the binding refuses before it runs a model, in its words: a message without string content. */
function refusal(inputs) {
  const bad = inputs.messages.findIndex((message) => typeof message.content !== 'string' && !Array.isArray(message.content));
  return bad === -1 ? undefined : new Error(`8001: Invalid input: '/messages/${bad}/content' must be a string`);
}

export class AiStub extends WorkerEntrypoint {
  async run(model, inputs) {
    calls.push({ model, inputs });
    if (model === 'stub/unavailable') throw new Error('3040: Capacity temporarily exceeded');
    const refused = refusal(inputs);
    if (refused) throw refused;
    if (model === 'stub/whole') return whole(inputs);
    if (afterTool(inputs)) {
      return sse([{ response: 'The tool said ' }, { response: String(inputs.messages.at(-1).content) }, { response: '', usage: { prompt_tokens: 30, completion_tokens: 6 } }, '[DONE]']);
    }
    switch (model) {
      case 'stub/text':
        return sse([{ response: 'Hello' }, { response: ' from' }, { response: ' Workers AI.' }, { response: '', usage: { prompt_tokens: 12, completion_tokens: 4 } }, '[DONE]']);
      case 'stub/native-tool':
        return sse([{ response: '', tool_calls: [{ name: 'calculator', arguments: { expression: '6*7' } }] }, { response: '', usage: { prompt_tokens: 40, completion_tokens: 9 } }, '[DONE]']);
      case 'stub/openai-tools':
        return sse([
          { choices: [{ delta: { reasoning_content: 'Two sums.' } }] },
          { choices: [{ delta: { tool_calls: [{ index: 0, id: 'chatcmpl-tool-1', function: { name: 'calculator', arguments: '{"expression":' } }] } }] },
          { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '"1+1"}' } }] } }] },
          { choices: [{ delta: { tool_calls: [{ index: 1, id: 'chatcmpl-tool-2', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } }] } }] },
          { choices: [{ delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 50, completion_tokens: 20 } },
          '[DONE]',
        ]);
      case 'stub/client-tool':
        return sse([{ response: '', tool_calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, '[DONE]']);
      case 'stub/pieces':
        // A call streamed in pieces under its index, closed by a piece that names nothing; the finish
        // reason outside `choices`.
        return sse([
          { tool_calls: [{ id: 'call5x5', type: 'function', index: 0, function: { name: 'calculator' } }] },
          { tool_calls: [{ index: 0, function: { arguments: '{"expression":' } }] },
          { tool_calls: [{ index: 0, function: { arguments: '"5*5"}' } }] },
          { tool_calls: [{ id: null, type: null, function: { name: null } }] },
          { finish_reason: 'tool_calls' },
          { response: '', usage: { prompt_tokens: 33, completion_tokens: 11 } },
          '[DONE]',
        ]);
      case 'stub/reasoning':
        return sse([
          { choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { reasoning: 'Think' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { reasoning: 'ing...' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { content: '' }, finish_reason: null }] },
          { response: '', finish_reason: 'length', usage: { prompt_tokens: 9, completion_tokens: 7 } },
          '[DONE]',
        ]);
      case 'stub/cut':
        return sse([{ response: 'Hello' }]);
      default:
        return sse([{ response: `unknown stub model ${model}` }, '[DONE]']);
    }
  }

  async calls() {
    return calls;
  }
}

/** A model that answers whole though asked to stream: a call in Chat Completions' shape, then the native shape's text. */
function whole(inputs) {
  if (afterTool(inputs)) return { response: `The tool said ${inputs.messages.at(-1).content}`, tool_calls: [], usage: { prompt_tokens: 41, completion_tokens: 5 } };
  return {
    id: 'chatcmpl-whole',
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          reasoning_content: 'Two products.',
          tool_calls: [
            { id: 'chatcmpl-tool-a', type: 'function', function: { name: 'calculator', arguments: '{"expression":"3*3"}' } },
            { id: 'chatcmpl-tool-b', type: 'function', function: { name: 'calculator', arguments: '{"expression":"4*4"}' } },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 },
  };
}

export default { fetch: () => new Response('ai stub') };
