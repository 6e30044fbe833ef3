/**
 * Who is asking. `Authorization: Bearer <JWT>`, HS256 against the secret `AUTH_SECRET`, verified by
 * `jose` (signature, `exp`, `nbf`); `sub` is the user id. With no secret configured, the deployment
 * serves one local user, and only to requests that come to a loopback host (`wrangler dev`).
 */
import { errors, jwtVerify } from 'jose';
import type { IRequest } from 'itty-router';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';

export const LOCAL_USER = 'local';

/** A request that passed `withUser`. */
export type AuthedRequest = IRequest & { userId: string };

const CHALLENGE = { 'www-authenticate': 'Bearer' };
const encoder = new TextEncoder();

/** itty middleware: sets `request.userId`, or throws a 401. */
export async function withUser(request: IRequest, env: Env): Promise<void> {
  request.userId = await authenticate(request, env);
}

export async function authenticate(request: Request, env: Env): Promise<string> {
  return authenticateToken(bearerToken(request), request, env);
}

/** The token of an `Authorization: Bearer <token>` header, if the request has one. */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

/** Checks a bearer token however it came (a header, or a WebSocket subprotocol entry). */
export async function authenticateToken(token: string | undefined, request: Request, env: Env): Promise<string> {
  const secret = env.AUTH_SECRET;
  if (!secret) {
    if (isLoopback(new URL(request.url).hostname)) return LOCAL_USER;
    throw unauthorized(
      'auth_not_configured',
      'This deployment has no AUTH_SECRET, so it only serves requests to a loopback host. Set one with `wrangler secret put AUTH_SECRET`.',
    );
  }
  if (!token) throw unauthorized('unauthorized', 'Send "Authorization: Bearer <token>" with a JWT signed by this deployment (HS256).');
  try {
    const { payload } = await jwtVerify(token, encoder.encode(secret), { algorithms: ['HS256'] });
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 256) {
      throw unauthorized('unauthorized', 'The token has no "sub" claim naming the user.');
    }
    return payload.sub;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (error instanceof errors.JWTExpired) throw unauthorized('token_expired', 'The token has expired; get a new one.');
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'nbf') {
      throw unauthorized('token_not_yet_valid', 'The token is not valid yet (its "nbf" is in the future).');
    }
    throw unauthorized('unauthorized', 'The token is not valid: it must be a JWT signed with HS256 by this deployment.');
  }
}

export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

function unauthorized(code: string, message: string): ApiError {
  return new ApiError(401, code, message, { headers: CHALLENGE });
}
