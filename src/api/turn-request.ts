/**
 * The body of `POST /sessions/{id}/turns` (docs/turns-api.md). Strict: unknown fields are a 400.
 * The schemas of its parts are made by their first use (`madeOnce`), as `content.ts`'s are: a plain
 * request is checked by hand (`plain-turn-request.ts`), so a Worker whose first turn is plain makes
 * none of them. The session id's and the modes' are made as the module loads, of the plain values of
 * `turn-fields.ts`, which a plain request is checked against without this module.
 */
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';
import { imageBlockSchema, toolMessageSchema } from './content';
import { FUNCTION_NAME } from './function-names';
import { LIMITS } from './limits';
import { messageIdSchema } from './message-ids';
import { permissionRuleSchema } from '../tools/permission-rules';
import { IF_BUSY_MODES, MODEL_NAME_MAX, SESSION_ID, SESSION_ID_RULE, SSE_MODES, STREAM_MODES } from './turn-fields';

// What a request may bring is bounded; what the history holds is not (a model's answer, a tool's
// result can be longer), so the stored shapes of `content.ts` carry no limits.
const inputText = madeOnce(() => {
  const text = z.string().check(z.maxLength(LIMITS.textChars, { message: `Texts are at most ${LIMITS.textChars} characters.` }));
  return { text, textBlock: z.strictObject({ type: z.literal('text'), text }) };
});
/** What a user message may hold: a text, or text and image blocks. */
export const userInputContentSchema = madeOnce(() => {
  const { text, textBlock } = inputText();
  return z.union([text, z.array(z.union([textBlock, imageBlockSchema()])).check(z.minLength(1))]);
});

export const sessionIdSchema = z.string().check(z.regex(SESSION_ID, { message: SESSION_ID_RULE }));

/** Names the providers accept for functions (OpenAI and Anthropic both take this alphabet). */
export const toolNameSchema = z.string().check(z.regex(FUNCTION_NAME, { message: 'Tool names are 1 to 64 characters of letters, digits, "_" and "-".' }));

export const clientToolSchema = madeOnce(() =>
  z.strictObject({
    name: toolNameSchema,
    description: z.optional(z.string().check(z.maxLength(LIMITS.toolDescriptionChars))),
    parameters: z.optional(
      z.record(z.string(), z.unknown()).check(
        z.refine((schema) => schema.type === undefined || schema.type === 'object', { message: 'Tool parameters must be a JSON Schema of type "object".' }),
        z.refine((schema) => JSON.stringify(schema).length <= LIMITS.toolSchemaBytes, { message: `A tool's parameters schema is at most ${LIMITS.toolSchemaBytes} bytes of JSON.` }),
      ),
    ),
  }),
);

/** A client tool's result as a request brings it: the same shape as the history's tool message. */
export const toolAnswerSchema = toolMessageSchema;

export const toolPermissionSchema = madeOnce(() =>
  z
    .strictObject({
      role: z.literal('tool_permission'),
      toolCallId: z.string().check(z.minLength(1)),
      granted: z.boolean(),
      reason: z.optional(z.string().check(z.maxLength(2000))),
      /** The arguments as the user edited them before granting; the call runs with these. */
      input: z.optional(z.record(z.string(), z.unknown())),
      /** A lasting permission rule the user adds with this answer (the Harness protocol's rules; `rules` for several). */
      rule: z.optional(permissionRuleSchema()),
      rules: z.optional(z.array(permissionRuleSchema()).check(z.maxLength(20))),
    }).check(z.refine((answer) => answer.granted || answer.input === undefined, { message: 'Only a granted call takes edited input.', path: ['input'] })),
);

export const inputMessageSchema = madeOnce(() => {
  const { text, textBlock } = inputText();
  return z.discriminatedUnion('role', [
    z.strictObject({ role: z.literal('user'), content: userInputContentSchema() }),
    z.strictObject({ role: z.literal('system'), content: z.union([text, z.array(textBlock).check(z.minLength(1))]) }),
    toolAnswerSchema(),
    toolPermissionSchema(),
  ]);
});

/** A model a request names: checked against the deployment's `MODELS` (`pickModel`), whose refusal lists them. */
export const modelNameSchema = z.string().check(z.minLength(1), z.maxLength(MODEL_NAME_MAX));

/** How a turn's events come back (`turn-fields.ts` names each mode). */
export const streamModeSchema = z.enum(STREAM_MODES);
/** The modes that stream: a turn's events can be followed in any of them. */
export const sseModeSchema = z.enum(SSE_MODES);

/** What a turn does when another runs on the session (`turn-fields.ts`). */
export const ifBusySchema = z.enum(IF_BUSY_MODES);

export const turnRequestSchema = madeOnce(() =>
  z
    .strictObject({
      messages: z.array(inputMessageSchema()).check(z.maxLength(LIMITS.messagesPerRequest)),
      tools: z.optional(z.array(clientToolSchema()).check(z.maxLength(LIMITS.toolsPerRequest))),
      stream: z._default(streamModeSchema, 'none'),
      model: z.optional(modelNameSchema),
      ifBusy: z._default(ifBusySchema, 'reject'),
      /**
       * Continue from this message of the history rather than from the active leaf, on a new branch
       * that becomes active (docs/branches.md); null: from the start (a new first message).
       */
      parentId: z.optional(z.nullable(messageIdSchema)),
    })
    .check(
      z.refine((request) => request.messages.length > 0 || request.parentId !== undefined, {
        message: 'A turn brings at least one message (only a turn with a parentId may bring none: it answers again from there).',
        path: ['messages'],
      }),
      z.refine((request) => request.ifBusy !== 'steer' || request.parentId === undefined, {
        message: 'A steered message joins the running turn on its branch: it takes no parentId.',
        path: ['parentId'],
      }),
      z.refine((request) => request.ifBusy !== 'steer' || request.messages.every((message) => message.role === 'user'), {
        message: 'A steered request brings user messages only.',
        path: ['messages'],
      }),
    ),
);

export type ClientTool = z.infer<ReturnType<typeof clientToolSchema>>;
export type ToolAnswer = z.infer<ReturnType<typeof toolAnswerSchema>>;
export type ToolPermission = z.infer<ReturnType<typeof toolPermissionSchema>>;
export type InputMessage = z.infer<ReturnType<typeof inputMessageSchema>>;
export type StreamMode = z.infer<typeof streamModeSchema>;
export type SseMode = z.infer<typeof sseModeSchema>;
export type TurnRequest = z.infer<ReturnType<typeof turnRequestSchema>>;
export type IfBusy = z.infer<typeof ifBusySchema>;
