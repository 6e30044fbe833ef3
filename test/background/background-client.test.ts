/**
 * The typed client for turns without a client (docs/background.md), against the real Worker: a
 * background turn, its state and the session's turns, the deliveries, schedules, and `verifyWebhook`
 * on a real delivery the receiver got; its types checked against the schemas.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../../client/src/index';
import type * as ClientTypes from '../../client/src/types';
import { verifyWebhook, WebhookVerificationError } from '../../client/src/webhooks';
import type { deliveryListSchema, turnsPageSchema, turnViewSchema } from '../../src/api/background-responses';
import type { scheduleViewSchema } from '../../src/api/schedule-requests';
import type { z } from '../../src/lib/zod';
import { callWorker, newSessionId } from '../helpers/api';
import { delivered } from '../helpers/hooks';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const typesAgree: [
  Same<ClientTypes.TurnView, z.infer<typeof turnViewSchema>>,
  Same<ClientTypes.Delivery, z.infer<typeof deliveryListSchema>['deliveries'][number]>,
  Same<ClientTypes.Schedule, z.infer<ReturnType<typeof scheduleViewSchema>>>,
  Same<ClientTypes.TurnsPage, z.infer<typeof turnsPageSchema>>,
] = [true, true, true, true];

describe('the typed client, without a client', () => {
  it('starts a turn in the background, reads its end, its delivery and its schedules; verifies the webhook', async () => {
    expect(typesAgree).toEqual([true, true, true, true]);
    const client = createClient({ baseUrl: 'http://localhost', fetch: (input, init) => callWorker(new Request(input, init)) });
    const id = newSessionId('client-bg');
    const accepted = await client.turns.background(id, { messages: [{ role: 'user', content: 'hello' }] });
    expect(accepted.status).toBe('running');
    const view = await vi.waitFor(async () => {
      const turn = await client.turns.get(id, accepted.turnId);
      expect(turn.status).toBe('finished');
      return turn;
    });
    expect(view.stopReason).toBe('end_turn');
    expect(await client.turns.list(id, { status: 'finished', limit: 5 })).toEqual({ turns: [expect.objectContaining({ turnId: accepted.turnId, status: 'finished', stopReason: 'end_turn' })] });
    const [hook] = await delivered(id, 1);
    const deliveries = await client.sessions.deliveries(id);
    expect(deliveries[0]).toMatchObject({ webhookId: hook!.webhookId, state: 'delivered', turnId: accepted.turnId });

    // The receiver's side: the body and headers it got, checked with the deployment's secret.
    const headers = new Headers({ 'webhook-id': hook!.webhookId, 'webhook-timestamp': hook!.timestamp, 'webhook-signature': hook!.signature });
    const event = verifyWebhook(env.WEBHOOK_SECRET!, hook!.body, headers);
    expect(event).toMatchObject({ type: 'turn.completed', webhookId: hook!.webhookId, data: { sessionId: id, turnId: accepted.turnId } });
    expect(() => verifyWebhook(env.WEBHOOK_SECRET!, hook!.body.replace('turn.completed', 'turn.failed'), headers)).toThrow(WebhookVerificationError);

    const at = new Date(Date.now() + 3_600_000).toISOString();
    const created = await client.schedules.create(id, { messages: [{ role: 'user', content: 'later' }], at });
    expect((await client.schedules.list(id)).map((schedule) => schedule.scheduleId)).toEqual([created.scheduleId]);
    await client.schedules.delete(id, created.scheduleId);
    expect(await client.schedules.list(id)).toEqual([]);
  });
});
