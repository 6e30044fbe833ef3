/**
 * What the turns API answers, as zod schemas: the SSE events of `delta` and `message`, the JSON
 * body of `none`, the session's view, a page of its history, a cancel, and an error. The OpenAPI
 * document is generated from them, the typed client's types are checked against them, and the tests
 * parse real answers with them (strictly), so that they say what the Worker sends.
 */
import * as z from '../lib/zod';
import { assistantMessageSchema, systemMessageSchema, toolMessageSchema, toolResultContentSchema, userMessageSchema } from './content';
import { nextCursor } from './paging';
import { sharedSessionFields } from './session-entry';
import { STARTED_STATUSES, turnStatusSchema } from './turn-status';
import { usageSchema } from './usage';

export const errorBodySchema = z.strictObject({
  error: z.strictObject({
    code: z.withMeta(z.string(), { description: 'Stable, machine-readable: see the error table in docs/turns-api-reference.md.' }),
    message: z.withMeta(z.string(), { description: 'A sentence for a person.' }),
    details: z.optional(z.record(z.string(), z.unknown())),
  }),
});

export const turnUsageSchema = z.withMeta(
  z.extend(usageSchema(), { calls: z.array(z.extend(usageSchema(), { model: z.string(), purpose: z.optional(z.literal('compaction')) })) }),
  { description: "The turn's usage, and each model call's own." },
);

const compactionReportSchema = z.strictObject({
  messagesSummarized: z.int(),
  totalSummarized: z.int(),
  tokensBefore: z.int(),
  tokensAfter: z.int(),
  reason: z.enum(['threshold', 'overflow']),
});

/** Where a stored message stands in the history's tree (docs/branches.md). */
const placeFields = {
  id: z.withMeta(z.string(), { description: 'The message id: stable; what parentId, ?leaf= and upTo take.' }),
  parentId: z.withMeta(z.optional(z.string()), { description: 'The message it follows; absent on a first message.' }),
  siblingIds: z.withMeta(z.optional(z.array(z.string())), {
    description: 'Every message with the same parent, oldest first, itself included; only where there are several ("2 / 3").',
  }),
};
const storedAssistantSchema = z.extend(assistantMessageSchema(), placeFields);
const storedToolSchema = z.extend(toolMessageSchema(), placeFields);
/** A message as the history holds it, with its place in the tree. */
export const storedMessageSchema = z.discriminatedUnion('role', [
  z.extend(userMessageSchema(), placeFields),
  z.extend(systemMessageSchema(), placeFields),
  storedAssistantSchema,
  storedToolSchema,
]);

const turnErrorSchema = z.strictObject({ code: z.string(), message: z.string() });
export const stopReasonSchema = z.enum(['end_turn', 'tool_use', 'max_tokens', 'refusal', 'error']);

/** The SSE events of `stream: "delta"` and `"message"`, by their `event:` name. */
export const turnEventSchemas = {
  turn_start: z.strictObject({ turnId: z.string(), model: z.string() }),
  text_delta: z.withMeta(z.strictObject({ delta: z.string() }), { description: 'delta mode only' }),
  thinking_delta: z.withMeta(z.strictObject({ delta: z.string() }), { description: 'delta mode only' }),
  text: z.withMeta(z.strictObject({ text: z.string(), incomplete: z.optional(z.literal(true)) }), { description: 'message mode only: a text block, whole' }),
  thinking: z.withMeta(z.strictObject({ thinking: z.string(), signature: z.optional(z.string()), incomplete: z.optional(z.literal(true)) }), {
    description: 'message mode only: a thinking block, whole',
  }),
  tool_call: z.strictObject({ toolCallId: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
  tool_result: z.strictObject({ toolCallId: z.string(), content: toolResultContentSchema(), isError: z.optional(z.literal(true)) }),
  turn_stop: z.strictObject({
    stopReason: stopReasonSchema,
    turnId: z.string(),
    usage: turnUsageSchema,
    error: z.optional(turnErrorSchema),
    maxIterationsReached: z.optional(z.literal(true)),
    compacted: z.optional(z.array(compactionReportSchema)),
  }),
} as const;

export type TurnEventName = keyof typeof turnEventSchemas;

export const turnBodySchema = z.withMeta(
  z.strictObject({
    stopReason: stopReasonSchema,
    messages: z.array(z.union([storedAssistantSchema, storedToolSchema])),
    turnId: z.string(),
    usage: turnUsageSchema,
    error: z.optional(turnErrorSchema),
    maxIterationsReached: z.optional(z.literal(true)),
    compacted: z.optional(z.array(compactionReportSchema)),
  }),
  { description: '`stream: "none"`: what the turn added to the history, and how it stopped.' },
);

const pendingCallSchema = z.strictObject({
  toolCallId: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
  awaiting: z.enum(['client', 'permission']),
});

export const sessionViewSchema = z.strictObject({
  ...sharedSessionFields(),
  pendingToolCalls: z.array(pendingCallSchema),
  usage: usageSchema(),
  lastTurn: z.optional(z.strictObject({ turnId: z.string(), status: turnStatusSchema, stopReason: z.optional(z.string()), errorCode: z.optional(z.string()) })),
  runningTurnId: z.optional(z.string()),
  queuedTurns: z.array(z.strictObject({ turnId: z.string(), position: z.int().check(z.positive()) })),
  forkedFrom: z.withMeta(z.optional(z.strictObject({ sessionId: z.string(), messageId: z.string() })), {
    description: 'The session and message a fork copied its history from.',
  }),
});

export const messagesPageSchema = z.strictObject({
  messages: z.array(
    z.union([storedMessageSchema, z.strictObject({ role: z.literal('compaction'), summary: z.string(), summarizedMessages: z.int() })]),
  ),
  next: nextCursor(),
});

export const cancelledTurnSchema = z.strictObject({ turnId: z.string(), status: turnStatusSchema, stopReason: z.optional(z.string()) });
export type CancelledTurn = z.infer<typeof cancelledTurnSchema>;

/** `202` to `POST .../turns` with `ifBusy` `enqueue` (`queued`, with its place) or `steer` (`steered`, the running turn's id). */
export const acceptedTurnSchema = z.union([
  z.strictObject({ turnId: z.string(), status: z.literal('queued'), position: z.int().check(z.nonnegative()) }),
  z.strictObject({ turnId: z.string(), status: z.literal('steered') }),
  /** `Prefer: respond-async`: the turn runs (or, a retry of its key, ran) without its client. */
  z.strictObject({ turnId: z.string(), status: z.enum(STARTED_STATUSES) }),
]);

/** One branch of a session (`GET .../branches`, and the answer of its activate). */
export const branchViewSchema = z.strictObject({
  leafId: z.withMeta(z.string(), { description: 'The last message of the branch.' }),
  active: z.boolean(),
  messageCount: z.withMeta(z.int(), { description: 'The messages from the first to the leaf.' }),
  updatedAt: z.string(),
  forkPointId: z.withMeta(z.optional(z.string()), { description: 'The last message it shares with the branch it left; absent on a first branch.' }),
});

export const branchListSchema = z.strictObject({ branches: z.array(branchViewSchema) });

/** `201` to `POST /sessions/{id}/fork`. */
export const forkedSessionSchema = z.strictObject({ sessionId: z.string() });

export type TurnBody = z.infer<typeof turnBodySchema>;
export type AcceptedTurn = z.infer<typeof acceptedTurnSchema>;
export type SessionViewBody = z.infer<typeof sessionViewSchema>;
export type MessagesPage = z.infer<typeof messagesPageSchema>;
export type StoredMessage = z.infer<typeof storedMessageSchema>;
export type BranchViewBody = z.infer<typeof branchViewSchema>;
export type TurnEvent = { [Name in TurnEventName]: { event: Name; data: z.infer<(typeof turnEventSchemas)[Name]> } }[TurnEventName];
