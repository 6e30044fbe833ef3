/**
 * The frames a client sends on `GET /sessions/{id}/ws` (docs/chat-socket.md): JSON text,
 * `{type, ...}`, fields in snake_case as the protocol writes them. Fields the protocol does not name are
 * ignored rather than refused, so that front-ends written for the protocol's reference server (which send
 * more) work unchanged; a missing or malformed field is an `error` frame.
 */
import { describeIssue } from '../lib/explain-issue';
import { nestsDeeperThan, TOO_DEEP_MESSAGE } from '../lib/json-depth';
import { quoted } from '../lib/quoted';
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';
import { toolResultContentSchema } from './content';
import { clientToolSchema, ifBusySchema, modelNameSchema, userInputContentSchema } from './turn-request';
import { LIMITS } from './limits';

const requestId = z.optional(z.string().check(z.minLength(1), z.maxLength(256)));

/** The frame types a client may send. */
const FRAME_TYPES = ['append_message', 'request_completion', 'stop_completion', 'tool_confirmation_response'] as const;

/**
 * The frames' schemas, made by the first frame a session reads (`madeOnce`): every session's isolate
 * loads the socket's door, and most never see a socket (bench/PROFILE.md, "Schemas a first turn does
 * not use").
 */
const clientFrameSchemas = madeOnce(() => {
  const toolCallId = z.string().check(z.minLength(1), z.maxLength(256));
  const appendUserSchema = z.object({
    type: z.literal('append_message'),
    role: z.literal('user'),
    content: userInputContentSchema(),
    request_id: requestId,
  });
  const appendToolSchema = z.object({
    type: z.literal('append_message'),
    role: z.literal('tool'),
    tool_call_id: toolCallId,
    content: toolResultContentSchema(),
    request_id: requestId,
  });
  return {
    append_message: z.discriminatedUnion('role', [appendUserSchema, appendToolSchema], {
      error: 'append_message needs "role": "user" or "tool".',
    }),
    request_completion: z.object({
      type: z.literal('request_completion'),
      request_id: requestId,
      model: z.optional(modelNameSchema),
      /** Whether the model's thinking is sent (`llm_thinking_*`, `thinking`); off unless asked. */
      reasoning: z.optional(z.boolean()),
      /**
       * The client's own tools, as in the turns API. Kept: a completion that names none (and one that
       * resumes by itself) offers the last ones named; `[]` offers none.
       */
      tools: z.optional(z.array(clientToolSchema()).check(z.maxLength(LIMITS.toolsPerRequest))),
      /** While a completion runs: as the turns API's `ifBusy` (`reject`, `enqueue`, `interrupt`, `steer`). */
      if_busy: z.optional(ifBusySchema),
    }),
    stop_completion: z.object({ type: z.literal('stop_completion'), request_id: requestId }),
    tool_confirmation_response: z.object({
      type: z.literal('tool_confirmation_response'),
      tool_call_id: toolCallId,
      action: z.enum(['approve', 'deny']),
      reason: z.optional(z.string().check(z.maxLength(2000))),
      request_id: requestId,
    }),
  } as const satisfies Record<ClientFrameType, z.ZodMiniType>;
});

type ClientFrameSchemas = ReturnType<typeof clientFrameSchemas>;
export type ClientFrameType = (typeof FRAME_TYPES)[number];
export type ClientFrame = { [K in ClientFrameType]: z.infer<ClientFrameSchemas[K]> }[ClientFrameType];
export type AppendMessageFrame = z.infer<ClientFrameSchemas['append_message']>;
export type RequestCompletionFrame = z.infer<ClientFrameSchemas['request_completion']>;
export type ToolConfirmationFrame = z.infer<ClientFrameSchemas['tool_confirmation_response']>;

/** A frame's JSON is at most this long (a user message at its longest fits). */
export const MAX_FRAME_CHARS = LIMITS.bodyBytes;

export type FrameParse = { ok: true; frame: ClientFrame } | { ok: false; code: string; message: string; requestId: string | null };

/** One text frame, parsed and checked. The `request_id` is kept for the error even when the rest is bad. */
export function parseClientFrame(raw: string | ArrayBuffer): FrameParse {
  if (typeof raw !== 'string') return bad('invalid_frame', 'Frames are JSON text, not binary.', null);
  if (raw.length > MAX_FRAME_CHARS) return bad('frame_too_large', `A frame is at most ${MAX_FRAME_CHARS} characters.`, null);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return bad('invalid_json', 'The frame is not valid JSON.', null);
  }
  if (nestsDeeperThan(json)) return bad('invalid_json', `The frame is too deeply nested: ${TOO_DEEP_MESSAGE}`, null);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return bad('invalid_frame', 'A frame is a JSON object with a "type".', null);
  const fields = json as Record<string, unknown>;
  // Echoed only as the protocol bounds it: an error frame never carries a client's megabytes back.
  const id = requestId.safeParse(fields.request_id).data ?? null;
  const type = fields.type;
  if (typeof type !== 'string' || !(FRAME_TYPES as readonly string[]).includes(type)) {
    const known = FRAME_TYPES.join(', ');
    return bad('unknown_type', `Unknown frame type ${toldType(type)}. Known: ${known}.`, id);
  }
  const parsed = clientFrameSchemas()[type as ClientFrameType].safeParse(json);
  if (!parsed.success) {
    const issue = describeIssue(parsed.error.issues[0]);
    const where = issue.path ? ` (at ${issue.path})` : '';
    return bad('invalid_frame', `The ${type} frame is not valid${where}: ${issue.clause}.`, id);
  }
  return { ok: true, frame: parsed.data as ClientFrame };
}

/** A frame's unknown `type` as an error tells it: a string by its first 64 characters, anything else by its kind. */
function toldType(type: unknown): string {
  if (typeof type === 'string') return quoted(type);
  if (type === undefined || type === null) return 'null';
  return `(${Array.isArray(type) ? 'an array' : typeof type === 'object' ? 'an object' : `a ${typeof type}`})`;
}

function bad(code: string, message: string, requestId: string | null): FrameParse {
  return { ok: false, code, message, requestId };
}
