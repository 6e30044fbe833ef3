/**
 * FNV-1a, 64 bits: a fast, well-spread hash with no key, for names made from other names (never for
 * anything an attacker must not forge). Synchronous, unlike `crypto.subtle.digest`, so a conversion
 * can call it inline.
 */
/** The 64-bit FNV-1a hash of a string's UTF-16 code units, as two 32-bit halves. */
export function fnv1a64(text: string): [number, number] {
  let high = 0xcbf29ce4;
  let low = 0x84222325;
  for (let index = 0; index < text.length; index++) {
    low = (low ^ text.charCodeAt(index)) >>> 0;
    // Multiplication by the 64-bit FNV prime (2^40 + 0x1b3), over two 32-bit halves.
    const lowTimes = low * 0x1b3;
    const carry = Math.floor(lowTimes / 0x100000000);
    high = (Math.imul(high, 0x1b3) + Math.imul(low, 0x100) + carry) >>> 0;
    low = lowTimes >>> 0;
  }
  return [high, low];
}
