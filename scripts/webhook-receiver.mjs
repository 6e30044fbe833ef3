#!/usr/bin/env node
// A webhook receiver for the service's turn events (docs/background.md), on loopback: it checks each
// delivery with the published Standard Webhooks verifier, answers 204 (401 to a bad signature), keeps
// a delivery once by its `webhook-id` (a retry is told apart from a new event), and prints each one.
//   node scripts/webhook-receiver.mjs [--port 8788] [--secret whsec_...]
// then start the service with the same secret:
//   npm start -- --var WEBHOOK_URL:http://127.0.0.1:8788/ --var WEBHOOK_SECRET:whsec_...
// `npm run load` starts one in-process (`startReceiver`), which refuses some first attempts on purpose.
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';

/** A receiver: `refuseFirst(webhookId)` says which first attempts to answer 503. */
export async function startReceiver({ secret, port = 0, refuseFirst = () => false, quiet = false, onEvent = () => {} }) {
  const verifier = new Webhook(secret);
  const seen = new Map(); // webhook-id -> the event
  const attempts = new Map(); // webhook-id -> attempts so far
  const stats = { attempts: 0, refused: 0, unverified: 0 };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      stats.attempts++;
      const webhookId = String(request.headers['webhook-id'] ?? '');
      const attempt = (attempts.get(webhookId) ?? 0) + 1;
      attempts.set(webhookId, attempt);
      let event;
      try {
        event = verifier.verify(body, request.headers);
      } catch (error) {
        stats.unverified++;
        if (!quiet) console.log(`refused ${webhookId}: ${error.message}`);
        response.statusCode = 401;
        return response.end();
      }
      if (attempt === 1 && refuseFirst(webhookId)) {
        stats.refused++;
        response.statusCode = 503;
        return response.end();
      }
      const retry = seen.has(webhookId);
      if (!retry) {
        seen.set(webhookId, event);
        onEvent(event, webhookId);
      }
      if (!quiet) console.log(`${retry ? 'again' : 'event'} ${webhookId} ${event.type} session=${event.data.sessionId} turn=${event.data.turnId} stopReason=${event.data.stopReason}${event.data.pendingToolCalls ? ` pending=${JSON.stringify(event.data.pendingToolCalls)}` : ''}`);
      response.statusCode = 204;
      response.end();
    });
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    /** Of the turns given: how many have one event, none, or events under two ids. */
    summary(turnIds) {
      const byTurn = new Map();
      for (const event of seen.values()) byTurn.set(event.data.turnId, (byTurn.get(event.data.turnId) ?? 0) + 1);
      let deliveredOnce = 0;
      let missing = 0;
      let twice = 0;
      const missingIds = [];
      for (const turnId of turnIds) {
        const count = byTurn.get(turnId) ?? 0;
        if (count === 0) {
          missing++;
          missingIds.push(turnId);
        }
        else if (count === 1) deliveredOnce++;
        else twice++;
      }
      return { deliveredOnce, missing, twice, missingIds, ...stats };
    },
    close: () => server.close(),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = Object.fromEntries(process.argv.slice(2).join(' ').split('--').filter(Boolean).map((pair) => pair.trim().split(/\s+/)));
  const secret = args.secret ?? process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('Give the secret the service signs with: --secret whsec_... (or WEBHOOK_SECRET).');
    process.exit(2);
  }
  const receiver = await startReceiver({ secret, port: Number(args.port ?? 8788) });
  console.log(`listening on ${receiver.url}`);
}
