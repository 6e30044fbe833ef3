/** The one place an error becomes a response: `{ error: { code, message, details? } }` with its status. */
import { ApiError, type ApiErrorBody } from '../lib/errors';

export function errorResponse(error: unknown): Response {
  if (error instanceof ApiError) return jsonError(error.status, error.toBody(), error.headers);
  // Not an expected failure: the real cause goes to the log, the client gets a plain sentence.
  console.error('request failed', error);
  return jsonError(500, { error: { code: 'internal_error', message: 'The server failed to answer this request; try again.' } });
}

/** `x-error-code` repeats the code for the request log (and for clients that read headers only). */
export function jsonError(status: number, body: ApiErrorBody, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...headers, 'x-error-code': body.error.code } });
}

/** A session's refusal (its RPC answered `ok: false`), as the response the Worker gives. */
export function failureResponse(failure: { status: number; body: ApiErrorBody; headers?: Record<string, string> }): Response {
  return jsonError(failure.status, failure.body, failure.headers);
}
