/**
 * The body of `POST /harness/chat` (docs/harness.md): `sessionId`, `userId`,
 * `input`, `chatModel`, and for resuming, `confirmResults` and `toolResults`; `tools` as in the turns
 * API. `input` may be empty only when the request brings answers. Unknown fields are ignored, as the
 * protocol's reference server ignores them: a front-end written for it must not be refused for a field it adds.
 */
import * as z from '../lib/zod';
import { confirmResultSchema, harnessContentBlockSchema, toolStateSchema } from '../protocol/harness-events';
import { LIMITS } from './limits';
import { clientToolSchema, ifBusySchema, sessionIdSchema } from './turn-request';

/** A result the client ran, as the protocol's `ToolResultBlock` (`metadata` and `state` optional here). */
const toolResultInputSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  output: z.array(harnessContentBlockSchema),
  metadata: z.record(z.string(), z.unknown()).optional(),
  state: toolStateSchema.optional(),
});

export const harnessRequestSchema = z
  .object({
    sessionId: z.string().min(1, { message: 'sessionId must not be empty.' }).pipe(sessionIdSchema),
    userId: z.string().min(1, { message: 'userId must not be empty.' }).max(256),
    input: z.string().max(LIMITS.textChars, { message: `input is at most ${LIMITS.textChars} characters.` }).optional(),
    chatModel: z
      .object({
        name: z.string().min(1).optional(),
        stream: z.boolean().optional(),
        temperature: z.number().min(0).max(2).optional(),
      })
      .optional(),
    confirmResults: z.array(confirmResultSchema).max(LIMITS.messagesPerRequest).optional(),
    toolResults: z.array(toolResultInputSchema).max(LIMITS.messagesPerRequest).optional(),
    tools: z.array(clientToolSchema()).max(LIMITS.toolsPerRequest).optional(),
    /** While another run is busy on the session: as the turns API's `ifBusy` (a steered `input` shows as HINT_BLOCK). */
    ifBusy: ifBusySchema.optional(),
  })
  .refine((body) => (body.input ?? '').trim() !== '' || (body.confirmResults?.length ?? 0) > 0 || (body.toolResults?.length ?? 0) > 0, {
    message: 'input must not be empty (unless the request brings confirmResults or toolResults).',
    path: ['input'],
  });

export type HarnessRequest = z.infer<typeof harnessRequestSchema>;
