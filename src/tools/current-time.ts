import * as z from '../lib/zod';
import { ToolError, type ServerTool } from './types';

const inputSchema = z.strictObject({
  timezone: z.withMeta(z.optional(z.string().check(z.minLength(1), z.maxLength(64))), { description: 'An IANA time zone such as "Asia/Tokyo"; UTC when left out.' }),
});

export const currentTimeTool: ServerTool<z.infer<typeof inputSchema>> = {
  name: 'current_time',
  description: 'Returns the current date and time in ISO-8601, in UTC or in the given IANA time zone.',
  trust: true,
  inputSchema,
  permissionSubject: (input) => String(input.timezone ?? ''),
  async execute({ timezone }, context) {
    const now = context.now();
    if (!timezone || timezone === 'UTC') return now.toISOString();
    return formatInZone(now, timezone);
  },
};

/** ISO-8601 with the zone's offset at that instant, e.g. `2026-11-29T19:00:00.000+09:00`. */
function formatInZone(date: Date, timeZone: string): string {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(date);
  } catch {
    throw new ToolError(`Unknown time zone "${timeZone}". Use an IANA name such as "Europe/Paris".`);
  }
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  const localAsUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const offsetMinutes = Math.round((localAsUtc - Math.floor(date.getTime() / 1000) * 1000) / 60000);
  const local = new Date(localAsUtc + date.getMilliseconds()).toISOString().slice(0, 23);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
