/**
 * Schedules (docs/background.md): a one-shot or a cron, fired by the session's alarm within 5 s of
 * its time as an enqueued turn, stored and sent to the webhook like any turn; bounded, erased with the
 * session; bad ones refused with 400 and nothing stored. The cron's times are the library's answer.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { Cron } from 'croner';
import { describe, expect, it, vi } from 'vitest';
import { scheduleCreatedSchema } from '../../src/api/background-responses';
import { MAX_SCHEDULES, nextRunAt, scheduleViewSchema } from '../../src/api/schedule-requests';
import { sessionObject } from '../../src/users/owner';
import { fetchWorker, newSessionId, session, turn, user } from '../helpers/api';
import { delivered } from '../helpers/hooks';

const schedule = (sessionId: string, body: unknown) =>
  fetchWorker(`/sessions/${sessionId}/schedules`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const schedules = async (sessionId: string): Promise<any[]> => ((await (await fetchWorker(`/sessions/${sessionId}/schedules`)).json()) as any).schedules;

describe('schedules', () => {
  it('fires a one-shot schedule within 5 s of its time, as a turn stored and sent to the webhook', async () => {
    const id = newSessionId('once');
    // The first request of the file loads the Worker and the session's object, which took over 4 s on
    // a loaded machine: made first (it stores nothing), so that the time below is still to come when
    // the schedule's request arrives.
    expect((await fetchWorker(`/sessions/${id}/schedules`)).status).toBe(404);
    const at = new Date(Date.now() + 4000).toISOString();
    const response = await schedule(id, { messages: [user('good morning')], at });
    expect(response.status).toBe(201);
    const created = scheduleCreatedSchema.parse(await response.json());
    expect(created).toEqual({ scheduleId: expect.stringMatching(/^sch_/), nextRunAt: at });
    // The session exists from its first schedule on, with nothing in it yet.
    expect((await session(id)).body.messageCount).toBe(0);
    const [hook] = await delivered(id, 1, 11_000);
    expect(hook!.at).toBeLessThan(Date.parse(at) + 5000);
    // The delivery and the session's turns name the schedule that started the turn.
    expect(hook).toMatchObject({ verified: true, type: 'turn.completed', data: { stopReason: 'end_turn', scheduleId: created.scheduleId } });
    const [listed] = await schedules(id);
    expect(scheduleViewSchema().parse(listed)).toMatchObject({ scheduleId: created.scheduleId, at, nextRunAt: null, lastRun: { turnId: hook!.data.turnId, status: 'finished', stopReason: 'end_turn' } });
    const turns = ((await (await fetchWorker(`/sessions/${id}/turns`)).json()) as any).turns;
    expect(turns).toEqual([expect.objectContaining({ turnId: hook!.data.turnId, scheduleId: created.scheduleId, status: 'finished' })]);
    const messages = ((await (await fetchWorker(`/sessions/${id}/messages`)).json()) as any).messages;
    expect(messages.map((message: any) => message.role)).toEqual(['user', 'assistant']);
    expect(messages[0].content).toBe('good morning');
  });

  it('fires a cron on the alarm, waits behind a running turn, and sets its next time', async () => {
    const id = newSessionId('cron');
    await turn(id, { messages: [user('hello')] });
    // A cron whose real time never comes during the test: one due every minute fired a second time
    // whenever the test crossed a minute's boundary.
    const created = scheduleCreatedSchema.parse(await (await schedule(id, { messages: [user('new year')], cron: '0 9 1 1 *', timezone: 'Europe/Paris' })).json());
    const expected = new Cron('0 9 1 1 *', { mode: '5-part', timezone: 'Europe/Paris' }).nextRun()!;
    expect(Math.abs(Date.parse(created.nextRunAt) - expected.getTime())).toBeLessThanOrEqual(60_000);
    // Its time comes (the alarm is run now rather than waited for), while another turn runs.
    const stub = sessionObject(env, { userId: 'local' }, id);
    const slow = await fetchWorker(`/sessions/${id}/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [user('slowly')], model: 'openai:script/slow', stream: 'delta' }) });
    const reading = slow.text();
    await vi.waitFor(async () => expect((await session(id)).body.running).toBe(true));
    await pretendDue(id);
    await runDurableObjectAlarm(stub);
    const [listed] = await schedules(id);
    expect(listed.lastRun).toMatchObject({ status: 'queued' });
    expect(Date.parse(listed.nextRunAt)).toBeGreaterThan(Date.now());
    await reading;
    await vi.waitFor(async () => expect((await schedules(id))[0].lastRun).toMatchObject({ status: 'finished', stopReason: 'end_turn' }), { timeout: 8000 });
    const users = ((await (await fetchWorker(`/sessions/${id}/messages?limit=100`)).json()) as any).messages.filter((message: any) => message.role === 'user');
    expect(users.map((message: any) => message.content)).toEqual(['hello', 'slowly', 'new year']);
  });

  it('fires on time after a restart, though a turn in the new instance asked for its keepalive alarm later', async () => {
    const id = newSessionId('restart');
    const at = new Date(Date.now() + 2500).toISOString();
    expect((await schedule(id, { messages: [user('on time')], at })).status).toBe(201);
    await abortAllDurableObjects();
    // The new instance runs a turn, which keeps the object awake with an alarm 30 s away.
    await turn(id, { messages: [user('hello')] });
    const hooks = await delivered(id, 2, 8000);
    const fired = hooks.find((hook) => hook.type === 'turn.completed' && hook.at >= Date.parse(at));
    expect(fired!.at).toBeLessThan(Date.parse(at) + 5000);
  });

  it('takes the next time of a cron across a daylight-saving change from the library', () => {
    // New York leaves EST for EDT on 2027-03-14: 9:30 local is 14:30 UTC before, 13:30 UTC after.
    const spec = { cron: '30 9 * * *', timezone: 'America/New_York' };
    const before = nextRunAt(spec, Date.parse('2027-03-12T15:00:00Z'))!;
    const after = nextRunAt(spec, Date.parse('2027-03-13T15:00:00Z'))!;
    const oracle = new Cron('30 9 * * *', { mode: '5-part', timezone: 'America/New_York' });
    expect(before).toBe(oracle.nextRun(new Date('2027-03-12T15:00:00Z'))!.getTime());
    expect(after).toBe(oracle.nextRun(new Date('2027-03-13T15:00:00Z'))!.getTime());
    expect(new Date(before).toISOString()).toBe('2027-03-13T14:30:00.000Z');
    expect(new Date(after).toISOString()).toBe('2027-03-14T13:30:00.000Z');
  });

  it('refuses bad schedules with 400 and stores nothing', async () => {
    const id = newSessionId('bad');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const bad: [string, unknown][] = [
      ['neither at nor cron', { messages: [user('x')] }],
      ['both', { messages: [user('x')], at: future, cron: '0 9 * * *' }],
      ['at in the past', { messages: [user('x')], at: '2020-01-01T00:00:00Z' }],
      ['at without an offset', { messages: [user('x')], at: '2030-01-01T00:00:00' }],
      ['six fields: more often than once a minute', { messages: [user('x')], cron: '*/10 * * * * *' }],
      ['not a cron', { messages: [user('x')], cron: 'every day' }],
      ['a time zone that is not one', { messages: [user('x')], cron: '0 9 * * *', timezone: 'Mars/Olympus' }],
      ['a time zone with at', { messages: [user('x')], at: future, timezone: 'UTC' }],
      ['no messages', { messages: [], at: future }],
      ['an assistant message', { messages: [{ role: 'assistant', content: 'x' }], at: future }],
      ['an unknown field', { messages: [user('x')], at: future, url: 'https://example.com/hook' }],
      ['a model not offered', { messages: [user('x')], at: future, model: 'openai:nope' }],
    ];
    for (const [why, body] of bad) {
      const response = await schedule(id, body);
      expect(response.status, why).toBe(400);
    }
    // A time zone of megabytes is told once, by the size it may have: not also inside croner's error, whole.
    const huge = await schedule(id, { messages: [user('x')], cron: '0 9 * * *', timezone: 'Z'.repeat(1_000_000) });
    const hugeText = await huge.text();
    expect(hugeText.length).toBeLessThan(1000);
    expect(JSON.parse(hugeText).error.details.issues.map((issue: any) => issue.path)).toEqual(['timezone', 'timezone']);
    // The one a person gets wrong most, told so.
    const local = await schedule(id, { messages: [user('x')], at: '2030-01-01T00:00:00' });
    expect(((await local.json()) as any).error.message).toContain('at: Expected an ISO 8601 time with its offset');
    expect((await session(id)).status).toBe(404);
  });

  it('bounds a session’s schedules, deletes one, and erases them with the session', async () => {
    const id = newSessionId('many');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const ids: string[] = [];
    for (let index = 0; index < MAX_SCHEDULES; index++) ids.push(((await (await schedule(id, { messages: [user(`n${index}`)], at: future })).json()) as any).scheduleId);
    const over = await schedule(id, { messages: [user('one more')], at: future });
    expect(over.status).toBe(409);
    expect(((await over.json()) as any).error.code).toBe('too_many_schedules');
    expect(await schedules(id)).toHaveLength(MAX_SCHEDULES);
    expect((await fetchWorker(`/sessions/${id}/schedules/${ids[0]}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetchWorker(`/sessions/${id}/schedules/${ids[0]}`, { method: 'DELETE' })).status).toBe(404);
    expect((await fetchWorker(`/sessions/${id}/schedules/nope`, { method: 'DELETE' })).status).toBe(404);
    expect(await schedules(id)).toHaveLength(MAX_SCHEDULES - 1);
    // The user's export holds them.
    const lines = (await (await fetchWorker('/users/me/export')).text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.type === 'schedule' && line.sessionId === id)).toHaveLength(MAX_SCHEDULES - 1);
    expect((await fetchWorker(`/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetchWorker(`/sessions/${id}/schedules`)).status).toBe(404);
  });
});

/** Moves every schedule of the session to now, so that the alarm run next finds it due. */
async function pretendDue(sessionId: string): Promise<void> {
  await runInDurableObject(sessionObject(env, { userId: 'local' }, sessionId), async (_instance, state) => {
    state.storage.sql.exec('UPDATE schedules SET next_run_at = ?', Date.now() - 1);
  });
}
