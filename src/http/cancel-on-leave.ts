/**
 * A response's stream, relayed so that the Worker hears its client leave: `cancel` runs when the
 * client cancels the body (AG-UI's way to stop a run; MCP's 2026-07-28 revision's way to cancel a
 * call). A cancel of a stream that comes from a session's object does not reach the object itself,
 * so the Worker, which sees its client go, tells it. Doors listen to `request.signal` too
 * (`enable_request_signal`), which workerd aborts on a disconnect even where it does not cancel the
 * body (behind `wrangler dev`'s proxy; workerd#6832).
 */
export function cancelOnLeave(body: ReadableStream<Uint8Array>, cancel: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      cancel();
      await reader.cancel(reason).catch(() => {});
    },
  });
}
