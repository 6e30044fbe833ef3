import { describe, expect, it } from 'vitest';
import { withinToolLimit } from '../../src/providers/tool-limit';
import type { ToolSpec } from '../../src/providers/types';

const tool = (name: string, remote = false): ToolSpec => ({ name, description: '', parameters: { type: 'object' }, ...(remote ? { remote: true as const } : {}) });
const names = (tools: ToolSpec[]) => tools.map((spec) => spec.name);

describe('the tools a call offers within a server’s limit', () => {
  const tools = [tool('calculator'), tool('current_time'), tool('kit__a', true), tool('kit__b', true), tool('kit__c', true), tool('get_weather'), tool('send_mail')];

  it('offers every tool within the limit, or where the server named none', () => {
    expect(withinToolLimit(tools, undefined)).toBe(tools);
    expect(withinToolLimit(tools, 7)).toBe(tools);
  });

  it('leaves out remote MCP servers’ tools first, the last of them first, in order otherwise', () => {
    expect(names(withinToolLimit(tools, 5))).toEqual(['calculator', 'current_time', 'kit__a', 'get_weather', 'send_mail']);
  });

  it('then the earliest of the rest (the built-in ones), so that a request’s own client tools, which come last, stay', () => {
    expect(names(withinToolLimit(tools, 3))).toEqual(['current_time', 'get_weather', 'send_mail']);
    expect(names(withinToolLimit(tools, 2))).toEqual(['get_weather', 'send_mail']);
  });
});
