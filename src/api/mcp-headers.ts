/**
 * MCP's 2026-07-28 revision ("modern"): no handshake and no session; every request names its
 * protocol version, its client and the client's capabilities in `params._meta`, and over HTTP mirrors
 * its method, and the name of the tool it calls, in headers that gateways can route on
 * (docs/mcp.md). What the door and the session's MCP client share of it: the version, the `_meta`
 * keys, the header values' encoding, and the error codes the revision adds.
 */
import { base64ToBytes, bytesToBase64 } from '../lib/base64';

/** The revision without a handshake; the handshake's revisions are `MCP_PROTOCOL_VERSIONS`. */
export const MODERN_MCP_PROTOCOL_VERSION = '2026-07-28';

export const MCP_META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** The errors a modern server answers with `400`: a client reads them as a modern server's, not a legacy one's. */
export const MODERN_RPC_ERRORS = { headerMismatch: -32020, missingCapability: -32021, unsupportedVersion: -32022 } as const;

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
/** Visible ASCII, with inner spaces and tabs: what a header carries as it is. */
const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;

/** A value as a header carries it: as it is if it can be, else its UTF-8 in base64 inside `=?base64?…?=`. */
export function headerValue(text: string): string {
  if (PLAIN.test(text) && !SENTINEL.test(text)) return text;
  return `=?base64?${bytesToBase64(new TextEncoder().encode(text))}?=`;
}

/** A header's value read back: the sentinel decoded, or undefined where it is not base64 of UTF-8. */
export function readHeaderValue(value: string): string | undefined {
  const encoded = SENTINEL.exec(value)?.[1];
  if (encoded === undefined) return value;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(base64ToBytes(encoded));
  } catch {
    return undefined;
  }
}
