/**
 * A response whose body is a session object's stream, as it came over RPC. Its log line waits for
 * the stream's end (`handle-request.ts`), through the runtime's own pipe: one that it can run for
 * such a stream, though not for a stream the Worker writes itself (pi's door).
 */
const sessionStreams = new WeakSet<Response>();

export function sessionStreamResponse(body: ReadableStream<Uint8Array>, init: ResponseInit): Response {
  const response = new Response(body, init);
  sessionStreams.add(response);
  return response;
}

export function isSessionStream(response: Response): boolean {
  return sessionStreams.has(response);
}
