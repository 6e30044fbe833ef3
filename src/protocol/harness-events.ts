/**
 * The 31 `AgentEvent` types of the Harness chat endpoint (docs/harness.md, section 5), one strict zod schema
 * each, with the common fields of section 4: `type`, `id` (32 lowercase hex), `createdAt` (ISO-8601
 * UTC with microseconds), and `source` and `metadata` only when they have a value. The encoder's
 * output is typed by them, and the tests parse every event the Worker sends with them.
 */
import * as z from '../lib/zod';
import { permissionRuleSchema } from '../tools/permission-rules';

const common = {
  id: z.string().check(z.regex(/^[0-9a-f]{32}$/)),
  createdAt: z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)),
  source: z.optional(z.string().check(z.minLength(1))),
  metadata: z.optional(z.record(z.string(), z.unknown())),
};

const event = <Type extends string, Shape extends z.core.$ZodShape>(type: Type, shape: Shape) =>
  z.strictObject({ type: z.literal(type), ...common, ...shape });

const replyId = z.string().check(z.minLength(1));
const blockId = z.string().check(z.minLength(1));
const toolCall = { replyId, toolCallId: z.string().check(z.minLength(1)), toolCallName: z.string().check(z.minLength(1)) };

/** The model call's usage: `cachedTokens` is part of `inputTokens`; `time` in seconds. */
export const harnessUsageSchema = z.strictObject({
  inputTokens: z.int().check(z.gte(0)),
  outputTokens: z.int().check(z.gte(0)),
  cachedTokens: z.int().check(z.gte(0)),
  time: z.number().check(z.gte(0)),
  totalTokens: z.int().check(z.gte(0)),
});

/** A data source: inline base64, or a URL. */
const dataSource = z.union([
  z.strictObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
  z.strictObject({ type: z.literal('url'), url: z.string(), mime_type: z.string() }),
]);

/** The content blocks this service sends (section 5.12's polymorphic ContentBlock, by `type`). */
export const harnessContentBlockSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('thinking'), thinking: z.string() }),
  z.strictObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
  z.strictObject({ type: z.literal('data'), source: dataSource, id: z.string(), name: z.string() }),
]);

/** A tool call as the protocol's `ToolUseBlock`. */
export const toolUseBlockSchema = z.strictObject({
  id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  input: z.record(z.string(), z.unknown()),
  content: z.nullable(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  state: z.enum(['pending', 'asking', 'allowed', 'submitted', 'finished']),
});

export const toolStateSchema = z.enum(['success', 'error', 'interrupted', 'denied', 'running']);

/** A tool's result as the protocol's `ToolResultBlock`. */
export const toolResultBlockSchema = z.strictObject({
  id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  output: z.array(harnessContentBlockSchema),
  metadata: z.record(z.string(), z.unknown()),
  state: toolStateSchema,
});

export const confirmResultSchema = z.strictObject({
  confirmed: z.boolean(),
  toolCall: toolUseBlockSchema,
  rules: z.nullable(z.array(permissionRuleSchema())),
});

export const generateReasonSchema = z.enum([
  'MODEL_STOP',
  'TOOL_CALLS',
  'STRUCTURED_OUTPUT',
  'TOOL_SUSPENDED',
  'REASONING_STOP_REQUESTED',
  'ACTING_STOP_REQUESTED',
  'PERMISSION_ASKING',
  'MIDDLEWARE_STOP_REQUESTED',
  'ALL_TOOLS_DENIED',
  'INTERRUPTED',
  'MAX_ITERATIONS',
]);

/** The final message of a run: `timestamp` is `yyyy-MM-dd HH:mm:ss.SSS` (UTC here). */
export const harnessMsgSchema = z.strictObject({
  id: z.uuid(),
  name: z.nullable(z.string()),
  role: z.enum(['USER', 'ASSISTANT', 'SYSTEM', 'TOOL']),
  content: z.array(harnessContentBlockSchema),
  metadata: z.looseObject({ agentscope_generate_reason: generateReasonSchema }),
  timestamp: z.string().check(z.regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/)),
  usage: z.nullable(harnessUsageSchema),
});

export const harnessEventSchemas = {
  AGENT_START: event('AGENT_START', { sessionId: z.string().check(z.minLength(1)), replyId, name: z.string(), role: z.string() }),
  THINKING_BLOCK_START: event('THINKING_BLOCK_START', { replyId, blockId }),
  THINKING_BLOCK_DELTA: event('THINKING_BLOCK_DELTA', { replyId, blockId, delta: z.string() }),
  THINKING_BLOCK_END: event('THINKING_BLOCK_END', { replyId, blockId }),
  MODEL_CALL_START: event('MODEL_CALL_START', { replyId }),
  MODEL_CALL_END: event('MODEL_CALL_END', { replyId, usage: harnessUsageSchema }),
  TOOL_CALL_START: event('TOOL_CALL_START', toolCall),
  TOOL_CALL_DELTA: event('TOOL_CALL_DELTA', { ...toolCall, delta: z.string() }),
  TOOL_CALL_END: event('TOOL_CALL_END', toolCall),
  TOOL_RESULT_START: event('TOOL_RESULT_START', toolCall),
  TOOL_RESULT_TEXT_DELTA: event('TOOL_RESULT_TEXT_DELTA', { ...toolCall, delta: z.string() }),
  TOOL_RESULT_DATA_DELTA: event('TOOL_RESULT_DATA_DELTA', { ...toolCall, data: harnessContentBlockSchema }),
  TOOL_RESULT_END: event('TOOL_RESULT_END', { ...toolCall, state: toolStateSchema }),
  DATA_BLOCK_START: event('DATA_BLOCK_START', { replyId, blockId }),
  DATA_BLOCK_DELTA: event('DATA_BLOCK_DELTA', { replyId, blockId, delta: z.string() }),
  DATA_BLOCK_END: event('DATA_BLOCK_END', { replyId, blockId }),
  TEXT_BLOCK_START: event('TEXT_BLOCK_START', { replyId, blockId }),
  TEXT_BLOCK_DELTA: event('TEXT_BLOCK_DELTA', { replyId, blockId, delta: z.string() }),
  TEXT_BLOCK_END: event('TEXT_BLOCK_END', { replyId, blockId }),
  AGENT_RESULT: event('AGENT_RESULT', { result: harnessMsgSchema }),
  AGENT_END: event('AGENT_END', { replyId }),
  EXCEED_MAX_ITERS: event('EXCEED_MAX_ITERS', { replyId, maxIters: z.int(), currentIter: z.int() }),
  REQUIRE_USER_CONFIRM: event('REQUIRE_USER_CONFIRM', { replyId, toolCalls: z.array(toolUseBlockSchema) }),
  USER_CONFIRM_RESULT: event('USER_CONFIRM_RESULT', { replyId, confirmResults: z.array(confirmResultSchema) }),
  ALL_TOOLS_DENIED: event('ALL_TOOLS_DENIED', { deniedToolCalls: z.array(toolUseBlockSchema) }),
  REQUIRE_EXTERNAL_EXECUTION: event('REQUIRE_EXTERNAL_EXECUTION', { replyId, toolCalls: z.array(toolUseBlockSchema) }),
  EXTERNAL_EXECUTION_RESULT: event('EXTERNAL_EXECUTION_RESULT', { replyId, toolResults: z.array(toolResultBlockSchema) }),
  REQUEST_STOP: event('REQUEST_STOP', { reason: z.string(), generateReason: z.optional(generateReasonSchema) }),
  SUBAGENT_EXPOSED: event('SUBAGENT_EXPOSED', { subagentId: z.string(), agentId: z.string(), sessionId: z.string(), label: z.string() }),
  HINT_BLOCK: event('HINT_BLOCK', { replyId, blockId, hintSource: z.nullable(z.string()), hint: z.string() }),
  CUSTOM: event('CUSTOM', { name: z.string(), value: z.unknown() }),
} as const;

export type HarnessEventType = keyof typeof harnessEventSchemas;
export type HarnessEvent = { [Type in HarnessEventType]: z.infer<(typeof harnessEventSchemas)[Type]> }[HarnessEventType];
export type HarnessUsage = z.infer<typeof harnessUsageSchema>;
export type ToolUseBlock = z.infer<typeof toolUseBlockSchema>;
export type ToolResultBlock = z.infer<typeof toolResultBlockSchema>;
export type ConfirmResult = z.infer<typeof confirmResultSchema>;
export type GenerateReason = z.infer<typeof generateReasonSchema>;
export type HarnessContentBlock = z.infer<typeof harnessContentBlockSchema>;
