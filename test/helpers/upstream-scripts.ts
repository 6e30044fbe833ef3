/**
 * The stand-in upstream's scripted models (the list opens `upstream-server.ts`): what each streams,
 * as Chat Completions (`openaiScript`) or the Messages API (`anthropicScript`), and what each
 * scripted server refuses first (`scriptedRefusal`).
 */
import type { ServerResponse } from 'node:http';
import { scriptedRefusal, type ChatBody } from './upstream-refusals.ts';

/** The window the stand-in enforces for script/echo, in tokens (about four characters each). */
const ECHO_WINDOW_TOKENS = 3000;
/** script/llamacpp's: a local server started with a small context, which the deployment does not know. */
const LLAMACPP_WINDOW_TOKENS = 2000;

/** Roughly how a server counts a prompt: characters of content and tools, over four. */
export function promptTokens(body: { messages: { content: unknown }[]; tools?: unknown[] }): number {
  const chars = body.messages.reduce((sum, message) => sum + JSON.stringify(message.content ?? '').length + 16, 0);
  return Math.ceil((chars + JSON.stringify(body.tools ?? []).length) / 4);
}

/** A scripted Chat Completions server's answer: its refusal, or its stream. */
export async function openaiScript(name: string, body: ChatBody, afterTool: boolean, response: ServerResponse): Promise<void> {
  const refusal = scriptedRefusal(name, body);
  if (refusal) {
    // OpenRouter says 404 where no provider of a model takes tools.
    response.writeHead(name === 'openrouter-notools' ? 404 : 400, { 'content-type': 'application/json' });
    response.end(JSON.stringify(refusal));
    return;
  }
  if (name === 'nodone') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(chunk({ content: 'ok' }));
    response.write(chunk({}, 'stop'));
    response.end(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 1 } })}\n\n`);
    return;
  }
  if (name === 'strict' || name === 'azure' || name === 'reasoning' || name === 'gateway' || name === 'notools' || name === 'ollama-notools' || name === 'openrouter-notools') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(chunk({ content: `ok, ${body.messages.length} messages` }));
    response.write(chunk({}, 'stop'));
    response.end('data: [DONE]\n\n');
    return;
  }
  const summarising = String(body.messages[0]?.content ?? '').startsWith('You summarise conversations');
  const tokens = promptTokens(body);
  if (name.startsWith('llamacpp') && tokens > LLAMACPP_WINDOW_TOKENS) {
    // llama.cpp's server, in its words: the count, and the window it was started with (`n_ctx`); as
    // an error answer, or (script/llamacpp-stream, as its builds before the 400 did) as the one event
    // of a stream answered 200.
    const message = `request (${tokens} tokens) exceeds the available context size (${LLAMACPP_WINDOW_TOKENS} tokens), try increasing it`;
    const error = JSON.stringify({ error: { code: 400, message, type: 'exceed_context_size_error', n_prompt_tokens: tokens, n_ctx: LLAMACPP_WINDOW_TOKENS } });
    if (name === 'llamacpp-stream') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`data: ${error}\n\n`);
    } else {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(error);
    }
    return;
  }
  const overflow = (name === 'overflow' && !summarising) || (name === 'echo' && tokens > ECHO_WINDOW_TOKENS);
  if (overflow) {
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: "This model's maximum context length is 3000 tokens.", code: 'context_length_exceeded' } }));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  if (name === 'echo' || name === 'overflow' || name.startsWith('llamacpp')) {
    const last = body.messages.at(-1);
    if (summarising) {
      const lines = String(last?.content ?? '').split('\n').length;
      response.write(chunk({ content: `Summary of ${lines} lines: the user sent numbered messages and asked for sums.` }));
      response.write(chunk({}, 'stop'));
    } else if (!afterTool && typeof last?.content === 'string' && last.content.includes('calc')) {
      response.write(chunk({ tool_calls: [{ index: 0, id: `call_echo_${body.messages.length}`, type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+3"}' } }] }));
      response.write(chunk({}, 'tool_calls'));
    } else {
      response.write(chunk({ content: `ok, ${body.messages.length} messages in the prompt` }));
      response.write(chunk({}, 'stop'));
    }
  }
  if (name === 'calc' || name === 'invent' || name === 'mistral' || name === 'gemini') {
    if (afterTool) {
      response.write(chunk({ content: `The result is ${String(body.messages.at(-1)?.content)}.` }));
      response.write(chunk({}, 'stop'));
    } else if (name === 'gemini') {
      // As Gemini streams parallel calls: each whole, with no index, the signature on the first
      // alone, and the finish reason "stop".
      const call = (id: string, expression: string) => ({ id, type: 'function', function: { name: 'calculator', arguments: JSON.stringify({ expression }) } });
      response.write(chunk({ tool_calls: [{ ...call('function-call-15140648152055466079', '6*7'), extra_content: { google: { thought_signature: 'CoMBAY89a1/signed' } } }] }));
      response.write(chunk({ tool_calls: [call('function-call-7310582273390427171', '2+3')] }));
      response.write(chunk({}, 'stop'));
    } else if (name === 'mistral') {
      response.write(chunk({ tool_calls: [{ index: 0, id: 'D681PevKs', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } }] }));
      response.write(chunk({}, 'tool_calls'));
    } else if (name === 'invent') {
      // A name OpenAI's models are known to invent, which the API then refuses in the history.
      response.write(chunk({ tool_calls: [{ index: 0, id: 'call_invent_1', type: 'function', function: { name: 'multi_tool_use.parallel', arguments: '{"tool_uses":[]}' } }] }));
      response.write(chunk({}, 'tool_calls'));
    } else {
      response.write(chunk({ tool_calls: [{ index: 0, id: 'call_calc_1', type: 'function', function: { name: 'calculator', arguments: '' } }] }));
      response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"expression":' } }] }));
      response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '"6*7"}' } }] }));
      response.write(chunk({}, 'tool_calls'));
    }
  } else if (name === 'think') {
    response.write(chunk({ reasoning_content: 'The user wants an answer. Let me weigh every way to give one, at length' }));
    response.write(chunk({}, 'length'));
  } else if (name === 'count') {
    // A tool that takes its time (three steps, 150 ms apart: room for a message steered in
    // meanwhile), once a turn; then an answer, whatever came after the tool's result.
    if (body.messages.at(-1)?.role === 'user' && body.messages.at(-2)?.role !== 'tool') {
      response.write(chunk({ tool_calls: [{ index: 0, id: `call_count_${body.messages.length}`, type: 'function', function: { name: 'count_to', arguments: '{"to":3,"delayMs":150}' } }] }));
      response.write(chunk({}, 'tool_calls'));
    } else {
      response.write(chunk({ content: 'Counted.' }));
      response.write(chunk({}, 'stop'));
    }
  } else if (name === 'slow') {
    for (let index = 0; index < 10; index++) {
      if (response.destroyed) return;
      response.write(chunk({ content: `part ${index}. ` }));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    response.write(chunk({}, 'stop'));
  }
  // script/echo and script/llamacpp report the prompt as the stand-in counts it, so the Worker can
  // calibrate its estimate.
  const promptCount = name === 'echo' || name.startsWith('llamacpp') ? tokens : 12;
  response.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: promptCount, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 4 } } })}\n\n`);
  response.end('data: [DONE]\n\n');
}

export function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
}

/** A scripted Messages API model's stream. */
export function anthropicScript(name: string, body: ChatBody, afterTool: boolean, response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (type: string, data: Record<string, unknown>) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  if (name === 'calc' || name === 'surrogate' || name === 'blank' || name === 'claude-3-haiku') {
    event('message_start', { message: { usage: { input_tokens: 20, cache_read_input_tokens: 8, cache_creation_input_tokens: 4, output_tokens: 1 } } });
    if (afterTool) {
      const result = (body.messages.at(-1)?.content as { type: string; content?: { text: string }[] }[]).find((b) => b.type === 'tool_result');
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `The result is ${result?.content?.[0]?.text}.` } });
      event('content_block_stop', { index: 0 });
      event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } });
    } else {
      // script/blank: a text block of whitespace first, as models write one before a tool call.
      const at = name === 'blank' ? 1 : 0;
      if (name === 'blank') {
        event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: '\n\n' } });
        event('content_block_stop', { index: 0 });
      }
      event('content_block_start', { index: at, content_block: { type: 'tool_use', id: 'toolu_calc_1', name: 'calculator', input: {} } });
      event('content_block_delta', { index: at, delta: { type: 'input_json_delta', partial_json: '{"expression": ' } });
      event('content_block_delta', { index: at, delta: { type: 'input_json_delta', partial_json: name === 'surrogate' ? '"6*7\\ud800"}' : '"6*7"}' } });
      event('content_block_stop', { index: at });
      event('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } });
    }
    event('message_stop', {});
  }
  if (name === 'loop') {
    event('message_start', { message: { usage: { input_tokens: 20, output_tokens: 1 } } });
    if ((body as { tool_choice?: { type?: string } }).tool_choice?.type === 'none') {
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'The calculator kept answering; here is what it said.' } });
      event('content_block_stop', { index: 0 });
      event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } });
    } else {
      event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_loop_${body.messages.length}`, name: 'calculator', input: {} } });
      event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"expression":"1+1"}' } });
      event('content_block_stop', { index: 0 });
      event('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } });
    }
    event('message_stop', {});
  }
  if (name === 'whole') {
    event('message_start', { message: { usage: { input_tokens: 20, output_tokens: 1 } } });
    if (afterTool) {
      const result = (body.messages.at(-1)?.content as { type: string; content?: { text: string }[] }[]).find((b) => b.type === 'tool_result');
      event('content_block_start', { index: 0, content_block: { type: 'text', text: `The result is ${result?.content?.[0]?.text}.` } });
      event('content_block_stop', { index: 0 });
      event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } });
    } else {
      event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_whole_1', name: 'calculator', input: { expression: '6*7' } } });
      event('content_block_stop', { index: 0 });
      event('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } });
    }
    event('message_stop', {});
  }
  if (name === 'pause') {
    const paused = body.messages.at(-1)?.role === 'assistant';
    event('message_start', { message: { usage: { input_tokens: 10, output_tokens: 1 } } });
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: paused ? 'and here is the rest.' : 'Working on it, ' } });
    event('content_block_stop', { index: 0 });
    event('message_delta', { delta: { stop_reason: paused ? 'end_turn' : 'pause_turn' }, usage: { output_tokens: 5 } });
    event('message_stop', {});
  }
  if (name === 'overloaded') {
    event('message_start', { message: { usage: { input_tokens: 10, output_tokens: 1 } } });
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'I was about to' } });
    event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
  }
  response.end();
}
