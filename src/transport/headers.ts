/** The headers of a streamed answer, the same from the Worker whichever door streams it. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // Proxies that buffer (nginx) would hold the stream back.
  'x-accel-buffering': 'no',
};

/** The Harness door's JSON array, written as the events happen. */
export const JSON_STREAM_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' };
