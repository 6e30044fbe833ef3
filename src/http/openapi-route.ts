/**
 * `GET /openapi.json`: the document the build wrote from the schemas (`scripts/build-assets.mjs`),
 * read from the Worker's static assets. The Worker neither uploads the builder nor builds the
 * document in an isolate (docs/decisions.md, 40); the assets' ETag answers a revalidation with 304.
 */
import type { IRequest } from 'itty-router';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';

export async function getOpenApi(request: IRequest, env: Env): Promise<Response> {
  const conditional = request.headers.get('if-none-match');
  const asset = await env.ASSETS.fetch(new URL('/openapi.json', request.url), conditional === null ? {} : { headers: { 'if-none-match': conditional } });
  if (!asset.ok && asset.status !== 304) {
    throw new ApiError(500, 'openapi_not_built', 'The OpenAPI document is not among the assets: the build writes it (node scripts/build-assets.mjs, which wrangler runs before dev and deploy).');
  }
  return new Response(asset.body, asset);
}
