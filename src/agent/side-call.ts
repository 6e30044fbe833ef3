/**
 * A side call: the model asked one question outside the conversation (a summary, a title), with no
 * tools, its text collected. Never throws: a failure is a value, with the usage spent before it.
 */
import type { ModelHandle } from '../providers/types';
import type { ModelPurpose } from '../providers/vocabulary';
import type { TurnError } from './events';
import { emptyUsage, type Usage } from './usage';

export type SideCallResult = { ok: true; text: string; usage: Usage } | { ok: false; error: TurnError; usage: Usage };

export async function sideCall(handle: ModelHandle, purpose: ModelPurpose, system: string, prompt: string, signal: AbortSignal): Promise<SideCallResult> {
  let text = '';
  let usage = emptyUsage();
  try {
    for await (const parts of handle.provider.stream({ model: handle.model, purpose, system, messages: [{ role: 'user', content: prompt }], tools: [], signal })) {
      for (const part of parts) {
        if (part.type === 'text-delta') text += part.delta;
        else if (part.type === 'usage') usage = { ...usage, ...part.usage };
        else if (part.type === 'error') return { ok: false, error: { code: part.code, message: part.message }, usage };
        else if (part.type === 'finish') {
          return text.trim() ? { ok: true, text: text.trim(), usage } : { ok: false, error: { code: 'empty_answer', message: 'The model gave an empty answer.' }, usage };
        }
      }
    }
  } catch (cause) {
    return { ok: false, error: { code: 'internal_error', message: cause instanceof Error ? cause.message : String(cause) }, usage };
  }
  return { ok: false, error: { code: 'upstream_cut', message: 'The answer ended before it finished.' }, usage };
}
