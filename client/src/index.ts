export { createClient, type Client, type ClientOptions, type StreamOptions } from './client.js';
export { TurnsApiError } from './errors.js';
export type { Permission, RunOptions, RunResult, ToolHandler } from './run.js';
export type * from './types.js';
