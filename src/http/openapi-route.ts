/** `GET /openapi.json`: the document, built on the first request that asks for it and kept. */
import { openApiDocument } from './openapi';

let document: unknown;

export function getOpenApi(): Response {
  return Response.json((document ??= openApiDocument()));
}
