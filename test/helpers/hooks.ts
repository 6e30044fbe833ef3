/** What the stand-in webhook receiver recorded (test/helpers/webhook-receiver.ts), read from inside workerd. */
import { env } from 'cloudflare:workers';
import { expect, vi } from 'vitest';
import type { ReceivedHook } from './received-hook';

/** The receiver's own address (the Worker posts to its `/hook`). */
export const hookReceiver = env.WEBHOOK_URL!.replace(/\/hook$/, '');

/** Every attempt the receiver got for a session, in order. */
export async function hooksOf(sessionId: string): Promise<ReceivedHook[]> {
  return (await fetch(`${hookReceiver}/received?session=${encodeURIComponent(sessionId)}`)).json() as Promise<ReceivedHook[]>;
}

/** Waits until the receiver has taken (answered 2xx) `count` webhooks of a session; returns every attempt. */
export async function delivered(sessionId: string, count: number, timeout = 8000): Promise<ReceivedHook[]> {
  return vi.waitFor(
    async () => {
      const hooks = await hooksOf(sessionId);
      expect(hooks.filter((hook) => hook.answered < 300)).toHaveLength(count);
      return hooks;
    },
    { timeout, interval: 50 },
  );
}
