/**
 * The one place the project imports zod from. workerd forbids code generation from strings
 * (`new Function`), which zod 4's JIT would otherwise probe for on every first parse.
 */
import { z } from 'zod';

z.config({ jitless: true });

export { z };
