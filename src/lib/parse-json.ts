/** JSON, or undefined for text that is not (a peer's answer, a token's claims: read, never trusted). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
