/**
 * The internal events of a run, as `eventsFollower` streams them between this service's own parts
 * (a sub-agent to the session that spawned it, a session to the Worker's MCP door): one JSON line each.
 */
import type { AgentEvent } from '../agent/events';
import * as z from '../lib/zod';

/** A line is one internal event: the union is ours, written by `eventsFollower`; the check guards the frame. */
const eventLineSchema = z.looseObject({ type: z.string() });

export async function* eventLines(body: ReadableStream<Uint8Array>): AsyncGenerator<AgentEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') yield eventLineSchema.parse(JSON.parse(line)) as AgentEvent;
  }
}
