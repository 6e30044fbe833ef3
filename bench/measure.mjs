// What the end-to-end benchmarks share: one timed streamed request, a random order, and the figures.

/** A copy in random order (Fisher–Yates). */
export function shuffled(items) {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  return copy;
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
export const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
export const round = (value, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

/**
 * Sends one request and reads its stream to the end: the time to the first text event, the time of
 * the last, and how many text events came (counted by `marker`, which each text event holds once).
 */
export async function measure(url, body, marker) {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  const decoder = new TextDecoder();
  let first;
  let last = started;
  let count = 0;
  let carry = '';
  for await (const bytes of response.body) {
    const text = carry + decoder.decode(bytes, { stream: true });
    let at = text.indexOf(marker);
    let seen = 0;
    while (at !== -1) {
      seen++;
      at = text.indexOf(marker, at + marker.length);
    }
    // Keep the tail, so that a marker split across two reads is counted once.
    carry = text.slice(Math.max(0, text.length - marker.length + 1));
    if (seen > 0) {
      count += seen;
      last = performance.now();
      first ??= last;
    }
  }
  return { ttft: (first ?? performance.now()) - started, totalMs: last - started, count };
}
