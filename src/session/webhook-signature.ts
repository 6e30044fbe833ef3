/**
 * A webhook's signature as the Standard Webhooks specification has it: `v1,` and the base64 of an
 * HMAC-SHA256, keyed by the secret (`whsec_` and base64), of `{webhook-id}.{webhook-timestamp}.{body}`.
 * Made with the runtime's WebCrypto rather than the `standardwebhooks` package, whose pure-JavaScript
 * SHA-256 and base64 were 12 KB of the Worker's upload (bench/PROFILE.md); the tests check every
 * delivery with that package's published verifier.
 */
import { base64ToBytes, bytesToBase64 } from '../lib/base64';

export type Signer = (id: string, seconds: number, body: string) => Promise<string>;

export async function webhookSigner(secret: string): Promise<Signer> {
  const raw = base64ToBytes(secret.replace(/^whsec_/, ''));
  const key = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const encoder = new TextEncoder();
  return async (id, seconds, body) => {
    const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`${id}.${seconds}.${body}`));
    return `v1,${bytesToBase64(new Uint8Array(mac))}`;
  };
}
