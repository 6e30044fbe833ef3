/**
 * The one place the project imports zod from: `import * as z from '../lib/zod'`. zod's smaller build,
 * `zod/mini`: its schemas carry no methods (`z.optional(s)`, `s.check(z.maxLength(n))`), so the
 * bundler leaves out what is not used, and a new isolate compiles and makes less; the same core
 * parses, checks and writes JSON Schema as the full build does (bench/PROFILE.md, "zod's smaller
 * build"). Its errors are told in English, as the full build's are by default. workerd forbids code
 * generation from strings (`new Function`), which zod 4's JIT would otherwise probe for on every
 * first parse.
 */
import { clone, config, globalRegistry, type core, type ZodMiniType } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config({ jitless: true, ...en() });

export * from 'zod/mini';

/**
 * A copy of `schema` with its JSON Schema metadata (a `description`, say), as the full build's
 * `.meta()`: registered on the copy, not as a check (which `z.meta()` is), so the schema's checks
 * and parse stay as they were and `z.partial` and `z.pick` still take it.
 */
export function withMeta<T extends ZodMiniType>(schema: T, meta: core.GlobalMeta): T {
  const copy = clone(schema);
  globalRegistry.add(copy, meta);
  return copy;
}
