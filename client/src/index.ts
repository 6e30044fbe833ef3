export { createClient, type Client, type ClientOptions, type StreamOptions } from './client';
export { TurnsApiError } from './errors';
export type { Permission, RunOptions, RunResult, ToolHandler } from './run';
export type * from './types';
