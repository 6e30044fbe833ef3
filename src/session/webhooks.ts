/**
 * Each turn's end, sent to the deployment's webhook (`WEBHOOK_URL`; docs/background.md), signed as
 * the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`),
 * so that its published verifiers accept it. At least once: a delivery waits in the session's storage
 * (`store/webhook-deliveries.ts`) until an answer in 2xx, tried again with a doubling backoff by the
 * session's alarm, at most `MAX_ATTEMPTS` times; every attempt keeps its `webhook-id`.
 */
import type { PendingToolCall, StopReason, TurnError } from '../agent/events';
import type { Usage } from '../agent/usage';
import type { Config } from '../config';
import { newId } from '../lib/ids';
import { releaseResponse } from '../lib/release-body';
import { SingleFlight } from '../lib/single-flight';
import type { DeliveryRow, WebhookDeliveries } from './store/webhook-deliveries';
import { webhookSigner, type Signer } from './webhook-signature';

export type WebhookType = 'turn.completed' | 'turn.requires_action' | 'turn.failed';

/** How a turn ended, as its webhook tells it. */
export type TurnEnd = { sessionId: string; turnId: string; stopReason: StopReason; usage: Usage; error?: TurnError; pendingToolCalls?: PendingToolCall[] };

/** Attempts of one delivery before it is given up. */
export const MAX_ATTEMPTS = 8;
/** An answer that does not come within this long is a failed attempt. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** Deliveries one send tries at most; the alarm sends the rest. */
const BATCH = 10;

export type WebhookHost = {
  deliveries: WebhookDeliveries;
  settings(): Config['webhook'];
  userId(): string;
  /** The schedule that started a turn, if one did. */
  scheduleOf(turnId: string): string | undefined;
  /** Asks the alarm to fire by `at`. */
  wake(at: number): void;
};

export function webhookType(stopReason: StopReason): WebhookType {
  if (stopReason === 'tool_use') return 'turn.requires_action';
  return stopReason === 'error' ? 'turn.failed' : 'turn.completed';
}

export class Webhooks {
  /** One send at a time; deliveries added meanwhile go in the next. */
  private readonly sending = new SingleFlight(() => this.sendBatch(), 'webhooks not sent');

  constructor(private readonly host: WebhookHost) {}

  /** A turn ended: its delivery is stored, then sent. Nothing without `WEBHOOK_URL`. */
  turnEnded(end: TurnEnd, now = Date.now()): void {
    if (!this.host.settings()) return;
    const type = webhookType(end.stopReason);
    const scheduleId = this.host.scheduleOf(end.turnId);
    const data = {
      userId: this.host.userId(),
      sessionId: end.sessionId,
      turnId: end.turnId,
      ...(scheduleId ? { scheduleId } : {}),
      stopReason: end.stopReason,
      ...(end.error ? { error: end.error } : {}),
      ...(type === 'turn.requires_action' ? { pendingToolCalls: end.pendingToolCalls ?? [] } : {}),
      usage: end.usage,
    };
    const body = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
    this.host.deliveries.add(newId('msg'), type, end.turnId, body, now);
    // Should this instance go before the first attempt is answered, the alarm tries it again.
    this.host.wake(now + ATTEMPT_TIMEOUT_MS + 1000);
    this.sending.kick();
  }

  /** Sends what is due (the alarm's part); resolves once the send ended. Never rejects. */
  sendDue(): Promise<void> {
    return this.sending.now();
  }

  /** The deliveries due now, a batch at a time; then the alarm is asked for the next one due. */
  private async sendBatch(): Promise<void> {
    const settings = this.host.settings();
    if (!settings) return;
    const signer = await webhookSigner(settings.secret);
    const due = this.host.deliveries.due(Date.now(), BATCH);
    await Promise.all(due.map((row) => this.attempt(row, settings, signer)));
    if (due.length === BATCH) this.sending.kick();
    const next = this.host.deliveries.nextDue();
    if (next !== undefined) this.host.wake(next);
  }

  private async attempt(row: DeliveryRow, settings: NonNullable<Config['webhook']>, signer: Signer): Promise<void> {
    const at = Date.now();
    const outcome = await post(settings.url, row, signer, at);
    const attempts = row.attempts + 1;
    if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300) {
      return this.host.deliveries.attempted(row.seq, { at, ...outcome }, { settled: 'delivered' });
    }
    if (attempts >= MAX_ATTEMPTS) {
      console.warn('webhook given up', row.webhookId, outcome);
      return this.host.deliveries.attempted(row.seq, { at, ...outcome }, { settled: 'failed' });
    }
    this.host.deliveries.attempted(row.seq, { at, ...outcome }, { retryAt: at + settings.retryBaseMs * 2 ** (attempts - 1) });
  }
}

/** One POST of a delivery, signed for this attempt's time; its status, or why there was none. */
async function post(url: string, row: DeliveryRow, signer: Signer, at: number): Promise<{ status?: number; error?: string }> {
  const seconds = Math.floor(at / 1000);
  const headers = {
    'content-type': 'application/json',
    'webhook-id': row.webhookId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': await signer(row.webhookId, seconds, row.body),
  };
  // A timer of our own, cleared when the answer comes: a pending one would keep the object awake.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ATTEMPT_TIMEOUT_MS);
  try {
    // A redirect is not followed: fetch would send a 301's or 302's POST on as a GET, without the
    // event, and a 2xx to that would settle a delivery nobody got. It is a failed attempt that says
    // where it pointed, as other senders of webhooks take it.
    const response = await fetch(url, { method: 'POST', headers, body: row.body, signal: controller.signal, redirect: 'manual' });
    // Read to its end, not cancelled, so that its connection serves the next delivery.
    releaseResponse(response);
    if (response.status >= 300 && response.status < 400) return { status: response.status, error: redirected(url, response.headers.get('location')) };
    return { status: response.status };
  } catch (error) {
    return { error: controller.signal.aborted ? `no answer in ${ATTEMPT_TIMEOUT_MS / 1000} s` : error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** A redirect's attempt, told: where it pointed (at most 200 characters of it, as the receiver chose them). */
function redirected(url: string, location: string | null): string {
  let target = location ?? '(no Location)';
  try {
    if (location !== null) target = new URL(location, url).href;
  } catch {
    // A Location that is no URL is told as it came.
  }
  if (target.length > 200) target = `${target.slice(0, 200)}…`;
  return `redirected to ${target}: webhooks do not follow redirects, so set WEBHOOK_URL to the address that takes the POST`;
}
