/**
 * The one error class of the HTTP surface. Handlers throw it; `http/error-response.ts` turns it into
 * the contract's body `{ error: { code, message, details } }` in exactly one place.
 */
import { clause, explainIssue, type SchemaIssue } from './explain-issue';

export type ApiErrorBody = {
  error: { code: string; message: string; details?: unknown };
};

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
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
  }

  toBody(): ApiErrorBody {
    const error: ApiErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

/**
 * A schema's refusal as the API's 400 `invalid_request`: the first issue in the sentence (`what` is
 * not valid: path: message.), every issue in `details.issues`; a union's told by the branch the
 * input was meant for (`explainIssue`).
 */
export function invalidRequest(what: string, issues: readonly SchemaIssue[]): ApiError {
  const listed = issues.map((issue) => {
    const explained = explainIssue(issue);
    return { path: explained.path.map(String).join('.'), message: explained.message };
  });
  const first = listed[0];
  return new ApiError(400, 'invalid_request', `${what} is not valid: ${first?.path ? `${first.path}: ` : ''}${clause(first?.message)}.`, {
    details: { issues: listed },
  });
}
