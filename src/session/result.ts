/**
 * What the session object's RPC methods answer. Expected failures return as values
 * (`{ ok: false }`), since errors thrown across RPC lose their fields.
 */
import { ApiError, type ApiErrorBody } from '../lib/errors';

/** `headers`: what the answer must carry (a `Retry-After`). */
export type Failure = { ok: false; status: number; body: ApiErrorBody; headers?: Record<string, string> };
export type Result<T> = ({ ok: true } & T) | Failure;

/** Runs an RPC method's work: an `ApiError` becomes its failure, anything else a 500 (logged). */
export async function guard<T>(work: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, ...(await work()) };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, status: error.status, body: error.toBody(), ...(Object.keys(error.headers).length > 0 ? { headers: error.headers } : {}) };
    console.error('session failed', error);
    return { ok: false, status: 500, body: { error: { code: 'internal_error', message: 'The session failed to answer; try again.' } } };
  }
}
