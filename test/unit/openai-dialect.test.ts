/** What a Chat Completions server's refusal teaches (src/providers/openai/dialect.ts), read from the servers' own words. */
import { describe, expect, it } from 'vitest';
import { dialectOf, learnFrom } from '../../src/providers/openai/dialect';

describe('learnFrom', () => {
  it.each([
    ['Missing `reasoning_content` field in the assistant message at message index 2.', 'reasoningBack'],
    ['The reasoning_content in the thinking mode must be passed back to the API.', 'reasoningBack'],
    ['After the optional system message, conversation roles must alternate user/assistant/user/assistant/...', 'alternating'],
    ['Tool call id was call_calc_1 but must be a-z, A-Z, 0-9, with a length of 9.', 'nineCharacterIds'],
    ['Function call is missing a thought_signature in functionCall parts.', 'thoughtSignatures'],
    ['Unrecognized request argument supplied: stream_options.', 'noStreamOptions'],
    ["Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", 'maxCompletionTokens'],
    ["Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.", 'noTemperature'],
  ])('reads %j as asking for %s, and remembers it for that server and model', (detail, key) => {
    const server = `https://example.test/v1/chat/completions ${key}`;
    expect(learnFrom(server, {}, JSON.stringify({ error: { message: detail } }))).toEqual({ [key]: true });
    expect(dialectOf(server)).toEqual({ [key]: true });
    // Asked again in the dialect it asked for: nothing new to learn, so the refusal stands.
    expect(learnFrom(server, { [key]: true }, detail)).toBeUndefined();
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
