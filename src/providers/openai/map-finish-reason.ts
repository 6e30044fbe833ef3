import type { FinishReason } from '../vocabulary';

/** Chat Completions `finish_reason` in our words; an unknown reason is taken as a normal end. */
export function mapFinishReason(reason: string): FinishReason {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}
