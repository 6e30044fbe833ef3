/**
 * The official MCP SDK's clients, unchanged, against the agent's MCP server (`POST /mcp`,
 * docs/mcp.md) under `wrangler dev`: v1 (`@modelcontextprotocol/sdk`, the handshake's revisions) and
 * v2 (`@modelcontextprotocol/client`) as it connects by default (the handshake), finding the era
 * (`auto`) and pinned to the 2026-07-28 revision. For each: its tools, a plain answer with progress
 * notifications, a session continued, a permission answered by `answer_tool_call`, the list of
 * sessions, and another user's token refused.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, inject, it } from 'vitest';
import { mint } from '../helpers/tokens';

const base = inject('workerUrl');

type Progress = (note: { progress: number; message?: string }) => void;
/** What the tests ask of a client, whichever SDK it comes from. */
type Door = { listTools(): Promise<{ tools: { name: string }[] }>; callTool(params: { name: string; arguments: Record<string, unknown> }, onprogress?: Progress, signal?: AbortSignal): Promise<unknown>; close(): Promise<void>; era(): string | undefined };

const kinds: { label: string; era: string; connect(headers: Record<string, string>): Promise<Door> }[] = [
  {
    label: 'v1',
    era: 'legacy',
    async connect(headers) {
      const client = new Client({ name: 'mcp-door-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
      return { listTools: () => client.listTools(), callTool: (params, onprogress, signal) => client.callTool(params, undefined, { ...(onprogress ? { onprogress } : {}), ...(signal ? { signal } : {}) }), close: () => client.close(), era: () => 'legacy' };
    },
  },
  ...(['legacy', 'auto', 'pinned'] as const).map((mode) => ({
    label: `v2, ${mode === 'legacy' ? 'by default' : mode}`,
    era: mode === 'legacy' ? 'legacy' : 'modern',
    async connect(headers: Record<string, string>): Promise<Door> {
      const negotiation = mode === 'legacy' ? {} : { versionNegotiation: { mode: mode === 'auto' ? ('auto' as const) : { pin: '2026-07-28' } } };
      const client = new ClientV2({ name: 'mcp-door-test', version: '2.0.0' }, negotiation);
      await client.connect(new TransportV2(new URL(`${base}/mcp`), { requestInit: { headers } }));
      return { listTools: () => client.listTools(), callTool: (params, onprogress, signal) => client.callTool(params, { ...(onprogress ? { onprogress } : {}), ...(signal ? { signal } : {}) }), close: () => client.close(), era: () => client.getProtocolEra() };
    },
  })),
];

const textOf = (result: any): string => result.content.map((part: any) => part.text).join('');

describe.each(kinds)('the MCP door, with the SDK’s own client ($label)', (kind) => {
  const connect = async (token?: string): Promise<Door> => kind.connect(token ? { authorization: `Bearer ${token}` } : {});
  const tag = kind.label.replace(/[^a-z0-9]+/gi, '-');

  it('lists its tools, answers a chat with progress notifications, and continues the session', async () => {
    const client = await connect(await mint({ sub: `mcp-${tag}-${Date.now()}` }));
    expect(client.era()).toBe(kind.era);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['answer_tool_call', 'chat', 'get_messages', 'list_sessions', 'list_turns']);
    const progress: { progress: number; message?: string }[] = [];
    const first = (await client.callTool({ name: 'chat', arguments: { message: 'calculate 2+3' } }, (note) => progress.push(note))) as any;
    expect(first.isError).toBeFalsy();
    expect(textOf(first)).toContain('calculator: 5');
    expect(first.structuredContent).toMatchObject({ sessionId: expect.stringMatching(/^mcp-/), turnId: expect.stringMatching(/^turn_/), stopReason: 'end_turn', pendingToolCalls: [] });
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.map((note) => note.message)).toEqual(expect.arrayContaining(['calculator runs', 'calculator: success']));
    expect(progress.map((note) => note.progress)).toEqual(progress.map((_, index) => index + 1));

    const sessionId = first.structuredContent.sessionId;
    await client.callTool({ name: 'chat', arguments: { message: 'hello again', sessionId } });
    const messages = (await client.callTool({ name: 'get_messages', arguments: { sessionId } })) as any;
    expect(messages.structuredContent.messages.filter((message: any) => message.role === 'user').map((message: any) => message.content)).toEqual(['calculate 2+3', 'hello again']);
    const sessions = (await client.callTool({ name: 'list_sessions', arguments: {} })) as any;
    expect(sessions.structuredContent.sessions.map((entry: any) => entry.sessionId)).toEqual([sessionId]);
    // Its turns, newest first, as the turns API lists them.
    const turns = (await client.callTool({ name: 'list_turns', arguments: { sessionId } })) as any;
    expect(turns.structuredContent.turns.map((listed: any) => [listed.status, listed.stopReason])).toEqual([['finished', 'end_turn'], ['finished', 'end_turn']]);
    expect(turns.structuredContent.turns[1].turnId).toBe(first.structuredContent.turnId);
    const refused = (await client.callTool({ name: 'list_turns', arguments: { sessionId, status: 'done' } })) as any;
    expect(refused.isError).toBe(true);
    await client.close();
  });

  it('asks for a permission in the turn’s answer, and takes it by answer_tool_call', async () => {
    const client = await connect(await mint({ sub: `mcp-perm-${tag}-${Date.now()}` }));
    const asked = (await client.callTool({ name: 'chat', arguments: { message: 'remember the door code' } })) as any;
    expect(asked.structuredContent).toMatchObject({ stopReason: 'tool_use', pendingToolCalls: [{ name: 'memory_save', awaiting: 'permission', input: { text: 'the door code' } }] });
    expect(textOf(asked)).toMatch(/memory_save .* waits for your permission/);
    const { sessionId, pendingToolCalls } = asked.structuredContent;
    const done = (await client.callTool({ name: 'answer_tool_call', arguments: { sessionId, toolCallId: pendingToolCalls[0].toolCallId, granted: true } })) as any;
    expect(done.structuredContent).toMatchObject({ stopReason: 'end_turn', pendingToolCalls: [] });
    expect(textOf(done)).toContain('memory_save');
    await client.close();
  });

  // The 2026-07-28 revision makes closing a call's stream its cancel; the handshake's revisions send
  // `notifications/cancelled`, which a stateless server cannot tie to a turn: that turn goes on.
  it(`${kind.era === 'modern' ? 'cancels the turn of a call it abandons' : 'lets the turn of a call it abandons go on'}`, async () => {
    const token = await mint({ sub: `mcp-abandon-${tag}-${Date.now()}` });
    const client = await connect(token);
    const abandon = new AbortController();
    const sessionId = `mcp-abandon-${tag}-${Date.now()}`;
    const call = client.callTool({ name: 'chat', arguments: { message: 'tell me slowly', sessionId, model: 'openai:script/slow' } }, () => abandon.abort(), abandon.signal);
    await expect(call).rejects.toThrow(/abort/i);
    const lastTurn = async () => ((await (await fetch(`${base}/sessions/${sessionId}`, { headers: { authorization: `Bearer ${token}` } })).json()) as any).lastTurn;
    let turn = await lastTurn();
    for (let tries = 0; tries < 100 && turn?.status === 'running'; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      turn = await lastTurn();
    }
    expect(turn.status).toBe(kind.era === 'modern' ? 'cancelled' : 'finished');
    await client.close();
  });

  it('keeps one user’s sessions from another, and refuses a request without a token', async () => {
    const alice = await connect(await mint({ sub: `mcp-alice-${tag}-${Date.now()}` }));
    const first = (await alice.callTool({ name: 'chat', arguments: { message: 'hello' } })) as any;
    const bob = await connect(await mint({ sub: `mcp-bob-${tag}-${Date.now()}` }));
    const read = (await bob.callTool({ name: 'get_messages', arguments: { sessionId: first.structuredContent.sessionId } })) as any;
    expect(read.isError).toBe(true);
    expect(textOf(read)).toMatch(/No session has this id/);
    expect(((await bob.callTool({ name: 'list_sessions', arguments: {} })) as any).structuredContent.sessions).toEqual([]);
    await expect(connect()).rejects.toThrow(/401|token/i);
    // Stateless: no server stream to open, no session to end.
    const token = await mint({ sub: 'mcp-get' });
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${base}/mcp`, { method, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
    await alice.close();
    await bob.close();
  });
});
