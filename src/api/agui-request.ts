/**
 * The body of `POST /ag-ui`: AG-UI's `RunAgentInput`, as `@ag-ui/client`'s `HttpAgent` sends it
 * (docs/pi-and-agui.md). Only what this door reads is checked closely; the protocol's other fields
 * (state, context, metadata, fields of later versions) are allowed and ignored. `HttpAgent` sends the
 * whole conversation on every run, so the messages are bounded by count, not by the per-turn limits
 * (those apply to the messages the run brings that the session has not seen).
 */
import * as z from '../lib/zod';
import { ifBusySchema, sessionIdSchema } from './turn-request';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.object({ type: z.literal('data'), value: z.string().check(z.minLength(1)), mimeType: z.string() }),
    z.object({ type: z.literal('url'), value: z.string().check(z.minLength(1)), mimeType: z.optional(z.string()) }),
  ]),
});
/** Parts this service can give a model: text and images. Audio, video and documents are refused. */
const contentPart = z.discriminatedUnion('type', [textPart, imagePart], {
  error: 'Message parts are text or images here (audio, video and documents are not taken).',
});
const content = z.union([z.string(), z.array(contentPart)]);

const aguiMessageSchema = z.discriminatedUnion('role', [
  z.object({ id: z.string().check(z.minLength(1)), role: z.literal('user'), content }),
  z.object({ id: z.string().check(z.minLength(1)), role: z.literal('system'), content: z.string() }),
  z.object({ id: z.string().check(z.minLength(1)), role: z.literal('developer'), content: z.string() }),
  z.object({ id: z.string().check(z.minLength(1)), role: z.literal('tool'), toolCallId: z.string().check(z.minLength(1)), content, error: z.optional(z.string()) }),
  // What the agent said: the session has its own record of it, so these are read for nothing.
  z.object({ id: z.string().check(z.minLength(1)), role: z.literal('assistant') }),
  z.object({ id: z.string().check(z.minLength(1)), role: z.literal('reasoning') }),
  z.object({ id: z.string().check(z.minLength(1)), role: z.literal('activity') }),
]);

export const aguiResumeSchema = z.object({
  interruptId: z.string().check(z.minLength(1)),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.optional(z.unknown()),
});

/** What a resolved interrupt of a tool's permission carries. */
export const permissionPayloadSchema = z.object(
  { approved: z.boolean(), reason: z.optional(z.string().check(z.maxLength(2000))) },
  { error: 'A resolved interrupt carries a payload {approved: boolean, reason?: string}.' },
);

export const runAgentInputSchema = z.object({
  threadId: sessionIdSchema,
  runId: z.string().check(z.minLength(1), z.maxLength(256)),
  messages: z.array(aguiMessageSchema).check(z.maxLength(10_000)),
  tools: z.optional(z.array(z.object({ name: z.string(), description: z.optional(z.string()), parameters: z.optional(z.unknown()) }))),
  resume: z.optional(z.array(aguiResumeSchema)),
  /**
   * `forwardedProps.model`: a model of `MODELS` for this run (`provider:model`); `ifBusy`: what the
   * run does while another turn runs on the thread (as the turns API's).
   */
  forwardedProps: z.optional(z.looseObject({ model: z.optional(z.string()), ifBusy: z.optional(ifBusySchema) })),
});

export type RunAgentInput = z.infer<typeof runAgentInputSchema>;
export type AguiMessage = z.infer<typeof aguiMessageSchema>;
export type AguiContent = z.infer<typeof content>;
