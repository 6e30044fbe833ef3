/**
 * The service's webhooks, for the receiver's side (`@edge-agent-turns/client/webhooks`): a delivery
 * checked with the published Standard Webhooks verifier (signature, and a timestamp within five
 * minutes), its event typed. A receiver that sees the same `webhook-id` twice has seen a retry.
 */
import { Webhook } from 'standardwebhooks';
import type { Usage } from './types.js';

export type PendingCall = { toolCallId: string; name: string; input: Record<string, unknown>; awaiting: 'client' | 'permission' };

/** One turn's end, as the service sends it. */
export type WebhookEvent = {
  type: 'turn.completed' | 'turn.requires_action' | 'turn.failed';
  timestamp: string;
  data: {
    userId: string;
    sessionId: string;
    turnId: string;
    /** The schedule that started the turn, if one did. */
    scheduleId?: string;
    stopReason: 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'error';
    error?: { code: string; message: string };
    pendingToolCalls?: PendingCall[];
    usage: Usage;
  };
};

/**
 * Checks a delivery (its raw body, as received, and its headers) against the deployment's
 * `WEBHOOK_SECRET` (`whsec_...`); throws `WebhookVerificationError` when it was not signed with it.
 */
export function verifyWebhook(secret: string, body: string, headers: Headers | Record<string, string>): WebhookEvent & { webhookId: string } {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]) ?? '';
  const wanted = { 'webhook-id': get('webhook-id'), 'webhook-timestamp': get('webhook-timestamp'), 'webhook-signature': get('webhook-signature') };
  const event = new Webhook(secret).verify(body, wanted) as WebhookEvent;
  return { ...event, webhookId: wanted['webhook-id'] };
}

export { WebhookVerificationError } from 'standardwebhooks';
