// Writes src/tools/built-in-parameters.ts: the JSON Schema each built-in tool offers the model, made
// from its `inputSchema` here rather than by every new isolate at its first turn (zod's JSON Schema
// writer, run cold, cost a new isolate's first turn several milliseconds: bench/PROFILE.md, "Cold
// start"). Run it after changing a built-in tool's input schema (`npm run build:tool-parameters`);
// test/unit/built-in-parameters.test.ts fails until it is run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const scratch = mkdtempSync(join(tmpdir(), 'tool-parameters-'));
try {
  const bundle = join(scratch, 'tools.mjs');
  const entry = `export { DEFAULT_TOOLS } from './src/tools/default-tools';\nexport { writeParameters } from './src/tools/registry';`;
  await build({ stdin: { contents: entry, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, format: 'esm', platform: 'neutral', mainFields: ['module', 'main'], outfile: bundle, logLevel: 'warning' });
  const { DEFAULT_TOOLS, writeParameters } = await import(pathToFileURL(bundle).href);
  const parameters = Object.fromEntries(DEFAULT_TOOLS.map((tool) => [tool.name, writeParameters(tool.inputSchema)]));
  writeFileSync(
    'src/tools/built-in-parameters.ts',
    `/**
 * The JSON Schema each built-in tool offers the model, written from its \`inputSchema\` by
 * \`npm run build:tool-parameters\` (scripts/tool-parameters.mjs): a new isolate does not make them at
 * its first turn. Do not edit: test/unit/built-in-parameters.test.ts holds it to the schemas.
 */
export const BUILT_IN_PARAMETERS: Record<string, Record<string, unknown>> = ${JSON.stringify(parameters, null, 2)};
`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
