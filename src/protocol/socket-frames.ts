/**
 * The frames the server sends on the chat socket (docs/chat-socket.md), with exactly the protocol's fields. Frames
 * that answer a client frame (`message_appended`, `tool_confirmation_processed`, `error`) or belong to
 * the session rather than a turn (`conversation_title_update`, `user_disconnect`) are built here; the
 * turn's frames come from the encoder. The audio frames of the protocol are not produced: there is no speech.
 */

/** Per tool, what a front-end shows (the chat protocol (docs/chat-socket.md) "可见性字段"); all shown unless configured. */
export type ToolVisibility = { show_name: boolean; show_arguments: boolean; show_result: boolean };

export const ALL_VISIBLE: ToolVisibility = { show_name: true, show_arguments: true, show_result: true };

/** `none`: runs at once; `pending`: waits for the user's approval; `awaiting_input`: the client runs it. */
export type ConfirmationState = 'none' | 'pending' | 'awaiting_input';

export type CompletionFinish = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error';

export type SocketToolCall = {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  confirmation_state: ConfirmationState;
} & ToolVisibility;

export type ServerFrame =
  | { type: 'completion_init'; conversation_id: string; user_character_config_id: string | null }
  | { type: 'llm_text_chunk'; chunk: string }
  | { type: 'llm_text_sentence'; sentence: string; index: number }
  | { type: 'llm_thinking_chunk'; chunk: string }
  | { type: 'llm_thinking_sentence'; sentence: string; index: number }
  | { type: 'text_echo'; text: string }
  | ({
      type: 'tool_call_chunk';
      index: number;
      id: string | null;
      function: { name: string | null; arguments: string };
      confirmation_state: ConfirmationState;
    } & ToolVisibility)
  | { type: 'tool_call'; id: string; result: string; show_result: boolean }
  | { type: 'tool_confirmation_processed'; tool_call_id: string; action: 'approve' | 'deny' }
  | { type: 'system_notification'; message: string }
  | {
      type: 'assistant_message_complete';
      content: string;
      tool_calls: SocketToolCall[];
      thinking: string | null;
      finish_reason: CompletionFinish;
      source_message_id: string | null;
    }
  | { type: 'completion_done'; finish_reason: CompletionFinish }
  | { type: 'stop_completion'; partial_text: string }
  | { type: 'message_appended' }
  | { type: 'conversation_title_update'; conversation_id: string; title: string }
  | { type: 'error'; message: string; code: string; request_id: string | null }
  | { type: 'user_disconnect' };

export function errorFrame(code: string, message: string, requestId: string | null): ServerFrame {
  return { type: 'error', message, code, request_id: requestId };
}

/** A note to the user that is not part of an answer: a retry, a compaction, a queued or steered message. */
export function notificationFrame(message: string): ServerFrame {
  return { type: 'system_notification', message };
}
