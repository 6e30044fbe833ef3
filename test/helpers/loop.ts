/** The agent loop's input and dependencies for a test that drives it alone, with a provider of its own. */
import type { AgentEvent } from '../../src/agent/events';
import { DEFAULT_RETRY_POLICY } from '../../src/agent/retry-policy';
import type { TurnDeps, TurnInput } from '../../src/agent/run-turn';
import type { ModelProvider } from '../../src/providers/types';
import * as z from '../../src/lib/zod';
import { createToolRegistry } from '../../src/tools/registry';
import type { ServerTool } from '../../src/tools/types';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server tool named `name` that runs `execute` (its input may carry `ms`); trusted unless said. */
export function loopTool(name: string, execute: (input: any, signal: AbortSignal) => Promise<string>, trust = true): ServerTool<any> {
  return { name, description: name, trust, inputSchema: z.looseObject({ ms: z.optional(z.number()) }), execute: (input, context) => execute(input, context.signal) };
}

/** One user message, `go`, on an empty history. */
export function loopInput(overrides: Partial<TurnInput> = {}): TurnInput {
  return { turnId: 'turn_1', history: [], context: { calibration: 1 }, answers: [], newMessages: [{ role: 'user', content: 'go' }], clientTools: [], ...overrides };
}

/** No tools, five steps, no retries unless asked, ids counted from 1, a clock at 0. */
export function loopDeps(provider: ModelProvider, emit: (event: AgentEvent) => void, overrides: Partial<TurnDeps> = {}): TurnDeps {
  let ids = 0;
  return {
    model: { id: 'test:model', model: 'model', provider },
    tools: createToolRegistry([]),
    toolContext: { now: () => new Date(0), notes: { save: () => ({ id: 1, text: '', savedAt: '' }), list: () => [] } },
    emit,
    signal: new AbortController().signal,
    systemPrompt: 'sys',
    maxIterations: 5,
    toolTimeoutMs: 500,
    retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 0 },
    context: { windowOverride: { byModel: {} }, threshold: 0.8, toolResultMaxChars: 20_000 },
    newId: (prefix) => `${prefix}_${++ids}`,
    now: () => 0,
    ...overrides,
  };
}
