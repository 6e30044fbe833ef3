/**
 * A string a client sent, as a reply or a log line names it: cut at `max` characters, so that a
 * request of megabytes (a method's or a tool's name, an id, a key: any string JSON or a path carries)
 * does not have them sent back or written down.
 */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The same, quoted, as a sentence names it. */
export function quoted(text: string, max = 64): string {
  return text.length > max ? `${JSON.stringify(text.slice(0, max))}…` : JSON.stringify(text);
}
