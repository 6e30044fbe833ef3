/**
 * The compile-time check of docs/pi-and-agui.md: what the pi encoder and the model proxy emit is
 * assignable to the published `@mariozechner/pi-agent-core` types (`npm test` typechecks this file
 * before it runs). The runtime part feeds a real turn's kind of events through the encoder and keeps
 * them under pi's type.
 */
import type { AgentEvent as PiAgentCoreEvent, ProxyAssistantMessageEvent } from '@mariozechner/pi-agent-core';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events';
import { emptyUsage } from '../../src/agent/usage';
import { createPiEncoder } from '../../src/protocol/pi-encoder';
import type { PiAgentEvent, PiProxyEvent } from '../../src/protocol/pi-events';

/** Compiles only when `T` is assignable to `U`. */
type Assignable<T extends U, U> = T;
export type EncoderEventsArePiEvents = Assignable<PiAgentEvent, PiAgentCoreEvent>;
export type ProxyEventsArePiProxyEvents = Assignable<PiProxyEvent, ProxyAssistantMessageEvent>;

describe('pi types', () => {
  it('types the encoder’s output as pi-agent-core’s AgentEvent', () => {
    const encoder = createPiEncoder();
    const usage = emptyUsage();
    const events: AgentEvent[] = [
      { type: 'turn-start', turnId: 't', model: 'demo:demo', at: 1 },
      { type: 'input-message', message: { role: 'user', content: 'hi' } },
      { type: 'step-start', step: 1 },
      { type: 'model-call-start', callId: 'c', step: 1, model: 'demo:demo', toolsOffered: true, estimatedInputTokens: 1, at: 2 },
      { type: 'text-start', callId: 'c', blockId: 'b', contentIndex: 0 },
      { type: 'text-delta', blockId: 'b', delta: 'hello' },
      { type: 'text-end', blockId: 'b', text: 'hello' },
      { type: 'model-call-end', callId: 'c', usage, durationMs: 1, finishReason: 'end_turn' },
      { type: 'assistant-message', message: { role: 'assistant', content: [{ type: 'text', text: 'hello' }] }, finishReason: 'end_turn', usage },
      { type: 'step-end', step: 1 },
      { type: 'turn-stop', turnId: 't', stopReason: 'end_turn', at: 0, usage, modelCalls: [], calibration: 1 },
    ];
    // The assignment is the check: the encoder's items are pi's events as the compiler sees them.
    const out: PiAgentCoreEvent[] = events.flatMap((event) => encoder.encode(event));
    expect(out.map((event) => event.type)).toEqual([
      'agent_start',
      'turn_start',
      'message_start',
      'message_end',
      'message_start',
      'message_update',
      'message_update',
      'message_update',
      'message_end',
      'turn_end',
      'agent_end',
    ]);
  });
});
