/**
 * The chat socket from a real browser: Debian's Chromium, driven by playwright-core, loads a page from
 * the Worker under `wrangler dev` and opens the socket with the browser's own `WebSocket` (the token
 * would go as a subprotocol entry; on loopback without AUTH_SECRET none is needed). The page renders
 * sentences as they arrive.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium';

let server: Awaited<ReturnType<typeof startDevServer>> | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  server = await startDevServer({ vars: { RATE_LIMIT_PER_MINUTE: '0' } });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  server?.stop();
});

/** The page: a list the sentences go into, and the socket's frames kept for the test to read. */
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>chat socket</title>
<ol id="sentences"></ol>
<p id="status">connecting</p>
<script>
  window.frames_ = [];
  window.chat = (url, text) => {
    const socket = new WebSocket(url, ['agent-chat']);
    socket.onopen = () => {
      document.getElementById('status').textContent = 'open';
      socket.send(JSON.stringify({ type: 'append_message', role: 'user', content: text }));
      socket.send(JSON.stringify({ type: 'request_completion', request_id: 'page-1' }));
    };
    socket.onmessage = (event) => {
      const frame = JSON.parse(event.data);
      window.frames_.push(frame);
      if (frame.type === 'llm_text_sentence') {
        const item = document.createElement('li');
        item.textContent = frame.sentence;
        item.dataset.index = frame.index;
        document.getElementById('sentences').append(item);
      }
      if (frame.type === 'completion_done') document.getElementById('status').textContent = 'done: ' + frame.finish_reason + ' on ' + socket.protocol;
    };
  };
</script>`;

it('a page opens the socket with the browser’s WebSocket, sends a message and sees the sentences arrive', async () => {
  const page = await browser!.newPage();
  await page.goto(`${server!.base}/healthz`); // the page's origin is the Worker's own, on loopback
  await page.setContent(PAGE);
  const url = `${server!.base.replace(/^http/, 'ws')}/sessions/browser-${Date.now()}/ws`;
  await page.evaluate(([socketUrl, text]) => (window as any).chat(socketUrl, text), [url, 'Hello from the browser. Is 3.14 a number? Yes.']);

  await page.waitForFunction(() => document.getElementById('status')!.textContent!.startsWith('done'), undefined, { timeout: 20_000 });
  expect(await page.textContent('#status')).toBe('done: stop on agent-chat');
  const items = await page.$$eval('#sentences li', (nodes) => nodes.map((node) => ({ text: node.textContent, index: Number((node as HTMLElement).dataset.index) })));
  const frames: any[] = await page.evaluate(() => (window as any).frames_);
  const echo = frames.find((frame) => frame.type === 'text_echo').text;

  expect(items.length).toBeGreaterThan(2);
  expect(items.map((item) => item.index)).toEqual(items.map((_, index) => index));
  expect(items.map((item) => item.text).join('')).toBe(echo);
  expect(items.some((item) => item.text!.includes('3.14 a number?'))).toBe(true);
  expect(frames.slice(0, 2).map((frame) => frame.type)).toEqual(['message_appended', 'completion_init']);
});
