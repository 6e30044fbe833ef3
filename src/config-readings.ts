/**
 * How a deployment's variable is read from its text: the kinds of reading `config-vars.ts` declares
 * for its variables. `config.ts` makes each reading's zod check, which stays the definition;
 * `plainValue` reads the common texts of the plain kinds by hand, without zod: a subset of what the
 * check takes, with the same value (`test/unit/config-readings.test.ts` holds it to that).
 */
import type { ToolVisibility } from './protocol/socket-frames';
import type { McpServers } from './tools/mcp/mcp-servers-schema';
import type { Prices } from './users/prices-schema';

/**
 * How a variable's text is read. `pattern`: the text (trimmed first with `trim`) matches; `count`: a
 * whole number in a range; `number`: any number in one; `url`: a URL (`web`: http or https, refused
 * with that message); `choice`: one of the words; `json`: a JSON value of the named schema.
 */
export type Reading =
  | { kind: 'text'; nonEmpty?: true }
  | { kind: 'pattern'; pattern: RegExp; message?: string; trim?: true }
  | { kind: 'count'; min: number; max: number }
  | { kind: 'number'; min: number; max: number }
  | { kind: 'url'; web?: string }
  | { kind: 'choice'; options: readonly string[] }
  | { kind: 'json'; of: keyof JsonValues };

/** The values of the JSON variables, as their schemas in `config.ts` give them. */
export type JsonValues = { mcpServers: McpServers; prices: Prices; toolVisibility: Record<string, Partial<ToolVisibility>> };

export type ValueOf<R extends Reading> = R extends { kind: 'count' | 'number' }
  ? number
  : R extends { kind: 'choice'; options: readonly (infer Option)[] }
    ? Option
    : R extends { kind: 'json'; of: infer Of extends keyof JsonValues }
      ? JsonValues[Of]
      : string;

/**
 * A variable's text read by hand, where its reading is plain and the text a common one; undefined
 * where only the check can say (a JSON value, a number written otherwise, a text the check refuses).
 */
export function plainValue(reading: Reading, text: string): unknown {
  switch (reading.kind) {
    case 'text':
      return reading.nonEmpty && text === '' ? undefined : text;
    case 'pattern': {
      const value = reading.trim ? text.trim() : text;
      return reading.pattern.test(value) ? value : undefined;
    }
    case 'count':
    case 'number': {
      if (!(reading.kind === 'count' ? /^\d{1,15}$/ : /^\d{1,15}(\.\d{1,15})?$/).test(text)) return undefined;
      const value = Number(text);
      return value >= reading.min && value <= reading.max ? value : undefined;
    }
    case 'url': {
      // Only the plainest form: the check alone says what else it takes, and in which words it refuses.
      const value = text.trim();
      return /^https?:\/\/[^\s/?#]+[^\s]*$/.test(value) && URL.canParse(value) ? value : undefined;
    }
    case 'choice':
      return reading.options.includes(text) ? text : undefined;
    case 'json':
      return undefined;
  }
}
