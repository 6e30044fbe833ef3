/**
 * The image types a provider's API takes inline. Anthropic's and OpenAI's documented lists are the
 * same four; anything else they refuse, and the whole request with it. An image is stored as it
 * came (a client's `image/bmp`, a tool's `image/svg+xml`), and the history goes with every call, so
 * an image of another type is sent as a line of text that says it was left out: the model can tell
 * the user, and the session's later calls go through.
 */
export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
const TAKEN: ReadonlySet<string> = new Set(IMAGE_TYPES);

/** The type as the APIs spell it (`image/jpg` is a common slip for `image/jpeg`), or undefined when they do not take it. */
export function takenImageType(mimeType: string): string | undefined {
  const type = mimeType.toLowerCase() === 'image/jpg' ? 'image/jpeg' : mimeType.toLowerCase();
  return TAKEN.has(type) ? type : undefined;
}

/** What is sent in place of an image of a type the API does not take. */
export function leftOutImage(mimeType: string): string {
  return `[An image of type ${mimeType.slice(0, 100)} was left out: this model takes JPEG, PNG, GIF and WebP images.]`;
}
