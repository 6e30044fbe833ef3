/** Bearer tokens for the tests of a deployment with AUTH_SECRET: HS256 JWTs, any claim adjustable. */
import { SignJWT } from 'jose';

export const SECRET = 'test-secret-with-enough-entropy-0123456789';

/** `exp: null` mints a token that never expires (which the service refuses). */
export async function mint(claims: { sub?: string; exp?: number | string | null; nbf?: number | string; alg?: string; secret?: string; jurisdiction?: unknown } = {}) {
  const jwt = new SignJWT(claims.jurisdiction !== undefined ? { jurisdiction: claims.jurisdiction } : {}).setProtectedHeader({ alg: claims.alg ?? 'HS256' }).setIssuedAt();
  if (claims.sub !== undefined) jwt.setSubject(claims.sub);
  if (claims.exp !== null) jwt.setExpirationTime(claims.exp ?? '5m');
  if (claims.nbf !== undefined) jwt.setNotBefore(claims.nbf);
  return jwt.sign(new TextEncoder().encode(claims.secret ?? SECRET));
}
