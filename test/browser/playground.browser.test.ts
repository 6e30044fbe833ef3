/**
 * The playground (issue 10, point 3) end to end: Debian's Chromium, driven by playwright-core, on the
 * page the Worker serves as a static asset under `wrangler dev`, with the demo model and the stand-in
 * upstream (for a model slow enough to reload the page in the middle of its answer). A trusted tool,
 * a permission granted and one denied with a reason, a client tool answered on the page, a reload
 * mid-stream; the finished page is saved as a screenshot (test/browser/output/playground.png).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { startUpstream } from '../helpers/upstream-server';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium';

let server: Awaited<ReturnType<typeof startDevServer>> | undefined;
let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined;
let browser: Browser | undefined;
let page: Page;

beforeAll(async () => {
  upstream = await startUpstream();
  server = await startDevServer({
    vars: {
      RATE_LIMIT_PER_MINUTE: '0',
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      OPENAI_API_KEY: 'test-key',
      MODELS: 'openai:script/slow',
      PRICES: JSON.stringify({ 'demo:demo': { input: 1, output: 2 } }),
      USER_DAILY_TOKENS: '10000000',
    },
  });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  server?.stop();
  upstream?.server.close();
  upstream?.server.closeAllConnections();
});

const stops = () => page.$$eval('.stop', (nodes) => nodes.map((node) => (node as HTMLElement).dataset.stopReason));
async function say(text: string): Promise<void> {
  await page.fill('#prompt', text);
  await page.press('#prompt', 'Enter');
}
async function waitForStops(count: number): Promise<void> {
  await page.waitForFunction((n) => document.querySelectorAll('.stop').length >= n && !document.body.classList.contains('answering'), count, { timeout: 20_000 });
}
/** The last text block of the last assistant item. */
const lastText = () => page.$$eval('.assistant', (items) => [...(items.at(-1)?.querySelectorAll('.text') ?? [])].at(-1)?.textContent ?? '');
const card = (name: string) => page.locator('.tool', { has: page.locator('.name', { hasText: name }) });

it('runs turns with a trusted tool, permissions, a client tool and a reload mid-stream', async () => {
  await page.goto(`${server!.base}/`);
  expect(page.url()).toBe(`${server!.base}/playground/`);
  await page.click('#new-session');
  const sessionId = await page.getAttribute('#sessions button[aria-current="true"]', 'data-session-id');
  expect(sessionId).toMatch(/^pg-/);

  // A trusted tool runs inline: its card shows the arguments and the result; thinking streams too.
  await say('calculate (2+3)*4');
  await waitForStops(1);
  expect(await stops()).toEqual(['end_turn']);
  await expect(card('calculator').locator('.args').textContent()).resolves.toContain('"expression": "(2+3)*4"');
  await expect(card('calculator').locator('.result').textContent()).resolves.toBe('20');
  expect(await page.locator('.thinking').count()).toBeGreaterThan(0);
  expect(await lastText()).toContain('calculator: 20');

  // A permission granted, then one denied with a reason.
  await say('remember buy milk');
  await page.locator('button.approve').click({ timeout: 20_000 });
  await waitForStops(3);
  expect(await stops()).toEqual(['end_turn', 'tool_use', 'end_turn']);
  await expect(card('memory_save').first().locator('.result').textContent()).resolves.toMatch(/^Saved note/);
  await say('remember the door code');
  await page.locator('input.reason').fill('not the door code');
  await page.locator('button.deny').click({ timeout: 20_000 });
  await waitForStops(5);
  await expect(card('memory_save').nth(1).locator('.result').textContent()).resolves.toContain('not the door code');

  // The page's client tool: the model asks, the user answers on the page.
  await say('call ask_user {"question":"Which city?"}');
  await page.locator('textarea.answer').fill('Porto', { timeout: 20_000 });
  await page.click('button.send-answer');
  await waitForStops(7);
  expect(await lastText()).toContain('ask_user: Porto');

  // A reload in the middle of a slow answer: the page replays the turn and follows it to its end.
  await page.fill('#model', 'openai:script/slow');
  await page.dispatchEvent('#model', 'change');
  await say('tell me a story');
  // The story's first words are on the page (in the item after the request), and it is not done.
  await page.waitForFunction(
    () => {
      const request = [...document.querySelectorAll('.user')].find((node) => node.textContent === 'tell me a story');
      const answer = request?.nextElementSibling;
      return (answer?.querySelector('.text')?.textContent ?? '').length > 0 && answer?.querySelector('.stop') === null;
    },
    undefined,
    { timeout: 20_000 },
  );
  await page.reload();
  // After a reload the history is drawn without stop lines: the one there is the replayed turn's.
  await waitForStops(1);
  expect(await stops()).toEqual(['end_turn']);
  // A message drawn from the history has its text in `.content`, beside its branch buttons.
  expect(await page.$$eval('.user', (nodes) => nodes.map((node) => node.querySelector('.content')?.textContent ?? node.textContent))).toEqual([
    'calculate (2+3)*4',
    'remember buy milk',
    'remember the door code',
    'call ask_user {"question":"Which city?"}',
    'tell me a story',
  ]);
  // The text on the page is the answer the session stored, once.
  const stored = (await (await fetch(`${server!.base}/sessions/${sessionId}/messages?limit=500`)).json()) as { messages: any[] };
  const answer = stored.messages.at(-1);
  expect(await lastText()).toBe(typeof answer.content === 'string' ? answer.content : answer.content.find((b: any) => b.type === 'text').text);

  // The session's usage, and its title in the list.
  await expect(page.textContent('#usage')).resolves.toMatch(/usage: [1-9]\d* in · [1-9]\d* out tokens/);
  await page.waitForFunction(() => !document.querySelector('#sessions button[aria-current="true"]')?.textContent?.startsWith('Untitled'), undefined, { timeout: 10_000 });

  const output = join(import.meta.dirname, 'output');
  mkdirSync(output, { recursive: true });
  await page.screenshot({ path: join(output, 'playground.png'), fullPage: true });
});

it('steers the running answer and queues a message while the agent answers', async () => {
  await page.click('#new-session');
  const sessionId = await page.getAttribute('#sessions button[aria-current="true"]', 'data-session-id');
  // The slow model is still chosen (above): the answer takes a while.
  await say('tell me a story');
  await page.waitForFunction(() => document.body.classList.contains('answering') && (document.querySelector('.assistant .text')?.textContent ?? '').length > 0, undefined, { timeout: 20_000 });
  expect(await page.isVisible('#if-busy')).toBe(true);
  await page.selectOption('#if-busy', 'steer');
  await say('and make it short');
  await page.waitForSelector('.user[data-accepted="steered"]', { timeout: 10_000 });
  await page.selectOption('#if-busy', 'enqueue');
  await say('then a poem');
  await page.waitForSelector('.user[data-accepted="queued"]', { timeout: 10_000 });
  // The story goes on with the steered message, then the queued turn runs and is drawn.
  await page.waitForFunction(() => document.querySelectorAll('.stop').length >= 2 && !document.body.classList.contains('answering'), undefined, { timeout: 30_000 });
  const stored = async () => ((await (await fetch(`${server!.base}/sessions/${sessionId}/messages?limit=500`)).json()) as { messages: any[] }).messages;
  await expect.poll(async () => (await stored()).filter((message) => message.role === 'user').map((message) => message.content), { timeout: 10_000 }).toEqual([
    'tell me a story',
    'and make it short',
    'then a poem',
  ]);
});

it('edits a message on a new branch and switches between the branches ("< 2 / 2 >")', async () => {
  await page.click('#new-session');
  await say('the first question');
  await waitForStops(1);
  // Drawn again from the history, the message has its id and its edit button.
  await page.click('#sessions button[aria-current="true"]');
  await page.waitForSelector('.user[data-message-id] .edit');
  page.once('dialog', (dialog) => void dialog.accept('the second question'));
  await page.click('.user[data-message-id] .edit');
  await page.waitForFunction(() => document.querySelector('.branch .position')?.textContent === '2 / 2', undefined, { timeout: 20_000 });
  expect(await page.textContent('.user .content')).toBe('the second question');
  expect(await page.isDisabled('.branch .step >> nth=1')).toBe(true);
  await page.click('.branch .step >> nth=0');
  await page.waitForFunction(() => document.querySelector('.branch .position')?.textContent === '1 / 2', undefined, { timeout: 10_000 });
  expect(await page.textContent('.user .content')).toBe('the first question');
  await page.screenshot({ path: join(import.meta.dirname, 'output', 'playground-branches.png'), fullPage: true });
});

it('lists the user’s sessions from the service, a sub-agent’s with its parent, and shows today’s usage against the limit', async () => {
  const parent = `pg-list-${Date.now()}`;
  const made = await fetch(`${server!.base}/sessions/${parent}/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'call agent_spawn {"agentId":"helper","task":"calculate 1+2"}' }] }),
  });
  expect(made.status).toBe(200);
  // Another browser: nothing of the list is in its storage; all of it comes from the service.
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${server!.base}/playground/`);
  await page.waitForSelector(`#sessions button[data-session-id="${parent}"]`);
  const child = page.locator('#sessions button', { hasText: `from ${parent}` });
  await expect(child.count()).resolves.toBe(1);
  const listed = await page.$$eval('#sessions button', (buttons) => buttons.map((button) => (button as HTMLElement).dataset.sessionId));
  const sessions = ((await (await fetch(`${server!.base}/sessions?limit=50`)).json()) as { sessions: { sessionId: string }[] }).sessions;
  expect(listed).toEqual(sessions.map((entry) => entry.sessionId));
  await page.waitForFunction(() => document.querySelector('#user-usage .calls')?.textContent?.match(/^[1-9]\d* model calls$/), undefined, { timeout: 10_000 });
  await expect(page.textContent('#user-usage .tokens')).resolves.toMatch(/^[1-9]\d* in · [1-9]\d* out tokens · \$\d+\.\d{4}$/);
  await expect(page.textContent('#user-usage .limits')).resolves.toBe('limit: 10000000 tokens a day');
  // Opening a listed session draws it.
  await page.click(`#sessions button[data-session-id="${parent}"]`);
  await page.waitForSelector('.user');
  await page.screenshot({ path: join(import.meta.dirname, 'output', 'playground-sessions.png'), fullPage: true });
});
