/**
 * A refused union told by what is wrong with the input (src/lib/explain-issue.ts), on the turns API's
 * own schema: the branch the input was meant for, else the kinds or types the union takes; zod alone
 * said "Invalid input" at the content for each of these.
 */
import { describe, expect, it } from 'vitest';
import { pageLimit } from '../../src/api/paging';
import { turnRequestSchema } from '../../src/api/turn-request';
import { invalidRequest } from '../../src/lib/errors';

function refusal(content: unknown): string {
  const parsed = turnRequestSchema().safeParse({ messages: [{ role: 'user', content }] });
  if (parsed.success) throw new Error('the schema took it');
  return invalidRequest('The request body', parsed.error.issues).message;
}

describe('a refused union, explained', () => {
  it.each([
    ['a text block without its text (a field left out: required, not "received undefined")', [{ type: 'text' }], 'messages.0.content.0.text: Required: expected string.'],
    ['a block of a kind it does not take', [{ type: 'video', url: 'https://example.com/a.mp4' }], 'messages.0.content.0.type: Invalid input: expected one of "text", "image".'],
    ['a block with no kind', [{ text: 'hi' }], 'messages.0.content.0.type: Invalid input: expected one of "text", "image".'],
    ['content of another type', 5, 'messages.0.content: Invalid input: expected string or array.'],
    ['an image with neither its data nor its URL: the nearer form', [{ type: 'image' }], 'messages.0.content.0.url: Required: expected string.'],
    ['a text block with a field it does not take', [{ type: 'text', text: 'hi', lang: 'en' }], 'messages.0.content.0: Unrecognized key: "lang".'],
  ])('%s', (_label, content, message) => {
    expect(refusal(content)).toBe(`The request body is not valid: ${message}`);
  });

  it('names unknown keys by their first 64 characters, and at most eight of them', () => {
    const parsed = turnRequestSchema().safeParse({ messages: [{ role: 'user', content: 'hi' }], ...Object.fromEntries(Array.from({ length: 10 }, (_, n) => [`${n}`.repeat(100), 1])) });
    if (parsed.success) throw new Error('the schema took it');
    const named = Array.from({ length: 8 }, (_, n) => `"${`${n}`.repeat(64)}"…`).join(', ');
    expect(invalidRequest('The request body', parsed.error.issues).message).toBe(`The request body is not valid: Unrecognized keys: ${named} and 2 more.`);
  });

  it('tells a text coerced to a number that is none as such, not as the NaN zod made of it', () => {
    const parsed = pageLimit(100, 50).safeParse('abc');
    if (parsed.success) throw new Error('the schema took it');
    expect(invalidRequest('The query', parsed.error.issues).message).toBe('The query is not valid: Invalid input: expected a number.');
  });

  it('leaves an issue that is no union as it was', () => {
    expect(refusal([{ type: 'image', url: 'ftp://example.com/a.png' }])).toBe('The request body is not valid: messages.0.content.0.url: Invalid URL.');
  });
});
