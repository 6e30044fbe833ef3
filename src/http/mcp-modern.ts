/**
 * The door's side of MCP's 2026-07-28 revision (docs/mcp.md): a request that says it speaks that
 * revision (its `MCP-Protocol-Version` header, or its `_meta` without one) is served without a
 * handshake, after the checks the revision asks of a server: one message, not a batch; the version
 * in `_meta` the header's; the method and the tool's name in `Mcp-Method` and `Mcp-Name` the body's.
 * Each check's refusal is a JSON-RPC error a modern client reads as a modern server's (`-32020`,
 * `-32602`, `404` with `-32601`), not a legacy server's, which it would fall back from.
 */
import { RPC_ERRORS, type RpcId, type RpcRequest } from '../api/json-rpc';
import { MCP_META, MODERN_MCP_PROTOCOL_VERSION, MODERN_RPC_ERRORS, readHeaderValue } from '../api/mcp-headers';
import { MCP_PROTOCOL_VERSIONS } from '../api/mcp-messages';
import { isRecord } from '../lib/is-record';
import { quoted } from '../lib/quoted';

/** Every revision the door speaks, newest first. */
export const DOOR_PROTOCOL_VERSIONS = [MODERN_MCP_PROTOCOL_VERSION, ...MCP_PROTOCOL_VERSIONS];

/** The methods of the revision: the handshake's `initialize` and `ping` are not among them. */
const MODERN_METHODS = new Set(['server/discover', 'tools/list', 'tools/call']);

export type ModernRefusal = { status: number; id: RpcId | null; code: number; message: string; data?: unknown };

/** Whether a body without a version header claims the revision all the same (its `_meta` names a version). */
export function claimsModern(json: unknown): boolean {
  const params = isRecord(json) ? json.params : undefined;
  return isRecord(params) && isRecord(params._meta) && MCP_META.protocolVersion in params._meta;
}

/** The answer to a version the door does not speak, listing those it does. */
export function unsupportedVersion(id: RpcId | null, requested: unknown): ModernRefusal {
  const data = { supported: DOOR_PROTOCOL_VERSIONS, requested };
  return { status: 400, id, code: MODERN_RPC_ERRORS.unsupportedVersion, message: `Unsupported protocol version: ${quoted(String(requested))}.`, data };
}

/** The revision's body is one message: a batch is refused before its messages are read. */
export const MODERN_BATCH: ModernRefusal = {
  status: 400,
  id: null,
  code: RPC_ERRORS.invalidRequest,
  message: `Invalid Request: a request of MCP ${MODERN_MCP_PROTOCOL_VERSION} is one message, not a batch.`,
};

/** Why a modern request (one the common checks have read as JSON-RPC) is refused before it runs, if it is. */
export function modernRefusal(headers: Headers, request: RpcRequest): ModernRefusal | undefined {
  const { id, method, params } = request;
  const meta = isRecord(params?._meta) ? params._meta : undefined;
  const version = meta?.[MCP_META.protocolVersion];
  if (version === undefined) {
    return { status: 400, id, code: RPC_ERRORS.invalidParams, message: `Invalid params: a request of MCP ${MODERN_MCP_PROTOCOL_VERSION} names its version, client and capabilities in params._meta.` };
  }
  const mismatch = (what: string) => ({ status: 400, id, code: MODERN_RPC_ERRORS.headerMismatch, message: `Header mismatch: ${what}.` });
  const header = headers.get('mcp-protocol-version');
  if (version !== header) return mismatch(`params._meta names protocol version ${quoted(String(version))}, the MCP-Protocol-Version header ${header === null ? 'none' : quoted(header)}`);
  if (version !== MODERN_MCP_PROTOCOL_VERSION) return unsupportedVersion(id, version);
  const methodHeader = headers.get('mcp-method');
  if (methodHeader !== method) return mismatch(`the body names method ${quoted(method)}, the Mcp-Method header ${methodHeader === null ? 'none' : quoted(methodHeader)}`);
  if (method === 'tools/call') {
    const nameHeader = headers.get('mcp-name');
    const name = nameHeader === null ? undefined : readHeaderValue(nameHeader);
    if (name !== params?.name) return mismatch(`the body calls ${typeof params?.name === 'string' ? quoted(params.name) : 'no tool'}, the Mcp-Name header names ${nameHeader === null ? 'none' : quoted(name ?? nameHeader)}`);
  }
  if (!MODERN_METHODS.has(method)) return { status: 404, id, code: RPC_ERRORS.methodNotFound, message: `Method not found: ${quoted(method)}.` };
  return undefined;
}

/**
 * How long a client may keep the door's tool list and what it tells it (the revision asks each list
 * to say): both are the deployment's, the same for every caller until it is deployed again; kept
 * private to the caller all the same, as the door's answers are.
 */
export const LIST_CACHING = { ttlMs: 300_000, cacheScope: 'private' } as const;

/** `server/discover`'s answer: the revisions the door speaks, its one capability, and who it is. */
export function discoverResult(server: { name: string; version: string; instructions: string }): Record<string, unknown> {
  return {
    ...LIST_CACHING,
    supportedVersions: DOOR_PROTOCOL_VERSIONS,
    capabilities: { tools: { listChanged: false } },
    instructions: server.instructions,
    _meta: { [MCP_META.serverInfo]: { name: server.name, version: server.version } },
  };
}
