import * as z from '../lib/zod';
import type { ServerTool } from './types';

const inputSchema = z.strictObject({});

export const memoryListTool: ServerTool<z.infer<typeof inputSchema>> = {
  name: 'memory_list',
  description: "Lists the notes saved in this session's memory.",
  trust: true,
  inputSchema,
  permissionSubject: () => '',
  async execute(_input, context) {
    const notes = context.notes.list();
    if (notes.length === 0) return 'No notes saved yet.';
    return notes.map((note) => `${note.id}. ${note.text}`).join('\n');
  },
};
