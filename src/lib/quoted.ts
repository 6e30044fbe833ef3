/**
 * A string a client sent, as an error message names it: quoted, and cut at `max` characters, so that a
 * request of megabytes (a method's or a tool's name is any string JSON carries) does not have them
 * sent back.
 */
export function quoted(text: string, max = 64): string {
  return text.length > max ? `${JSON.stringify(text.slice(0, max))}…` : JSON.stringify(text);
}
