/**
 * The OpenAPI document (`GET /openapi.json`) against the router itself: every route the Worker has is
 * in the document with its method, and every operation of the document is routed. A route added
 * without its document fails here. The document is served from the static assets the build writes
 * (`scripts/build-assets.mjs`), and must be the one the schemas make now. (It is validated by a
 * real OpenAPI validator in `test/clients/openapi.clients.test.ts`, in Node.)
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/http/openapi';
import { router } from '../../src/http/router';
import { callWorker, fetchWorker } from '../helpers/api';

type Document = { openapi: string; paths: Record<string, Record<string, any>> };
/** itty-router keeps its table as [METHOD, regex, handlers, path]. */
const routes = (router as unknown as { routes: [string, RegExp, unknown[], string][] }).routes.map(([method, , , path]) => ({ method, path }));
/** itty stores `/` as the empty path. */
const asOpenApi = (path: string) => (path === '' ? '/' : path.replace(/:(\w+)/g, '{$1}'));

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document with every route of the router', async () => {
    const response = await fetchWorker('/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as Document;
    expect(document.openapi).toBe('3.1.0');

    const routed = routes.filter((route) => !route.path.includes('*'));
    expect(routed.length).toBeGreaterThan(10);
    for (const { method, path } of routed) {
      const operations = document.paths[asOpenApi(path)];
      expect(operations, `${method} ${path} is not in the document`).toBeDefined();
      if (method !== 'ALL') expect(Object.keys(operations!), `${method} ${path}`).toContain(method.toLowerCase());
    }
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations)) {
        const handled = routed.some((route) => asOpenApi(route.path) === path && (route.method === method.toUpperCase() || route.method === 'ALL'));
        expect(handled, `${method} ${path} is documented but not routed`).toBe(true);
      }
    }
  });

  it('describes each request body and answer with the schemas the routes use', async () => {
    const document = (await (await fetchWorker('/openapi.json')).json()) as Document;
    const turn = document.paths['/sessions/{id}/turns']!.post;
    const body = turn.requestBody.content['application/json'].schema;
    expect(body.properties.stream.enum).toEqual(['delta', 'message', 'pi', 'none']);
    expect(body.required).toEqual(['messages']);
    const events = turn.responses['200'].content['text/event-stream']['x-sse-event'].oneOf.map((item: any) => item.properties.event.const);
    expect(events).toEqual(['turn_start', 'text_delta', 'thinking_delta', 'text', 'thinking', 'tool_call', 'tool_result', 'turn_stop']);
    expect(turn.responses['200'].content['application/json'].schema.required).toEqual(['stopReason', 'messages', 'turnId', 'usage']);
    expect(turn.responses['409'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(document.paths['/ag-ui']!.post.requestBody.content['application/json'].schema.required).toEqual(['threadId', 'runId', 'messages']);
  });

  it('is the document the schemas make now, served from the assets with their ETag', async () => {
    const response = await fetchWorker('/openapi.json');
    expect(response.headers.get('content-type')).toContain('application/json');
    // A document built before a schema changed fails here: `npm test` builds it first.
    expect(await response.json()).toEqual(openApiDocument());
    const etag = response.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await fetchWorker('/openapi.json', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('answers 500 with a clear error when the build did not write it', async () => {
    const missing = { ...env, ASSETS: { fetch: async () => new Response('Not Found', { status: 404 }) } } as unknown as typeof env;
    const response = await callWorker(new Request('http://localhost/openapi.json'), missing);
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { code: 'openapi_not_built', message: expect.stringContaining('scripts/build-assets.mjs') } });
  });
});
