/** Bytes as base64 and back, with the runtime's `btoa` and `atob` (which take one character per byte). */

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  // In slices: spreading a whole image into one call would pass more arguments than a call takes.
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary);
}

/** Throws where `text` is not base64. */
export function base64ToBytes(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}
