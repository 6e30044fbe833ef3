import { EventSourceParserStream } from 'eventsource-parser/stream';
import { describe, expect, it } from 'vitest';
import { createSseStream, SSE_FRAMING } from '../../src/transport/sse-stream';

async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe('the SSE transport', () => {
  it('frames each event with its name, its id and JSON data', async () => {
    const sse = createSseStream();
    sse.send({ event: 'turn_start', data: {} }, '1');
    sse.send({ event: 'text_delta', data: { delta: 'line\nbreak' } }, '2');
    sse.close();
    const text = await readText(sse.readable);
    expect(text).toBe('event: turn_start\nid: 1\ndata: {}\n\nevent: text_delta\nid: 2\ndata: {"delta":"line\\nbreak"}\n\n');
    const parsed: unknown[] = [];
    for await (const event of new Response(text).body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()) as any) parsed.push(event);
    expect(parsed).toHaveLength(2);
  });

  it('writes each event as soon as it is sent, before the stream ends', async () => {
    const sse = createSseStream();
    const reader = sse.readable.getReader();
    sse.send({ event: 'turn_start', data: {} }, '1');
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('event: turn_start');
    sse.close();
  });

  it('writes the first event of a task at once, and the rest of the task as one chunk', async () => {
    const sse = createSseStream();
    const reader = sse.readable.getReader();
    for (let index = 1; index <= 4; index++) sse.send({ event: 'text_delta', data: { delta: `${index}` } }, `${index}`);
    const first = new TextDecoder().decode((await reader.read()).value);
    const rest = new TextDecoder().decode((await reader.read()).value);
    expect(first.match(/event: text_delta/g)).toHaveLength(1);
    expect(rest.match(/event: text_delta/g)).toHaveLength(3);
    sse.close();
  });

  it('sends a comment line as heartbeat while nothing else is sent', async () => {
    const sse = createSseStream({ heartbeatMs: 20 });
    const reader = sse.readable.getReader();
    sse.send({ event: 'turn_start', data: {} }, '1');
    await reader.read();
    const beat = await reader.read();
    expect(new TextDecoder().decode(beat.value)).toBe(': keep-alive\n\n');
    sse.close();
  });

  it('keeps accepting events after the client went away', async () => {
    const sse = createSseStream({ heartbeatMs: 20 });
    await sse.readable.cancel();
    expect(() => {
      sse.send({ event: 'text_delta', data: { delta: 'x' } }, '1');
      sse.close();
    }).not.toThrow();
  });

  it('refuses line breaks in event names and ids', () => {
    expect(() => SSE_FRAMING.item({ event: 'a\nb', data: {} }, '1')).toThrow();
    expect(() => SSE_FRAMING.item({ event: 'a', data: {} }, '1\r')).toThrow();
  });

  describe('a reader that falls behind', () => {
    const lag = { maxChars: 1000, notice: (lastId: string) => ({ event: 'resume_required', data: { lastEventId: lastId } }) };
    const delta = { event: 'text_delta', data: { delta: 'x'.repeat(100) } };

    it('is cut with a notice of the last id it was sent, once more than maxChars wait unread', async () => {
      const sse = createSseStream({ lag });
      for (let index = 1; index <= 50; index++) sse.send(delta, String(index));
      sse.close();
      const events: { event?: string; id?: string; data: string }[] = [];
      for await (const event of sse.readable.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()) as any) events.push(event);
      const notice = events.at(-1)!;
      expect(notice.event).toBe('resume_required');
      const sent = events.slice(0, -1);
      expect(sent.length).toBeGreaterThan(1);
      expect(sent.length).toBeLessThan(10);
      expect(sent.map((event) => event.id)).toEqual(sent.map((_, index) => String(index + 1)));
      expect(JSON.parse(notice.data)).toEqual({ lastEventId: String(sent.length) });
      expect(notice.id).toBe(String(sent.length));
    });

    it('lets one item through, however large, when everything before it was read', async () => {
      const sse = createSseStream({ lag });
      sse.send({ event: 'tool_result', data: { content: 'y'.repeat(5000) } }, '1');
      sse.close();
      expect(await readText(sse.readable)).not.toContain('resume_required');
    });

    it('never cuts a reader that keeps up', async () => {
      const sse = createSseStream({ lag });
      const text = readText(sse.readable);
      for (let index = 1; index <= 50; index++) {
        sse.send(delta, String(index));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      sse.close();
      const read = await text;
      expect(read).not.toContain('resume_required');
      expect(read.match(/event: text_delta/g)).toHaveLength(50);
    });
  });
});
