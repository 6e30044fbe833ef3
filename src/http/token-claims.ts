/**
 * A bearer token's claims, once `jose` has verified its signature (`auth.ts`): what this service asks
 * of them, each refusal in its own words. The token must expire (`exp`, a number, not passed), may
 * start later (`nbf`), names its user (`sub`, 1 to 256 characters), and its `iat`, if any, is a
 * number; the claims are a JSON object. Checked here rather than by jose's `jwtVerify`, whose
 * general claims validation (issuers, audiences, durations such as "2h") this service never uses
 * cost the upload 1.5 KiB gzip (bench/PROFILE.md, "Cold start"); a property test holds the two to
 * the same decisions (test/unit/token-claims.test.ts).
 */
import { isRecord } from '../lib/is-record';
import { parseJson } from '../lib/parse-json';

export type Claims = { sub: string; exp: number; jurisdiction?: unknown };

/** Why a token's claims are refused: the code and message of its 401. */
export type ClaimsRefusal = { code: 'unauthorized' | 'token_expired' | 'token_not_yet_valid'; message: string };

export function checkClaims(payload: Uint8Array, nowSeconds: number): Claims | ClaimsRefusal {
  const claims = parseJson(new TextDecoder().decode(payload));
  if (!isRecord(claims)) return invalid();
  const { exp, nbf, iat, sub } = claims;
  // In the order jose's `jwtVerify` checks them: the claims that must be there, then the times.
  if (exp === undefined) return { code: 'unauthorized', message: 'The token has no "exp" claim: tokens must expire.' };
  if (sub === undefined) return noSub();
  if ((iat !== undefined && typeof iat !== 'number') || (nbf !== undefined && typeof nbf !== 'number')) return invalid();
  if (nbf !== undefined && nbf > nowSeconds) return { code: 'token_not_yet_valid', message: 'The token is not valid yet (its "nbf" is in the future).' };
  if (typeof exp !== 'number') return { code: 'unauthorized', message: 'The token\'s "exp" claim is not a number (seconds since the epoch).' };
  if (exp <= nowSeconds) return { code: 'token_expired', message: 'The token has expired; get a new one.' };
  if (typeof sub !== 'string' || sub === '' || sub.length > 256) return noSub();
  const { jurisdiction } = claims;
  return { sub, exp, ...(jurisdiction !== undefined ? { jurisdiction } : {}) };
}

const noSub = (): ClaimsRefusal => ({ code: 'unauthorized', message: 'The token has no "sub" claim naming the user.' });

export function invalid(): ClaimsRefusal {
  return { code: 'unauthorized', message: 'The token is not valid: it must be a JWT signed with HS256 by this deployment.' };
}
