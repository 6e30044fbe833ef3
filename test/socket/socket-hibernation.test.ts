/**
 * Hibernation: the session object leaves memory while its socket is idle (workerd evicts an idle
 * object after about ten seconds), and a frame on the same socket still works afterwards. A file of
 * its own, since it waits.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { LOCAL_USER } from '../../src/http/auth';
import { sessionObjectName } from '../../src/http/session-stub';
import { expect, it } from 'vitest';
import { history, newSessionId } from '../helpers/api';
import { complete, openSocket } from '../helpers/socket';

const objectOf = (sessionId: string) => env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, sessionId));

/** Runs in the session's object; typed loosely, as the RPC types of its methods are too deep to infer. */
function inObject<R>(sessionId: string, work: (object: Record<string, unknown>, state: DurableObjectState) => R): Promise<R> {
  return runInDurableObject(objectOf(sessionId), (object, state) => work(object as unknown as Record<string, unknown>, state));
}

it('the object is evicted while the socket idles, and the socket still works after', { timeout: 75_000 }, async () => {
  const id = newSessionId();
  const socket = await openSocket(id);
  await complete(socket, 'calculate 1+1');
  await socket.until('conversation_title_update');
  // A mark on the object in memory: an object built again after eviction has none.
  await inObject(id, (object) => {
    object.testMark = 'before';
  });

  // Each look wakes the object and starts its idle time again, so the looks come further apart each
  // time: on a loaded machine the eviction may come a little after its ten seconds. (A timer left
  // pending, such as an `AbortSignal.timeout`, would keep the object in memory: this test found one.)
  let evicted = false;
  for (const wait of [12_000, 16_000, 24_000]) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    evicted = await inObject(id, (object) => object.testMark === undefined);
    if (evicted) break;
  }
  expect(evicted).toBe(true);

  // The runtime kept the socket through the eviction: the new object answers on it.
  expect(await inObject(id, (_object, state) => state.getWebSockets().length)).toBe(1);
  const frames = await complete(socket, 'calculate 2+2');
  expect(frames.find((frame) => frame.type === 'tool_call')).toMatchObject({ result: '4' });
  expect(frames.at(-1)).toEqual({ type: 'completion_done', finish_reason: 'stop' });
  expect((await history(id)).filter((message) => message.role === 'user')).toHaveLength(2);
});
