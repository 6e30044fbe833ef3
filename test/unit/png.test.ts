/**
 * The PNG encoder of `render_chart` (src/tools/png.ts): the signature, the header, and each chunk's
 * CRC-32 as PNG defines it (checked against the bitwise definition, and IEND's well-known value).
 */
import { describe, expect, it } from 'vitest';
import { encodePng } from '../../src/tools/png';

/** CRC-32 bit by bit, as the PNG specification gives it: no table. */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** The chunks after the signature: type, data and the CRC each carries. */
function chunks(png: Uint8Array): { type: string; data: Uint8Array; crc: number }[] {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const found = [];
  for (let at = 8; at < png.length; ) {
    const length = view.getUint32(at);
    found.push({ type: new TextDecoder().decode(png.subarray(at + 4, at + 8)), data: png.subarray(at + 4, at + 8 + length), crc: view.getUint32(at + 8 + length) });
    at += 12 + length;
  }
  return found;
}

describe('the PNG encoder', () => {
  it('writes the signature, a header of the size asked, and every chunk with its CRC-32', async () => {
    const png = await encodePng(3, 2, new Uint8Array(3 * 2 * 3).fill(200));
    expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    const found = chunks(png);
    expect(found.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    const header = new DataView(found[0]!.data.buffer, found[0]!.data.byteOffset + 4);
    expect([header.getUint32(0), header.getUint32(4)]).toEqual([3, 2]);
    for (const chunk of found) expect(chunk.crc).toBe(crc32(chunk.data));
    expect(found[2]!.crc).toBe(0xae426082);
  });
});
