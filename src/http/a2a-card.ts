/**
 * The A2A door's agent card (`/.well-known/agent-card.json`, docs/a2a.md), in the version the
 * reader asks for: a v1.0 client names its version (`A2A-Version: 1.0`, as the SDK's resolver does); a
 * reader that names none, or 0.3, gets the card in v0.3's shape, its v1.0 interfaces carried beside it, as
 * A2A's own SDK serves it. The two shapes differ where a v0.3 client would fail to read the other:
 * v0.3 finds the endpoint in `url` and `preferredTransport`, and a security scheme by its `type`.
 */
import type { IRequest } from 'itty-router';
import { readConfig } from '../config';
import type { Env } from '../env';
import { IMAGE_TYPES } from '../providers/image-types';
import { namedVersion } from './a2a-versions';

export function agentCard(request: IRequest, env: Env): Response {
  const url = `${new URL(request.url).origin}/a2a`;
  const secured = env.AUTH_SECRET !== undefined;
  const common = {
    name: 'edge-agent-turns',
    description: 'An agent with sessions, tools and permissions. A task is one turn; the context is the session.',
    version: '0.1.0',
    capabilities: { streaming: true, pushNotifications: false },
    // Images come as file parts (docs/a2a.md); JSON as data parts, which answer the calls a task waits for.
    defaultInputModes: ['text/plain', 'application/json', ...IMAGE_TYPES],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [{ id: 'chat', name: 'Chat', description: `A turn of the agent (model ${readConfig(env).defaultModel}), with its tools; a permission or a client tool's result is asked for with input-required.`, tags: ['chat', 'tools'], examples: ['calculate (2+3)*4'] }],
  };
  // The same endpoint speaks both; a v1.0 client takes the 1.0 interface where both are listed.
  const supportedInterfaces = [
    { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ];
  const headers = { vary: 'A2A-Version' };
  // A version after 0.3, even one the door does not speak, reads v1.0's card (each interface names its version).
  const named = namedVersion(request.headers.get('a2a-version'));
  if (named !== undefined && named !== '0.3') {
    return Response.json(
      {
        ...common,
        supportedInterfaces,
        ...(secured ? { securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } }, securityRequirements: [{ schemes: { bearer: { list: [] } } }] } : {}),
      },
      { headers },
    );
  }
  return Response.json(
    {
      ...common,
      protocolVersion: '0.3.0',
      url,
      preferredTransport: 'JSONRPC',
      supportedInterfaces,
      ...(secured ? { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } }, security: [{ bearer: [] }] } : {}),
    },
    { headers },
  );
}
