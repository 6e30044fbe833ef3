/**
 * The one error class of the HTTP surface. Handlers throw it; `http/error-response.ts` turns it into
 * the contract's body `{ error: { code, message, details } }` in exactly one place.
 */
export type ApiErrorBody = {
  error: { code: string; message: string; details?: unknown };
};

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly retryable: boolean;
  /** Headers the response must carry, e.g. `Retry-After` or `WWW-Authenticate`. */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: unknown; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
    this.retryable = status === 408 || status === 409 || status === 429 || status >= 500;
  }

  toBody(): ApiErrorBody {
    const error: ApiErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }

  /** Expected failures cross the Durable Object RPC boundary as plain values (thrown errors lose fields). */
  static fromBody(status: number, body: ApiErrorBody): ApiError {
    return new ApiError(status, body.error.code, body.error.message, { details: body.error.details });
  }
}
