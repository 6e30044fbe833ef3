import * as z from '../lib/zod';
import type { ServerTool } from './types';

const inputSchema = z.strictObject({ text: z.withMeta(z.string().check(z.minLength(1), z.maxLength(2000)), { description: 'The note to keep.' }) });

/** Untrusted: writing to the session's memory needs the user's permission each time. */
export const memorySaveTool: ServerTool<z.infer<typeof inputSchema>> = {
  name: 'memory_save',
  description: "Saves a note in this session's memory.",
  trust: false,
  inputSchema,
  permissionSubject: (input) => String(input.text ?? ''),
  async execute({ text }, context) {
    const note = context.notes.save(text);
    return `Saved note ${note.id}.`;
  },
};
