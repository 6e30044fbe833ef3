/**
 * `count_to`: a long-running tool in miniature. It counts to `to`, one step every `delayMs`, and
 * reports its progress after each step (the Harness door's `CUSTOM task_progress`, pi's
 * `tool_execution_update`). Trusted: it reads and writes nothing.
 */
import * as z from '../lib/zod';
import { sleep } from '../lib/sleep';
import type { ServerTool } from './types';

const inputSchema = z.strictObject({
  to: z.number().int().min(1).max(20).describe('How far to count.'),
  delayMs: z.number().int().min(0).max(2000).default(100).describe('The pause between two steps, in milliseconds.'),
});

export const countToTool: ServerTool<z.infer<typeof inputSchema>> = {
  name: 'count_to',
  description: 'Counts to a number slowly, reporting its progress as it goes.',
  trust: true,
  inputSchema,
  permissionSubject: (input) => String(input.to ?? ''),
  async execute({ to, delayMs }, context) {
    for (let step = 1; step <= to; step++) {
      await sleep(delayMs, context.signal);
      context.progress?.({ progress: Math.round((step / to) * 100), detail: `Counted ${step} of ${to}.` });
    }
    return `Counted to ${to}.`;
  },
};
