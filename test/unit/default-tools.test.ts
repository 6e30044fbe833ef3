import { describe, expect, it } from 'vitest';
import { DEFAULT_SYSTEM_PROMPT } from '../../src/config';
import { defaultTools, subagentTools } from '../../src/tools/default-tools';

/** The characters of `text` above U+00FF: one of them makes V8 hold the whole string in two bytes a character. */
const wide = (text: string) => [...text].filter((char) => char.codePointAt(0)! > 0xff);

describe('what the service itself sends the model on every turn', () => {
  // The prompt of a turn is one JSON string with the whole history in it. A single character above
  // U+00FF anywhere in it (a typographic apostrophe in a tool's description was one) makes V8 build
  // and encode all of it two bytes a character: in Node, 0.4 ms against 2.0 ms for a prompt of 2,000
  // messages (bench/PROFILE.md, "The prompt's characters"). So our own strings stay Latin-1.
  it('is Latin-1: the tools offered and the default system prompt', () => {
    for (const registry of [defaultTools, subagentTools]) {
      for (const spec of registry.specs()) expect(wide(JSON.stringify(spec)), spec.name).toEqual([]);
    }
    expect(wide(DEFAULT_SYSTEM_PROMPT)).toEqual([]);
  });
});
