/** The limits of one request (docs/operations.md, "Limits"); each breach is a 4xx that names it. */
export const LIMITS = {
  /** A client tool's result or a pasted document of a few MB is normal for coding agents. */
  bodyBytes: 10 * 1024 * 1024,
  messagesPerRequest: 256,
  toolsPerRequest: 128,
  toolSchemaBytes: 16 * 1024,
  toolDescriptionChars: 4096,
  textChars: 8 * 1024 * 1024,
} as const;
