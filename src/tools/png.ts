/**
 * A small PNG encoder (8-bit RGB, no interlace) on web standards: the pixel rows are compressed with
 * `CompressionStream('deflate')` (zlib, as PNG's IDAT wants), the chunks checksummed with CRC-32.
 * Enough for the charts `render_chart` draws; platform-free, so it runs in workerd and Node alike.
 */

/** `pixels`: width × height × 3 bytes, rows top to bottom. Returns the PNG's bytes. */
export async function encodePng(width: number, height: number, pixels: Uint8Array): Promise<Uint8Array> {
  // Each row is prefixed with its filter type (0: none).
  const raw = new Uint8Array(height * (width * 3 + 1));
  for (let y = 0; y < height; y++) raw.set(pixels.subarray(y * width * 3, (y + 1) * width * 3), y * (width * 3 + 1) + 1);
  const compressed = new Uint8Array(await new Response(new Blob([raw]).stream().pipeThrough(new CompressionStream('deflate'))).arrayBuffer());
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type RGB, deflate, adaptive filtering, no interlace
  return concat([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', compressed), chunk('IEND', new Uint8Array())]);
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/**
 * CRC-32's table, made by the first chart: every new isolate loads this module (the tools' registry
 * does), and the table's 2,048 steps, run cold in the interpreter, cost it about half a millisecond.
 */
let crcTable: Uint32Array | undefined;

function makeCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
}

function crc32(bytes: Uint8Array): number {
  const table = (crcTable ??= makeCrcTable());
  let crc = 0xffffffff;
  for (const byte of bytes) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

