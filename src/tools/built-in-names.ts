/**
 * The default agent's tool names, in its order, for the doors' check of a request's client tools
 * (`api/tool-names.ts`). Read from the JSON Schemas written ahead, so that a Worker isolate that
 * takes turns never makes the tools themselves, their input schemas among them (bench/PROFILE.md,
 * "The configuration's checks made for what is set"). test/unit/built-in-parameters.test.ts holds it
 * to the registry.
 */
import { BUILT_IN_PARAMETERS } from './built-in-parameters';

export const BUILT_IN_TOOL_NAMES: readonly string[] = Object.keys(BUILT_IN_PARAMETERS);
