/** What a Chat Completions server's refusal teaches (src/providers/openai/dialect.ts), read from the servers' own words. */
import { describe, expect, it } from 'vitest';
import { dialectOf, learnFrom } from '../../src/providers/openai/dialect';

describe('learnFrom', () => {
  it.each([
    ['Missing `reasoning_content` field in the assistant message at message index 2.', 'reasoningBack'],
    ['The reasoning_content in the thinking mode must be passed back to the API.', 'reasoningBack'],
    ['After the optional system message, conversation roles must alternate user/assistant/user/assistant/...', 'alternating'],
    ["Unexpected role 'user' after role 'tool'", 'alternating'],
    ['A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.', 'alternating'],
    ['deepseek-reasoner does not support successive user or assistant messages (messages[1] and messages[2] in your input). You should interleave the user/assistant messages in the message sequence.', 'alternating'],
    ['Tool call id was call_calc_1 but must be a-z, A-Z, 0-9, with a length of 9.', 'nineCharacterIds'],
    ['Function call is missing a thought_signature in functionCall parts.', 'thoughtSignatures'],
    ['Unrecognized request argument supplied: stream_options.', 'noStreamOptions'],
    ["Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", 'maxCompletionTokens'],
    ["Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.", 'noTemperature'],
    ['"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', 'noTools'],
    ['registry.ollama.ai/library/deepseek-r1:14b does not support tools', 'noTools'],
    ['No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing', 'noTools'],
  ])('reads %j as asking for %s, and remembers it for that server and model', (detail, key) => {
    const server = `https://example.test/v1/chat/completions ${key}`;
    expect(learnFrom(server, {}, JSON.stringify({ error: { message: detail } }))).toEqual({ [key]: true });
    expect(dialectOf(server)).toEqual({ [key]: true });
    // Asked again in the dialect it asked for: nothing new to learn, so the refusal stands.
    expect(learnFrom(server, { [key]: true }, detail)).toBeUndefined();
  });

  it.each([
    ["Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 132 instead.", { maxTools: 128 }],
    ["Invalid 'tools[13].function.description': string too long. Expected a string with maximum length 1024, but got a string with length 1103 instead.", { maxDescription: 1024 }],
    ['max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.', { maxOutputTokens: 16384 }],
    ['Invalid JSON payload received. Unknown name "additionalProperties" at \'tools[0].function_declarations[0].parameters\': Cannot find field.', { unknownSchemaKeys: ['additionalProperties'] }],
    ["Invalid schema for function 'broken': 'object' is not of type 'object', 'boolean'.", { refusedTools: ['broken'] }],
  ])('reads %j as naming %j, and asks for nothing new when sent within it', (detail, learnt) => {
    const server = `https://example.test/v1/chat/completions ${Object.keys(learnt)[0]}`;
    expect(learnFrom(server, {}, JSON.stringify({ error: { message: detail } }), ['calculator', 'broken'])).toEqual(learnt);
    expect(learnFrom(server, learnt, detail, ['calculator'])).toBeUndefined();
  });

  it('learns nothing from a refusal that asks for no dialect, and keeps what it learnt before', () => {
    const server = 'https://example.test/v1/chat/completions other';
    expect(learnFrom(server, {}, '{"error":{"message":"This model\'s maximum context length is 3000 tokens."}}')).toBeUndefined();
    expect(dialectOf(server)).toEqual({});
    learnFrom(server, {}, 'roles must alternate');
    expect(learnFrom(server, { alternating: true }, 'Unrecognized request argument supplied: stream_options')).toEqual({ alternating: true, noStreamOptions: true });
  });

  it('forgets the oldest server past its bound', () => {
    for (let index = 0; index < 300; index++) learnFrom(`https://bound.test/${index}`, {}, 'roles must alternate');
    expect(dialectOf('https://bound.test/0')).toEqual({});
    expect(dialectOf('https://bound.test/299')).toEqual({ alternating: true });
  });
});
