/**
 * Who is asking. `Authorization: Bearer <JWT>`, HS256 against the secret `AUTH_SECRET` (at least
 * `MIN_SECRET_BYTES`), its signature verified by `jose`, its claims by `token-claims.ts`: `nbf`, and
 * `exp` and `sub`, which a token must have (a token that never expires cannot be taken back). `sub`
 * is the user id. With no secret configured, the deployment serves one local user, and only to
 * requests to a loopback host from a local peer (`wrangler dev`). Where the user's objects live:
 * the token's `jurisdiction` claim, or the deployment's `DATA_JURISDICTION` (docs/users.md).
 */
import { compactVerify } from 'jose';
import type { IRequest } from 'itty-router';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { loadConfig } from '../load-config';
import type { Owner } from '../users/owner';
import { checkClaims, invalid, type ClaimsRefusal } from './token-claims';
import { JURISDICTIONS, type Jurisdiction } from '../users/prices';

export const LOCAL_USER = 'local';

/** A request that passed `withUser`. */
export type AuthedRequest = IRequest & { userId: string; owner: Owner };

const CHALLENGE = { 'www-authenticate': 'Bearer' };
const encoder = new TextEncoder();

/** An HS256 secret shorter than its hash (32 bytes) can be guessed offline from any one token. */
export const MIN_SECRET_BYTES = 32;

/** Who a token names, where their objects live, and when it stops being valid (ms since the epoch). */
export type Identity = Owner & { expiresAt?: number };

/** itty middleware: sets `request.owner` (and `request.userId`, which the request log reads), or throws a 401. */
export async function withUser(request: IRequest, env: Env): Promise<void> {
  const owner = await authenticate(request, env);
  request.owner = owner;
  request.userId = owner.userId;
}

export async function authenticate(request: Request, env: Env): Promise<Owner> {
  return authenticateToken(bearerToken(request), request, env);
}

/** The token of an `Authorization: Bearer <token>` header, if the request has one. */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

/** Checks a bearer token however it came (a header, or a WebSocket subprotocol entry). */
export async function authenticateToken(token: string | undefined, request: Request, env: Env): Promise<Owner> {
  const { expiresAt: _, ...owner } = await verifyToken(token, request, env);
  return owner;
}

/** As `authenticateToken`, with the token's expiry: a socket outlives its upgrade, and checks it on every frame. */
export async function verifyToken(token: string | undefined, request: Request, env: Env): Promise<Identity> {
  const secret = env.AUTH_SECRET;
  if (!secret) {
    // The host a request names is the client's to choose; the peer the runtime saw is not.
    const peer = request.headers.get('cf-connecting-ip');
    if (isLoopback(new URL(request.url).hostname) && (peer === null || isLoopback(peer))) return await placed({ userId: LOCAL_USER }, undefined, env);
    throw unauthorized(
      'auth_not_configured',
      'This deployment has no AUTH_SECRET, so it only serves local requests to a loopback host. Set one with `wrangler secret put AUTH_SECRET`.',
    );
  }
  const key = encoder.encode(secret);
  if (key.length < MIN_SECRET_BYTES) {
    console.error(`AUTH_SECRET is ${key.length} bytes; it must be at least ${MIN_SECRET_BYTES}. Every request is refused until it is.`);
    throw unauthorized(
      'auth_misconfigured',
      `This deployment's AUTH_SECRET is too short to be safe (under ${MIN_SECRET_BYTES} bytes), so it refuses every token. Its operator must set a longer one.`,
    );
  }
  if (!token) throw unauthorized('unauthorized', 'Send "Authorization: Bearer <token>" with a JWT signed by this deployment (HS256).');
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(token, key, { algorithms: ['HS256'] }));
  } catch {
    throw refused(invalid());
  }
  const claims = checkClaims(payload, Math.floor(Date.now() / 1000));
  if ('code' in claims) throw refused(claims);
  return await placed({ userId: claims.sub, expiresAt: claims.exp * 1000 }, claims.jurisdiction, env);
}

/** The identity with the jurisdiction its objects live in: the token's claim, else the deployment's default. */
async function placed(identity: Identity, claim: unknown, env: Env): Promise<Identity> {
  if (claim === undefined) {
    const fallback = (await loadConfig(env)).users.jurisdiction;
    return fallback ? { ...identity, jurisdiction: fallback } : identity;
  }
  if (typeof claim !== 'string' || !(JURISDICTIONS as readonly string[]).includes(claim)) {
    throw unauthorized('invalid_token', `The token's "jurisdiction" claim must be one of ${JURISDICTIONS.join(', ')}; "${String(claim).slice(0, 40)}" is not a Durable Object jurisdiction.`);
  }
  return { ...identity, jurisdiction: claim as Jurisdiction };
}

/** A loopback host name or address (IPv4 127/8, IPv6 ::1, also IPv4-mapped). */
export function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    hostname === '::1' ||
    /^127(\.\d{1,3}){3}$/.test(hostname) ||
    /^::ffff:127(\.\d{1,3}){3}$/i.test(hostname)
  );
}

function refused(refusal: ClaimsRefusal): ApiError {
  return unauthorized(refusal.code, refusal.message);
}

function unauthorized(code: string, message: string): ApiError {
  return new ApiError(401, code, message, { headers: CHALLENGE });
}
