/**
 * The webhook's signature, made with WebCrypto (src/session/webhook-signature.ts), is the one the
 * published `standardwebhooks` package makes, and its verifier accepts: for several secrets, ids,
 * times and bodies (one outside ASCII, one empty).
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { webhookSigner } from '../../src/session/webhook-signature';

describe('the webhook signature', () => {
  it('is the Standard Webhooks package’s, byte for byte, and its verifier accepts it', async () => {
    const secrets = ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', `whsec_${btoa('a longer secret, of 32 bytes ok!')}`];
    const deliveries = [
      { id: 'msg_1', seconds: 1_700_000_000, body: '{"type":"turn.completed"}' },
      { id: 'msg_2', seconds: 1_800_000_123, body: '{"text":"Zürich, 東京 🌧"}' },
      { id: 'msg_3', seconds: 1, body: '' },
    ];
    for (const secret of secrets) {
      const sign = await webhookSigner(secret);
      const reference = new Webhook(secret);
      for (const { id, seconds, body } of deliveries) {
        expect(await sign(id, seconds, body)).toBe(reference.sign(id, new Date(seconds * 1000), body));
      }
      // The verifier takes only a fresh timestamp.
      const now = Math.floor(Date.now() / 1000);
      const headers = { 'webhook-id': 'msg_now', 'webhook-timestamp': String(now), 'webhook-signature': await sign('msg_now', now, '{"a":1}') };
      expect(reference.verify('{"a":1}', headers)).toEqual({ a: 1 });
    }
  });
});
