/**
 * A webhook's signature as the Standard Webhooks specification has it: `v1,` and the base64 of an
 * HMAC-SHA256, keyed by the secret (`whsec_` and base64), of `{webhook-id}.{webhook-timestamp}.{body}`.
 * Made with the runtime's WebCrypto rather than the `standardwebhooks` package, whose pure-JavaScript
 * SHA-256 and base64 were 12 KB of the Worker's upload (bench/PROFILE.md); the tests check every
 * delivery with that package's published verifier.
 */

export type Signer = (id: string, seconds: number, body: string) => Promise<string>;

export async function webhookSigner(secret: string): Promise<Signer> {
  const raw = Uint8Array.from(atob(secret.replace(/^whsec_/, '')), (char) => char.charCodeAt(0));
  const key = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const encoder = new TextEncoder();
  return async (id, seconds, body) => {
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${id}.${seconds}.${body}`)));
    let binary = '';
    for (const byte of mac) binary += String.fromCharCode(byte);
    return `v1,${btoa(binary)}`;
  };
}
