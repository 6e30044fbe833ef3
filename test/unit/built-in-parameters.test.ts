/**
 * The built-in tools' JSON Schemas, written ahead (src/tools/built-in-parameters.ts): what a model is
 * offered is what each tool's input schema says. After a change of one, run
 * `npm run build:tool-parameters`.
 */
import { describe, expect, it } from 'vitest';
import { BUILT_IN_TOOL_NAMES } from '../../src/tools/built-in-names';
import { BUILT_IN_PARAMETERS } from '../../src/tools/built-in-parameters';
import { DEFAULT_TOOLS, defaultTools, subagentTools } from '../../src/tools/default-tools';
import { writeParameters } from '../../src/tools/registry';

describe('the built-in tools’ JSON Schemas, written ahead', () => {
  it('are what each tool’s input schema makes, for every built-in tool and no other (else: npm run build:tool-parameters)', () => {
    expect(Object.keys(BUILT_IN_PARAMETERS).sort()).toEqual(DEFAULT_TOOLS.map((tool) => tool.name).sort());
    for (const tool of DEFAULT_TOOLS) expect(BUILT_IN_PARAMETERS[tool.name], `${tool.name}: npm run build:tool-parameters`).toEqual(writeParameters(tool.inputSchema));
  });

  it('name the default agent’s tools in its order, as the doors’ check of client tool names tells them', () => {
    expect(BUILT_IN_TOOL_NAMES).toEqual(defaultTools.names());
  });

  it('are what the registries offer, the same objects at every call', () => {
    for (const registry of [defaultTools, subagentTools]) {
      for (const spec of registry.specs()) expect(spec.parameters).toBe(BUILT_IN_PARAMETERS[spec.name]);
    }
  });
});
