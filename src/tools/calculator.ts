import * as z from '../lib/zod';
import { evaluateExpression } from './expression-parser';
import type { ServerTool } from './types';

const inputSchema = z.strictObject({
  expression: z.withMeta(z.string().check(z.minLength(1)), { description: 'Arithmetic with + - * / % ^, parentheses and decimals, e.g. "(2 + 3) * 4.5".' }),
});

export const calculatorTool: ServerTool<z.infer<typeof inputSchema>> = {
  name: 'calculator',
  description: 'Evaluates an arithmetic expression and returns the number.',
  trust: true,
  inputSchema,
  permissionSubject: (input) => String(input.expression ?? ''),
  async execute({ expression }) {
    const value = evaluateExpression(expression);
    // Round away binary noise (0.1 + 0.2) without hiding real precision.
    return String(Number(value.toPrecision(15)));
  },
};
