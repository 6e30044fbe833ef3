/**
 * A Harness request as a turn request (docs/harness.md): the user's confirmations become
 * `tool_permission` answers (a confirmed call runs with the input the client sends back, edited or
 * not), the client's results become `tool` messages, and `input` the user message that follows them.
 * The turn request is checked like any (sizes, names, schemas). The rules a confirmation brings go
 * with its answer, and the session keeps them for later calls through either door.
 */
import { invalidRequest } from '../lib/errors';
import type { HarnessContentBlock } from '../protocol/harness-events';
import type { ImageBlock, TextBlock } from './content';
import type { HarnessRequest } from './harness-request';
import { turnRequestSchema, type InputMessage, type TurnRequest } from './turn-request';

export function turnRequestOf(body: HarnessRequest): TurnRequest {
  const messages: InputMessage[] = [];
  for (const { confirmed, toolCall, rules } of body.confirmResults ?? []) {
    // An empty list is kept as sent, so that the echo (USER_CONFIRM_RESULT) says what the client said.
    const kept = rules ? { rules } : {};
    messages.push(
      confirmed
        ? { role: 'tool_permission', toolCallId: toolCall.id, granted: true, input: toolCall.input, ...kept }
        : { role: 'tool_permission', toolCallId: toolCall.id, granted: false, ...kept },
    );
  }
  for (const result of body.toolResults ?? []) {
    messages.push({
      role: 'tool',
      toolCallId: result.id,
      content: result.output.map(blockOf),
      ...(result.state !== undefined && result.state !== 'success' ? { isError: true } : {}),
    });
  }
  const input = body.input?.trim() ?? '';
  if (input !== '') messages.push({ role: 'user', content: body.input! });

  const parsed = turnRequestSchema().safeParse({ messages, stream: 'delta', ...(body.tools ? { tools: body.tools } : {}), ...(body.ifBusy ? { ifBusy: body.ifBusy } : {}) });
  if (!parsed.success) throw invalidRequest('The request', parsed.error.issues);
  return parsed.data;
}

/** A result block as ours: text as text, an inline image as an image, anything else named in text. */
function blockOf(block: HarnessContentBlock): TextBlock | ImageBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'data':
      if (block.source.type === 'base64' && block.source.media_type.startsWith('image/')) {
        return { type: 'image', mimeType: block.source.media_type, data: block.source.data };
      }
      return { type: 'text', text: `[${block.name}]` };
    case 'thinking':
      return { type: 'text', text: block.thinking };
    case 'tool_use':
      return { type: 'text', text: JSON.stringify(block.input) };
  }
}
