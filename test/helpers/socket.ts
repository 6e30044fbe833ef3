/** A real WebSocket to the Worker's chat socket (in workerd), with its frames queued for the tests. */
import { onTestFinished } from 'vitest';
import { fetchWorker } from './api';

export type Frame = { type: string; [field: string]: any };

export type TestSocket = {
  ws: WebSocket;
  response: Response;
  /** Every frame received so far. */
  frames: Frame[];
  send(frame: unknown): void;
  sendRaw(data: string | ArrayBuffer): void;
  /** The frames from the last read up to and including the first of `type` (waits for it). */
  until(type: string, timeoutMs?: number): Promise<Frame[]>;
  /** Resolves with the close code and reason when the server closes the socket. */
  closed: Promise<{ code: number; reason: string }>;
};

type Fetcher = (path: string, init: RequestInit) => Promise<Response>;

/** Opens the session's socket; closed by itself when the test ends. */
export async function openSocket(sessionId: string, headers: Record<string, string> = {}, fetcher: Fetcher = fetchWorker): Promise<TestSocket> {
  const response = await fetcher(`/sessions/${sessionId}/ws`, { headers: { upgrade: 'websocket', ...headers } });
  const ws = response.webSocket;
  if (!ws) throw new Error(`no socket: ${response.status} ${await response.text()}`);
  const frames: Frame[] = [];
  let cursor = 0;
  let wake: () => void = () => {};
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.addEventListener('close', (event) => {
      resolve({ code: event.code, reason: event.reason });
      wake();
    });
  });
  ws.addEventListener('message', (event) => {
    frames.push(JSON.parse(event.data as string));
    wake();
  });
  ws.accept();
  onTestFinished(() => {
    try {
      ws.close(1000, 'test over');
    } catch {
      // closed already
    }
  });
  return {
    ws,
    response,
    frames,
    send: (frame) => ws.send(JSON.stringify(frame)),
    sendRaw: (data) => ws.send(data),
    async until(type, timeoutMs = 8000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const at = frames.findIndex((frame, index) => index >= cursor && frame.type === type);
        if (at >= 0) {
          const got = frames.slice(cursor, at + 1);
          cursor = at + 1;
          return got;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no ${type} frame; got ${JSON.stringify(frames.slice(cursor)).slice(0, 2000)}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, Math.min(left, 200));
        });
      }
    },
    closed,
  };
}

/** Sends a user message and asks for the completion; returns the completion's frames to `completion_done`. */
export async function complete(socket: TestSocket, text: string, request: Record<string, unknown> = {}): Promise<Frame[]> {
  socket.send({ type: 'append_message', role: 'user', content: text });
  await socket.until('message_appended');
  socket.send({ type: 'request_completion', ...request });
  return socket.until('completion_done');
}

export const types = (frames: Frame[]) => frames.map((frame) => frame.type);
