#!/usr/bin/env node
// Mints an HS256 JWT for trying a deployment that has AUTH_SECRET set.
// Usage: node scripts/mint-token.mjs <user-id> [expires-in, default 1h]   (AUTH_SECRET from the environment)
import { SignJWT } from 'jose';

const [user, expiresIn = '1h'] = process.argv.slice(2);
const secret = process.env.AUTH_SECRET;
if (!user || !secret) {
  console.error('usage: AUTH_SECRET=<secret> node scripts/mint-token.mjs <user-id> [expires-in, e.g. 1h]');
  process.exit(2);
}
if (new TextEncoder().encode(secret).length < 32) {
  console.error('AUTH_SECRET must be at least 32 bytes: a deployment with a shorter one refuses every token (401 auth_misconfigured).');
  process.exit(2);
}
const token = await new SignJWT({})
  .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  .setSubject(user)
  .setIssuedAt()
  .setExpirationTime(expiresIn)
  .sign(new TextEncoder().encode(secret));
console.log(token);
