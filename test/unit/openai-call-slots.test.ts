/**
 * Which call each streamed tool call delta belongs to (`callSlots`), in the shapes real servers
 * send: OpenAI's (indexes, ids on first pieces, pieces interleaved), Ollama's and gateways' (every
 * call at index 0), Gemini's (whole calls without an index, a signature alone after its call).
 */
import { describe, expect, it } from 'vitest';
import { callSlots } from '../../src/providers/openai/call-slots';

type Delta = [index: number | undefined, id: string | undefined];
const slots = (deltas: Delta[]) => {
  const slotOf = callSlots();
  return deltas.map(([index, id]) => slotOf(index, id));
};

describe('callSlots', () => {
  it('follows OpenAI’s indexes, pieces of two calls interleaved', () => {
    expect(slots([[0, 'call_A'], [1, 'call_B'], [0, undefined], [1, undefined], [0, undefined]])).toEqual([0, 1, 0, 1, 0]);
  });

  it('tells apart calls that all come at index 0 by their ids (Ollama, gateways)', () => {
    expect(slots([[0, 'call_A'], [0, undefined], [0, 'call_B'], [0, undefined], [0, 'call_C']])).toEqual([0, 0, 1, 1, 2]);
  });

  it('tells apart whole calls without an index by their ids, and gives a signature sent alone to the call before it (Gemini)', () => {
    expect(slots([[undefined, 'function-call-1'], [undefined, 'function-call-2'], [undefined, undefined]])).toEqual([0, 1, 1]);
  });

  it('keeps a call whose id comes again on every piece, or only after its first piece', () => {
    expect(slots([[0, 'call_A'], [0, 'call_A'], [1, undefined], [1, 'call_B'], [1, undefined]])).toEqual([0, 0, 1, 1, 1]);
  });
});
