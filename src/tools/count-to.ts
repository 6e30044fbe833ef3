/**
 * `count_to`: a long-running tool in miniature. It counts to `to`, one step every `delayMs`, and
 * reports its progress after each step (the Harness door's `CUSTOM task_progress`, pi's
 * `tool_execution_update`). Trusted: it reads and writes nothing.
 */
import * as z from '../lib/zod';
import { sleep } from '../lib/sleep';
import type { ServerTool } from './types';

const inputSchema = z.strictObject({
  to: z.withMeta(z.int().check(z.gte(1), z.lte(20)), { description: 'How far to count.' }),
  delayMs: z.withMeta(z._default(z.int().check(z.gte(0), z.lte(2000)), 100), { description: 'The pause between two steps, in milliseconds.' }),
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
