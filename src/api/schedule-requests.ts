/**
 * A session's schedules (docs/background.md): `POST /sessions/{id}/schedules` brings the messages of
 * the turn to run and when, once (`at`) or on a five-field cron in a time zone. Parsed by `croner`,
 * never by hand; the next run is its answer.
 */
import { Cron } from 'croner';
import { madeOnce } from '../lib/made-once';
import { cut } from '../lib/quoted';
import * as z from '../lib/zod';
import { systemMessageSchema, userMessageSchema } from './content';
import { LIMITS } from './limits';
import { turnStatusSchema } from './turn-status';
import { clientToolSchema, modelNameSchema } from './turn-request';

/** Schedules one session may have. */
export const MAX_SCHEDULES = 16;

/** The request's schema, made by its first use (`madeOnce`): every isolate loads this module, few read a schedule. */
export const scheduleRequestSchema = madeOnce(() => {
  const timeZoneSchema = z.string().check(z.maxLength(64), z.refine(isTimeZone, { message: 'not an IANA time zone (e.g. "Europe/Paris", "UTC")' }));
  return z
    .strictObject({
      messages: z.array(z.discriminatedUnion('role', [userMessageSchema(), systemMessageSchema()])).check(z.minLength(1), z.maxLength(LIMITS.messagesPerRequest)),
      at: z.optional(z.iso.datetime({ offset: true, error: 'Expected an ISO 8601 time with its offset ("2030-01-01T09:00:00Z" or "…+02:00")' })),
      cron: z.optional(z.string().check(z.trim(), z.maxLength(120))),
      timezone: z.optional(timeZoneSchema),
      tools: z.optional(z.array(clientToolSchema()).check(z.maxLength(LIMITS.toolsPerRequest))),
      model: z.optional(modelNameSchema),
    })
    .check(
      z.refine((request) => (request.at === undefined) !== (request.cron === undefined), { message: 'Give exactly one of "at" (once) and "cron" (again and again).', path: ['at'] }),
      z.refine((request) => request.timezone === undefined || request.cron !== undefined, { message: 'A time zone goes with a cron ("at" names its own offset).', path: ['timezone'] }),
      z.superRefine((request, context) => {
        // (A time zone that is not one is told already; croner's error would repeat it, whole.)
        if (request.cron === undefined || (request.timezone !== undefined && !isTimeZone(request.timezone))) return;
        const problem = cronProblem(request.cron, request.timezone);
        if (problem) context.addIssue({ code: 'custom', message: problem, path: ['cron'] });
      }),
    );
});

export type ScheduleRequest = z.infer<ReturnType<typeof scheduleRequestSchema>>;

/** What is wrong with a cron, if anything: five fields, a minute at the finest, and a next run. */
function cronProblem(expression: string, timezone: string | undefined): string | undefined {
  const fields = expression.split(/\s+/).length;
  if (fields !== 5) return `a cron has five fields (minute hour day-of-month month day-of-week); this one has ${fields}: a schedule runs at most once a minute`;
  try {
    if (cronOf(expression, timezone).nextRun() === null) return 'this cron never runs';
  } catch (error) {
    return `not a cron: ${cut(error instanceof Error ? error.message : String(error), 200)}`;
  }
  return undefined;
}

/** The library's reading of a five-field cron in a time zone (UTC by default). */
export function cronOf(expression: string, timezone = 'UTC'): Cron {
  return new Cron(expression, { mode: '5-part', timezone, paused: true });
}

/** The next time a schedule runs after `after` (ms), or null when it never runs again. */
export function nextRunAt(spec: { at?: string; cron?: string; timezone?: string }, after: number): number | null {
  if (spec.at !== undefined) {
    const at = Date.parse(spec.at);
    return at > after ? at : null;
  }
  return cronOf(spec.cron!, spec.timezone).nextRun(new Date(after))?.getTime() ?? null;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A schedule as it is read back (the OpenAPI document's; made when asked, as the request's is). */
export function scheduleViewSchema() {
  const { messages, tools } = scheduleRequestSchema().shape;
  return z.strictObject({
    scheduleId: z.string(),
    messages,
    at: z.optional(z.string()),
    cron: z.optional(z.string()),
    timezone: z.optional(z.string()),
    tools,
    model: z.string(),
    createdAt: z.string(),
    nextRunAt: z.withMeta(z.nullable(z.string()), { description: 'null once a one-shot schedule has run.' }),
    lastRun: z.optional(z.strictObject({ turnId: z.string(), status: z.union([turnStatusSchema, z.literal('pruned')]), stopReason: z.optional(z.string()) })),
  });
}
export type ScheduleView = z.infer<ReturnType<typeof scheduleViewSchema>>;
