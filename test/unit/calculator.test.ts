import { describe, expect, it } from 'vitest';
import { calculatorTool } from '../../src/tools/calculator';
import { evaluateExpression } from '../../src/tools/expression-parser';
import { ToolError } from '../../src/tools/types';

describe('the calculator expression parser', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 / 4', 2.5],
    ['10 % 4', 2],
    ['2 ^ 10', 1024],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['--3', 3],
    ['.5 + 1.25', 1.75],
    ['2e3 / 4', 500],
    ['  ( ( 7 ) )  ', 7],
    ['8 - 3 - 2', 3],
    ['64 / 4 / 2', 8],
  ])('%s = %d', (expression, value) => {
    expect(evaluateExpression(expression)).toBe(value);
  });

  it.each([
    ['', 'ends where a number was expected'],
    ['1 +', 'ends where a number was expected'],
    ['(1 + 2', 'closing parenthesis'],
    ['1 + 2)', 'Unexpected ")"'],
    ['2 * x', 'Expected a number at position 5'],
    ['1 / 0', 'Division by zero'],
    ['5 % 0', 'Division by zero'],
    ['10 ^ 400', 'not a finite number'],
    ['alert(1)', 'Expected a number'],
    ['('.repeat(200) + '1' + ')'.repeat(200), 'nested too deeply'],
    ['1+'.repeat(600) + '1', 'longer than 1000'],
  ])('rejects %j with a clear message', (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrowError(ToolError);
    expect(() => evaluateExpression(expression)).toThrowError(message);
  });

  it('rounds binary noise away in the tool result', async () => {
    const context = { signal: new AbortController().signal, now: () => new Date(), notes: { save: () => ({ id: 1, text: '', savedAt: '' }), list: () => [] } };
    expect(await calculatorTool.execute({ expression: '0.1 + 0.2' }, context)).toBe('0.3');
  });
});
