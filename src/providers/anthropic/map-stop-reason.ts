import type { FinishReason } from '../vocabulary';

/** `stop_reason` in our words. `pause_turn` is the API asking to be called again to go on. */
export function mapStopReason(reason: string | null | undefined): FinishReason | 'paused' {
  switch (reason) {
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    case 'pause_turn':
      return 'paused';
    default:
      return 'end_turn'; // end_turn, stop_sequence
  }
}
