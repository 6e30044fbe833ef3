/** The limits of one request (README "Limits"); each breach is a 4xx that names it. */
export const LIMITS = {
  bodyBytes: 1024 * 1024,
  messagesPerRequest: 256,
  toolsPerRequest: 128,
  toolSchemaBytes: 16 * 1024,
  toolDescriptionChars: 4096,
  textChars: 200_000,
} as const;
