/**
 * A Durable Object SQLite row holds at most 2 MB. Long text is split over rows of at most
 * `ROW_CHARS` UTF-16 units (at most 3 bytes each in UTF-8, so 1.5 MB), never inside a surrogate
 * pair, and joined back byte for byte.
 */
export const ROW_CHARS = 500_000;

export function splitForRows(text: string, maxChars = ROW_CHARS): string[] {
  if (text.length <= maxChars) return [text];
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + maxChars, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1; // keep the pair whole
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}
