/**
 * What a refusal from an MCP server says (`mcp-client.ts`): that the connection a request went on is
 * gone (a session forgotten, a server no longer of its era), and so the client connects again; the
 * versions a modern server speaks; or that the URL takes no POST, as a server of the older HTTP+SSE
 * transport answers.
 */
import { MODERN_MCP_PROTOCOL_VERSION, MODERN_RPC_ERRORS } from '../../api/mcp-headers';
import type { Refusal } from './mcp-wire';

/** A refusal that says the connection a request went on is gone; its message says why. */
export class Reconnect extends Error {}

/** A request the server refused; its message names the status and the server's own words. */
export class Refused extends Error {
  /**
   * Whether the URL takes no POST at all (`400`, `404`, `405` without a JSON-RPC error), as MCP has a
   * client tell a server of the HTTP+SSE transport.
   */
  readonly noPost: boolean;

  constructor(method: string, refusal: Refusal) {
    const detail = refusal.error ? ` (${refusal.error.code}: ${refusal.error.message})` : '';
    // The one an operator can mend: this client sends the headers MCP_SERVERS gives, and does no OAuth.
    const hint = refusal.status === 401 || refusal.status === 403 ? ' It asks for credentials: give them in the server’s "headers" in MCP_SERVERS.' : '';
    super(`The MCP server answered ${method} with HTTP ${refusal.status}${detail}.${hint}`);
    this.noPost = refusedAsUnknown(refusal);
  }
}

/** `400`, `404` or `405` without a JSON-RPC error: how a server refuses a request at a URL it does not serve so. */
function refusedAsUnknown(refusal: Refusal): boolean {
  return [400, 404, 405].includes(refusal.status) && !refusal.error;
}

/**
 * A legacy server that no longer knows the session: `404`, as MCP has it, or a `400` that names the
 * session, as the official SDKs' own servers and examples answer ("Bad Request: No valid session ID
 * provided", "Invalid or missing session ID"); anything else in a 400 refuses the request itself.
 */
export function sessionGone(refusal: Refusal): string | undefined {
  const gone = refusal.status === 404 || (refusal.status === 400 && /session/i.test(refusal.text));
  return gone ? 'it no longer knows its session' : undefined;
}

/**
 * A modern server that no longer answers as one: it refuses the revision (`-32022`), or answers as
 * a legacy server refuses a request it does not know (`400`, `404`, `405` without a JSON-RPC error),
 * as a server replaced by an older one does. Its era is found again.
 */
export function eraGone(refusal: Refusal): string | undefined {
  if (refusal.error?.code === MODERN_RPC_ERRORS.unsupportedVersion) return `it no longer speaks MCP ${MODERN_MCP_PROTOCOL_VERSION}`;
  return refusedAsUnknown(refusal) ? 'it no longer answers as a modern MCP server' : undefined;
}

/** The versions a modern server names when it refuses ours, if it does. */
export function versionsNamed(refusal: Refusal): string[] | undefined {
  if (refusal.error?.code !== MODERN_RPC_ERRORS.unsupportedVersion) return undefined;
  const data = refusal.error.data as { supported?: unknown } | undefined;
  return Array.isArray(data?.supported) ? data.supported.filter((version): version is string => typeof version === 'string') : [];
}
