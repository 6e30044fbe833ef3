/** Function names as the providers take them (src/api/function-names.ts). */
import { describe, expect, it } from 'vitest';
import { FUNCTION_NAME, functionName } from '../../src/api/function-names';
import { convertMessages as anthropicMessages } from '../../src/providers/anthropic/convert-messages';
import { convertMessages as openaiMessages } from '../../src/providers/openai/convert-messages';

describe('functionName', () => {
  it('keeps a name the providers take, and mends any other into one', () => {
    expect(functionName('get_weather-2')).toBe('get_weather-2');
    expect(functionName('multi_tool_use.parallel')).toBe('multi_tool_use_parallel');
    expect(functionName('search pages')).toBe('search_pages');
    expect(functionName('x'.repeat(100))).toBe('x'.repeat(64));
    expect(functionName('')).toBe('_');
    for (const name of ['a.b', 'ü', '', 'y'.repeat(65), 'functions.add:0']) expect(functionName(name)).toMatch(FUNCTION_NAME);
  });

  it('is what both adapters send for an earlier call; the result goes with it by id', () => {
    const history = [
      { role: 'user' as const, content: 'go' },
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, toolCallId: 'call_1', name: 'multi_tool_use.parallel', input: {} }] },
      { role: 'tool' as const, toolCallId: 'call_1', content: 'Unknown tool.', isError: true },
    ];
    expect(openaiMessages('', history)[1]).toMatchObject({ tool_calls: [{ id: 'call_1', function: { name: 'multi_tool_use_parallel' } }] });
    expect(anthropicMessages(history)[1]).toMatchObject({ content: [{ type: 'tool_use', id: 'call_1', name: 'multi_tool_use_parallel' }] });
  });
});
