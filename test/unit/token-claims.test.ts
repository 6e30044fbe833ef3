/**
 * A token's claims, checked by `src/http/token-claims.ts` after jose's `compactVerify` has verified
 * its signature, hold to what jose's own `jwtVerify` decided for this service before: for tokens of
 * every shape of claims (`exp`, `nbf`, `iat`, `sub` present or not, of any type, past or future),
 * the same tokens pass, with the same user and expiry, and the same are refused, with the same code.
 * One decision differs, on purpose: an `nbf` that is not a number is an invalid token, where the
 * mapping of jose's errors called it "not valid yet".
 */
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { CompactSign, compactVerify, errors, FlattenedSign, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { verifyToken } from '../../src/http/auth';
import { checkClaims } from '../../src/http/token-claims';
import { ApiError } from '../../src/lib/errors';
import { SECRET } from '../helpers/tokens';

const key = new TextEncoder().encode(SECRET);
const now = () => Math.floor(Date.now() / 1000);

/** What `jwtVerify`, with the mapping of its errors this service had, decided for a token at `now`. */
async function asJwtVerifyDecided(token: string, at: number): Promise<string> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'], currentDate: new Date(at * 1000) });
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 256) return 'unauthorized';
    return `ok ${payload.sub} ${payload.exp}`;
  } catch (error) {
    if (error instanceof errors.JWTExpired) return 'token_expired';
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'nbf') return 'token_not_yet_valid';
    return 'unauthorized';
  }
}

/** What the service decides now: jose's `compactVerify` for the signature, then `checkClaims` at `now`. */
async function decided(token: string, at: number): Promise<string> {
  const { payload } = await compactVerify(token, key, { algorithms: ['HS256'] });
  const claims = checkClaims(payload, at);
  return 'code' in claims ? claims.code : `ok ${claims.sub} ${claims.exp}`;
}

/** The same through the Worker's own `verifyToken`, on the clock. */
async function verified(token: string): Promise<string> {
  try {
    const identity = await verifyToken(token, new Request('https://agents.example.com/sessions'), { ...env, AUTH_SECRET: SECRET });
    return `ok ${identity.userId}`;
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

/** A time some seconds from now (past or future), or a value of another type. */
type Time = { offset: number } | { raw: unknown };
const time: fc.Arbitrary<Time> = fc.oneof(
  // Near the moment, where a check that is off by one second would show, and further off.
  fc.oneof(fc.integer({ min: -2, max: 2 }), fc.integer({ min: -100_000, max: 100_000 })).map((offset) => ({ offset })),
  fc.constantFrom<unknown>('tomorrow', null, true, [1], { at: 1 }, 1.5e12).map((raw) => ({ raw })),
);
const claim = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
const sub = fc.oneof(fc.string({ maxLength: 8 }), fc.constant('x'.repeat(257)), fc.constantFrom<unknown>(7, null, ['a'], {}));
const NOW = 1_900_000_000;
const valueOf = (at: Time) => ('offset' in at ? NOW + at.offset : at.raw);

describe('a token’s claims, as jose’s jwtVerify decided them', () => {
  it('passes and refuses the same tokens, with the same user, expiry and code', async () => {
    await fc.assert(
      fc.asyncProperty(claim(time), claim(time), claim(time), claim(sub), async (exp, nbf, iat, subject) => {
        // The one decision that differs on purpose (the next test).
        fc.pre(nbf === undefined || 'offset' in nbf);
        const payload: Record<string, unknown> = {};
        if (exp !== undefined) payload.exp = valueOf(exp);
        if (nbf !== undefined) payload.nbf = valueOf(nbf);
        if (iat !== undefined) payload.iat = valueOf(iat);
        if (subject !== undefined) payload.sub = subject;
        const token = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(key);
        expect(await decided(token, NOW), JSON.stringify(payload)).toBe(await asJwtVerifyDecided(token, NOW));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses, through the Worker’s verifyToken, claims that are no JSON object, an unencoded payload, and an nbf that is no number', async () => {
    const signed = (payload: string, header: Record<string, unknown> = {}) => new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg: 'HS256', ...header }).sign(key);
    for (const payload of ['[1]', '"text"', 'null', 'not json']) expect(await verified(await signed(payload)), payload).toBe('unauthorized');
    // RFC 7797's unencoded payload: no JWT, refused by jose's verification.
    const unencoded = await new FlattenedSign(new TextEncoder().encode(JSON.stringify({ sub: 'u', exp: now() + 60 }))).setProtectedHeader({ alg: 'HS256', b64: false, crit: ['b64'] }).sign(key);
    expect(await verified(`${unencoded.protected}.${unencoded.payload}.${unencoded.signature}`)).toBe('unauthorized');
    const token = await new SignJWT({ sub: 'u', exp: now() + 60, nbf: 'soon' as unknown as number }).setProtectedHeader({ alg: 'HS256' }).sign(key);
    expect(await verified(token)).toBe('unauthorized');
    expect(await asJwtVerifyDecided(token, now())).toBe('token_not_yet_valid');
    expect(await verified(await new SignJWT({ sub: 'alice', exp: now() + 60 }).setProtectedHeader({ alg: 'HS256' }).sign(key))).toBe('ok alice');
  });
});
