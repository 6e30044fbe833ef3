// What a deployment's MCP servers cost a new session's first turn (bench/experiments/README.md): a
// real MCP server (the official SDK's, Streamable HTTP, stateless) on loopback with `TOOLS` tools
// (default 3), each of its answers held `DELAY_MS` (default 20: a server across the internet), named
// twice in `MCP_SERVERS`; the
// bundle as `wrangler deploy --dry-run` makes it, in one runtime for the whole experiment, the
// stand-in model. `SESSIONS` new sessions (default 20) each take one turn, timed from the request to
// its body's end (wall) and in the runtime's CPU (/proc); the server counts the lists it was asked
// for. With `BEFORE=<checkout>` (as cold-pair.mjs), both builds alternating, and the medians of
// their paired differences.
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { bundleOf, freshRuntime, postTurn, STAND_IN_TURN } from '../cold-isolate.mjs';
import { wallAndCpu, wallAndCpuMedians, wallAndCpuPaired } from '../measure.mjs';
import { serviceVars, startBenchUpstream } from '../upstream.mjs';

const DELAY_MS = Number(process.env.DELAY_MS ?? 20);
const SESSIONS = Number(process.env.SESSIONS ?? 20);
const TOOLS = Number(process.env.TOOLS ?? 3);
const roots = { ours: resolve(import.meta.dirname, '..', '..'), ...(process.env.BEFORE ? { 'ours before': resolve(process.env.BEFORE) } : {}) };

/** The MCP server: `TOOLS` tools, stateless, each answer held `DELAY_MS`; `lists` counts `tools/list`. */
async function startMcpServer() {
  const counts = { lists: 0 };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      setTimeout(async () => {
        const message = body ? JSON.parse(body) : undefined;
        if (message?.method === 'tools/list') counts.lists += 1;
        const mcp = new McpServer({ name: 'bench-kit', version: '1.0.0' });
        for (let tool = 0; tool < TOOLS; tool += 1) {
          const inputSchema = { text: z.string().describe('What to say back.'), times: z.number().int().min(1).max(10).optional(), tone: z.enum(['plain', 'loud', 'soft']).optional() };
          mcp.registerTool(`echo_${tool}`, { description: `Says the text back, the ${tool}th way.`, inputSchema }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
        }
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        response.on('close', () => void transport.close());
        await mcp.connect(transport);
        await transport.handleRequest(request, response, message);
      }, DELAY_MS);
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, counts, close: () => new Promise((done) => server.close(done)) };
}

const upstream = await startBenchUpstream();
const mcp = await startMcpServer();
const bindings = {
  ...serviceVars(upstream.url, 20_000),
  MCP_SERVERS: JSON.stringify([
    { name: 'kit', url: mcp.url, trust: 'trusted' },
    { name: 'vault', url: mcp.url, trust: 'trusted' },
  ]),
};
const builds = Object.entries(roots).map(([name, root]) => {
  const bundle = { objects: { SESSIONS: 'SessionObject', USERS: 'UserObject' }, ...bundleOf({ config: join(root, 'wrangler.toml') }, root) };
  return { name, runtime: freshRuntime(bundle, bindings), rows: [], lists: 0 };
});
for (const build of builds) {
  await build.runtime.ready;
  await postTurn(build.runtime, 'warm-up', STAND_IN_TURN);
}
for (let index = 0; index < SESSIONS; index += 1) {
  for (const build of index % 2 === 0 ? builds : [...builds].reverse()) {
    const lists = mcp.counts.lists;
    build.rows.push(await wallAndCpu(() => postTurn(build.runtime, `mcp-${index}`, STAND_IN_TURN)));
    build.lists += mcp.counts.lists - lists;
  }
}
for (const { runtime } of builds) await runtime.dispose();
await mcp.close();
await upstream.close();

const line = builds.map(({ name, rows, lists }) => `${name} ${wallAndCpuMedians(rows)}, ${lists} lists`).join('; ');
const [after, before] = builds.map(({ rows }) => rows);
console.log(`a new session's first turn, two MCP servers of ${TOOLS} tools answering in ${DELAY_MS} ms: ${line}${wallAndCpuPaired(after, before)} (${SESSIONS} sessions each)`);
