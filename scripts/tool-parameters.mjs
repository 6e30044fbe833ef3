// Writes src/tools/built-in-parameters.ts: the JSON Schema each built-in tool offers the model, made
// from its `inputSchema` here rather than by every new isolate at its first turn (zod's JSON Schema
// writer, run cold, cost a new isolate's first turn several milliseconds: bench/PROFILE.md, "Cold
// start"). Run it after changing a built-in tool's input schema (`npm run build:tool-parameters`);
// test/unit/built-in-parameters.test.ts fails until it is run.
import { writeFileSync } from 'node:fs';
import { build } from 'esbuild';

// The tools and the writer bundled in memory, and imported from it: nothing written but the output.
const entry = `export { DEFAULT_TOOLS } from './src/tools/default-tools';\nexport { writeParameters } from './src/tools/registry';`;
const bundled = await build({ stdin: { contents: entry, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, format: 'esm', platform: 'neutral', mainFields: ['module', 'main'], write: false, logLevel: 'warning' });
const { DEFAULT_TOOLS, writeParameters } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].contents).toString('base64')}`);
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
