// What the reading systems share (bench/systems/limit-do-read.js, bench/systems/minimal-turn.js): an
// answer read as ours reads it. The network's own chunks are small, and each that enters JavaScript
// costs more than its bytes (bench/PROFILE.md, "What reading costs").

/** A byte stream's bytes in reads of up to 64 KiB: whatever has arrived, as soon as anything has. */
export async function* largeReads(body) {
  const reader = body.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(64 * 1024);
  for (;;) {
    const { value, done } = await reader.read(new Uint8Array(buffer));
    if (done) return;
    yield value;
    buffer = value.buffer;
  }
}
