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
  id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  output: z.array(harnessContentBlockSchema),
  metadata: z.optional(z.record(z.string(), z.unknown())),
  state: z.optional(toolStateSchema),
});

export const harnessRequestSchema = z
  .object({
    sessionId: z.pipe(z.string().check(z.minLength(1, { message: 'sessionId must not be empty.' })), sessionIdSchema),
    userId: z.string().check(z.minLength(1, { message: 'userId must not be empty.' }), z.maxLength(256)),
    input: z.optional(z.string().check(z.maxLength(LIMITS.textChars, { message: `input is at most ${LIMITS.textChars} characters.` }))),
    chatModel: z.optional(
      z.object({
        name: z.optional(z.string().check(z.minLength(1))),
        stream: z.optional(z.boolean()),
        temperature: z.optional(z.number().check(z.gte(0), z.lte(2))),
      }),
    ),
    confirmResults: z.optional(z.array(confirmResultSchema).check(z.maxLength(LIMITS.messagesPerRequest))),
    toolResults: z.optional(z.array(toolResultInputSchema).check(z.maxLength(LIMITS.messagesPerRequest))),
    tools: z.optional(z.array(clientToolSchema()).check(z.maxLength(LIMITS.toolsPerRequest))),
    /** While another run is busy on the session: as the turns API's `ifBusy` (a steered `input` shows as HINT_BLOCK). */
    ifBusy: z.optional(ifBusySchema),
  })
  .check(
    z.refine((body) => (body.input ?? '').trim() !== '' || (body.confirmResults?.length ?? 0) > 0 || (body.toolResults?.length ?? 0) > 0, {
      message: 'input must not be empty (unless the request brings confirmResults or toolResults).',
      path: ['input'],
    }),
  );

export type HarnessRequest = z.infer<typeof harnessRequestSchema>;
