// A stand-in for the Workers AI binding, at the binding's own interface: `run(model, inputs)`
// resolving, with `stream: true`, to a stream of SSE bytes in the shapes Workers AI models answer
// with (native `response`/`tool_calls` chunks, or OpenAI-style `choices[].delta`), ending in [DONE].
// No recording of a real Workers AI stream exists in the fixtures (see their SOURCES.md); these are
// built from the shapes Cloudflare's own provider code reads. Runs in workerd as a service binding.
import { WorkerEntrypoint } from 'cloudflare:workers';

const calls = [];

function sse(chunks) {
  const text = chunks.map((chunk) => `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`).join('');
  return new Response(text).body;
}

const afterTool = (inputs) => inputs.messages.at(-1)?.role === 'tool';

export class AiStub extends WorkerEntrypoint {
  async run(model, inputs) {
    calls.push({ model, inputs });
    if (model === 'stub/unavailable') throw new Error('3040: Capacity temporarily exceeded');
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

export default { fetch: () => new Response('ai stub') };
