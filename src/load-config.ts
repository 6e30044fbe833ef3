/**
 * The configuration as a Worker's request reads it: by hand where the plain readings suffice, the
 * variables' zod checks (`config.ts`) loaded only for a text they leave to them. A Worker isolate
 * whose first request is a plain turn then loads no zod at all: zod's evaluation and its first
 * schemas were half of that request's CPU (bench/PROFILE.md, "A Worker's turn without zod").
 */
import { configOf, type Config } from './config-vars';
import type { Env } from './env';

export async function loadConfig(env: Env): Promise<Config> {
  return configOf(env) ?? (await import('./config')).readConfig(env);
}
