/** The server tools' registry (src/tools/registry.ts): each tool's spec made once, whichever registry holds it. */
import { describe, expect, it } from 'vitest';
import * as z from '../../src/lib/zod';
import { createToolRegistry } from '../../src/tools/registry';
import type { ServerTool } from '../../src/tools/types';

const echo: ServerTool<{ text: string }> = {
  name: 'echo',
  description: 'Says it back.',
  trust: true,
  inputSchema: z.strictObject({ text: z.string() }),
  execute: async ({ text }) => text,
};

describe('a tool registry', () => {
  it('offers a tool’s input schema as JSON Schema, without its dialect', () => {
    expect(createToolRegistry([echo]).specs()).toEqual([
      { name: 'echo', description: 'Says it back.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false } },
    ]);
  });

  it('makes each tool’s spec once: a registry of each turn (the built-in tools and an MCP server’s) offers the same objects', () => {
    const first = createToolRegistry([echo]).specs()[0];
    const next = createToolRegistry([echo, { ...echo, name: 'echo_2' }]).specs();
    expect(next[0]).toBe(first);
    expect(next[1]).not.toBe(first);
    expect(next[1]!.name).toBe('echo_2');
  });
});
