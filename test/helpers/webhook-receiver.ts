/**
 * A stand-in webhook receiver on loopback (Node), as a deployment's would be: it checks every
 * delivery with the published `standardwebhooks` verifier, records each attempt, and fails on
 * purpose for the sessions whose id asks it to (`hookfail-<n>-...`: the first n attempts of each
 * webhook answer 503, with a short JSON body as a busy server's would; `hookmoved-<n>-...`: the first
 * n answer 301 to `/moved`, which takes any request with 204, as a server's redirect from an old
 * address or from http to https would). `GET /received?session=<id>`
 * lists what it recorded for a session (each attempt with the number of the connection it came
 * on), and `GET /__sockets` the numbers of the connections still open (`connections.ts`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { numberConnections } from './connections.ts';
import type { ReceivedHook } from './received-hook';

/** The deployment's secret in the tests that send webhooks (Standard Webhooks form). */
export const WEBHOOK_TEST_SECRET = `whsec_${Buffer.from('the-test-webhook-secret-of-32-bytes!').toString('base64')}`;

export async function startWebhookReceiver(): Promise<{ url: string; server: Server }> {
  const received: ReceivedHook[] = [];
  const attempts = new Map<string, number>();
  const verifier = new Webhook(WEBHOOK_TEST_SECRET);
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (request.method === 'GET' && url.pathname === '/received') {
        const session = url.searchParams.get('session');
        response.setHeader('content-type', 'application/json');
        return response.end(JSON.stringify(received.filter((hook) => hook.data?.sessionId === session)));
      }
      if (connections.served(request, response)) return;
      if (url.pathname === '/moved') {
        response.statusCode = 204;
        return response.end();
      }
      const headers = { 'webhook-id': String(request.headers['webhook-id']), 'webhook-timestamp': String(request.headers['webhook-timestamp']), 'webhook-signature': String(request.headers['webhook-signature']) };
      let payload: any;
      let verified = false;
      try {
        payload = verifier.verify(body, headers);
        verified = true;
      } catch {
        payload = safeJson(body);
      }
      const webhookId = headers['webhook-id'];
      const attempt = (attempts.get(webhookId) ?? 0) + 1;
      attempts.set(webhookId, attempt);
      const [, kind, count] = /^hook(fail|moved)-(\d+)-/.exec(payload?.data?.sessionId ?? '') ?? [];
      const answered = !verified ? 401 : attempt > Number(count ?? 0) ? 204 : kind === 'moved' ? 301 : 503;
      const socket = connections.of(request.socket);
      received.push({ webhookId, timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'], verified, answered, type: payload?.type, data: payload?.data, body, at: Date.now(), socket });
      response.statusCode = answered;
      if (answered === 503) response.setHeader('content-type', 'application/json');
      if (answered === 301) response.setHeader('location', '/moved');
      response.end(answered === 503 ? '{"error":"busy, try again"}' : undefined);
    });
  });
  const connections = numberConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
