/** A refusal of the API (`{"error": {code, message, details?}}`), or a stream that could not be resumed. */
export class TurnsApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'TurnsApiError';
  }
}

/** The error of a response that is not 2xx, read from its JSON body. */
export async function errorOf(response: Response): Promise<TurnsApiError> {
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string; details?: Record<string, unknown> } };
    if (body.error?.code) return new TurnsApiError(response.status, body.error.code, body.error.message ?? body.error.code, body.error.details);
  } catch {
    // Not JSON: a proxy's page.
  }
  return new TurnsApiError(response.status, 'http_error', `The server answered ${response.status} ${response.statusText}.`);
}
