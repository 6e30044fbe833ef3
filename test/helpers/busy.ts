/** A session with a turn that surely runs: a slow stand-in model (ten chunks 150 ms apart), read up to its first text. */
import { expect } from 'vitest';
import { postTurn, readSse, user, type WireEvent } from './api';
import { readUntil } from './read-until';

export const SLOW = 'openai:script/slow';

/** Starts a slow turn and reads until its first text, so that it surely runs; the rest of its stream to come. */
export async function running(id: string, text = 'first'): Promise<{ turnId: string; rest: Promise<WireEvent[]> }> {
  const response = await postTurn(id, { messages: [user(text)], stream: 'delta', model: SLOW });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let seen = (await readUntil(reader, (parts) => /event: text_delta/.test(parts.join('')), 'its first text_delta')).join('');
  const turnId = /"turnId":"([^"]+)"/.exec(seen)![1]!;
  const rest = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += value;
    }
    return readSse(new Response(seen));
  })();
  return { turnId, rest };
}

