/**
 * The one place the project imports zod from: `import * as z from '../lib/zod'`. workerd forbids
 * code generation from strings (`new Function`), which zod 4's JIT would otherwise probe for on every
 * first parse. A namespace import of what is used (never zod's `z` object, which holds every
 * locale and the JSON Schema reader) lets the bundler leave the rest out and a new isolate skip
 * evaluating it (bench/PROFILE.md).
 */
import { config } from 'zod';

config({ jitless: true });

export * from 'zod';
