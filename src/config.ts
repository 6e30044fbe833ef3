/**
 * The deployment's configuration, each variable checked with zod: the check of each reading
 * (`config-readings.ts`) of the variables `config-vars.ts` declares. A bad value is the operator's
 * mistake, reported as `500 configuration_error` with the variable named. The objects and the Worker's
 * other routes read it here; a Worker's turn reads it with `loadConfig` (`load-config.ts`), which
 * loads these checks only for a variable whose text the plain reading leaves to them.
 */
import type { Env } from './env';
import { ApiError } from './lib/errors';
import { describeIssue } from './lib/explain-issue';
import * as z from './lib/zod';
import { mcpServersSchema } from './tools/mcp/mcp-servers-schema';
import { pricesSchema } from './users/prices-schema';
import type { JsonValues, Reading } from './config-readings';
import { configOf, type Config } from './config-vars';

export { DEFAULT_SYSTEM_PROMPT, pickModel, type Config } from './config-vars';

/** A JSON var, parsed; text that is not JSON is left for the schema to refuse. */
function parseJson(value: unknown): unknown {
  try {
    return JSON.parse(String(value));
  } catch {
    return value;
  }
}

const JSON_SCHEMAS: { [Of in keyof JsonValues]: () => z.ZodMiniType<JsonValues[Of], unknown> } = {
  mcpServers: mcpServersSchema,
  prices: pricesSchema,
  toolVisibility: () =>
    z.record(
      z.string(),
      z.strictObject({ show_name: z.optional(z.boolean()), show_arguments: z.optional(z.boolean()), show_result: z.optional(z.boolean()) }),
      { error: 'write a JSON object: {"tool": {"show_name": bool, "show_arguments": bool, "show_result": bool}}' },
    ),
};

/** A reading's zod check: what a variable of it takes, and what it is read as. */
export function checkOf(reading: Reading): z.ZodMiniType {
  switch (reading.kind) {
    case 'text':
      return reading.nonEmpty ? z.string().check(z.minLength(1)) : z.string();
    case 'pattern': {
      const message = reading.message === undefined ? {} : { message: reading.message };
      return (reading.trim ? z.string().check(z.trim()) : z.string()).check(z.regex(reading.pattern, message));
    }
    case 'count':
      return z.coerce.number().check(z.int(), z.gte(reading.min), z.lte(reading.max));
    case 'number':
      return z.coerce.number().check(z.gte(reading.min), z.lte(reading.max));
    case 'url':
      return reading.web === undefined ? z.url() : z.url({ protocol: /^https?$/, message: reading.web });
    case 'choice':
      return z.enum(reading.options as [string, ...string[]]);
    case 'json':
      return z.pipe(z.transform(parseJson), JSON_SCHEMAS[reading.of]());
  }
}

/** A variable's value as its check reads it; the first one refused throws `500 configuration_error`, named. */
function check(name: string, reading: Reading, text: string): unknown {
  const parsed = checkOf(reading).safeParse(text);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const issue = describeIssue(first && { ...first, path: [name, ...first.path] });
    throw new ApiError(500, 'configuration_error', `The deployment's ${issue.path} is not valid: ${issue.clause}.`);
  }
  return parsed.data;
}

/** The configuration of `env`, read once and kept (every variable it sets checked). */
export function readConfig(env: Env): Config {
  return configOf(env, check) as Config;
}
