/** What the test MCP server and the tests both know (no Node imports: the tests run in workerd). */
export const MCP_TEST_TOKEN = 'secret-123';

/** A 2×2 PNG (red, green, blue, white), the smallest chart there is. */
export const CHART_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAE0lEQVR4nGP4z8DAsACIGf4DAQAclwWcT4AauwAAAABJRU5ErkJggg==';

/** What the test MCP server logs (`GET /__log`): its lists, each call, the cancelled calls' tags, refused requests, sessions ended. */
/** `callSockets`: each `tools/call` request, with the number of the connection it came on. */
export type McpLog = {
  lists: number;
  calls: { tool: string; args: any }[];
  callSockets: { tool: string; args: any; socket: number }[];
  cancelled: string[];
  unauthorized: number;
  ended: number;
  /** `/mcp-forgets`: its handshakes, and its answers to requests in sessions it had forgotten. */
  forgetful: { initializes: number; refused: number };
  /** `/mcp-modern` and `/mcp-dual` (`mcp-modern-server.ts`): each request's path, method, and `Mcp-Param-Region` header. */
  modern: { path: string; method: string; region: string | null }[];
  /** `/sse` and `/messages`: each request (`GET /sse`, `POST /messages tools/call`), and the streams closed. */
  sse: string[];
  sseClosed: number;
};
