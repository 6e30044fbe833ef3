/**
 * A `chat` call whose client leaves (docs/mcp.md): in MCP's 2026-07-28 revision, closing the call's
 * stream is its cancel, so the turn is cancelled, whether the call streams its progress or waits for
 * JSON; a client of the handshake era may drop a stream without meaning to cancel, and its turn goes
 * on (its answer stays in the session, for `get_messages`).
 */
import { describe, expect, it } from 'vitest';
import { callWorker, newSessionId, session, waitIdle } from '../helpers/api';
import { SLOW } from '../helpers/busy';

const MODERN = '2026-07-28';
const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

/** A `chat` call on a slow model, `modern` or of the handshake era, with a signal its client may abort. */
function chat(sessionId: string, options: { modern: boolean; progress: boolean; signal?: AbortSignal }): Promise<Response> {
  const _meta = { ...(options.modern ? meta : {}), ...(options.progress ? { progressToken: 'p1' } : {}) };
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chat', arguments: { message: 'tell me slowly', sessionId, model: SLOW }, ...(Object.keys(_meta).length > 0 ? { _meta } : {}) } };
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(options.modern ? { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'chat' } : {}) };
  const request = new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(body), ...(options.signal ? { signal: options.signal } : {}) });
  return callWorker(request);
}

/** Reads a call's SSE stream until its first progress notification: the turn runs. */
async function untilProgress(response: Response): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const reader = response.body!.getReader();
  let seen = '';
  while (!seen.includes('notifications/progress')) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before any progress: ${seen}`);
    seen += new TextDecoder().decode(value);
  }
  return reader;
}

async function untilRunning(sessionId: string): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    const { status, body } = await session(sessionId);
    if (status === 200 && body.running) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`session ${sessionId} never ran`);
}

describe('a chat call whose client leaves', () => {
  it('cancels the turn in the 2026-07-28 revision when the client closes the call’s stream', async () => {
    const sessionId = newSessionId('mcp-leave');
    const reader = await untilProgress(await chat(sessionId, { modern: true, progress: true }));
    await reader.cancel();
    expect((await waitIdle(sessionId)).lastTurn).toMatchObject({ status: 'cancelled' });
  });

  it('cancels it too when a call that waits for JSON is dropped (the request’s signal)', async () => {
    const sessionId = newSessionId('mcp-leave-json');
    const leaving = new AbortController();
    const answered = chat(sessionId, { modern: true, progress: false, signal: leaving.signal });
    await untilRunning(sessionId);
    leaving.abort();
    await answered.then((response) => response.body?.cancel()).catch(() => {});
    expect((await waitIdle(sessionId)).lastTurn).toMatchObject({ status: 'cancelled' });
  });

  it('lets the turn of a handshake-era client go on: it may drop a stream without meaning to cancel', async () => {
    const sessionId = newSessionId('mcp-stay');
    const leaving = new AbortController();
    const reader = await untilProgress(await chat(sessionId, { modern: false, progress: true, signal: leaving.signal }));
    leaving.abort();
    await reader.cancel();
    expect((await waitIdle(sessionId)).lastTurn).toMatchObject({ status: 'finished' });
  });
});
