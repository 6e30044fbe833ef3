/**
 * The stand-in Messages API's size limit (`upstream-server.ts`), here so that tests in workerd can
 * read it without importing the Node server.
 *
 * The real API answers a request over 32 MB with `413 request_too_large`. The stand-in does so
 * over 4 MiB, so that a test passes it with a few images rather than thirty megabytes.
 */
export const ANTHROPIC_MAX_REQUEST_BYTES = 4 * 1024 * 1024;
