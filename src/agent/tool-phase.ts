/**
 * Running server tools: the calls of a batch run at once, up to `concurrency` of them (a model may
 * ask for forty in one response; the rest start as slots free up, in call order), each ends with a result the model will
 * read (a failure is a result with `isError`, never a failed turn), and the results come back in the
 * order of the calls, whatever order they finished in.
 */
import type { ToolMessage, ToolResultContent } from '../api/content';
import type { ToolRegistry } from '../tools/registry';
import { ToolError, type ToolContext } from '../tools/types';
import type { AssembledToolCall } from './block-assembler';
import type { AgentEvent, Emit, ToolResultState } from './events';
import { toolResult } from './history';

/** The result a denied call gets, with the user's reason when they gave one. */
export function denialText(reason: string | undefined): string {
  return reason ? `Tool call denied: ${reason}` : 'Tool call denied';
}

/** A call to run on the server: a tool call as the model's stream assembled it. */
export type ServerCall = AssembledToolCall;

export type ToolPhaseOptions = {
  tools: ToolRegistry;
  context: Omit<ToolContext, 'signal'>;
  signal: AbortSignal;
  emit: Emit;
  timeoutMs: number;
  /** How many calls run at once; all of the batch when unset. */
  concurrency?: number;
};

export const INTERRUPTED_TEXT = 'Tool execution was interrupted';

export async function runServerTools(calls: ServerCall[], options: ToolPhaseOptions): Promise<ToolMessage[]> {
  const results: ToolMessage[] = new Array(calls.length);
  let next = 0;
  // Each worker takes the next call not yet started: at most `concurrency` run at any time.
  const worker = async () => {
    for (let index = next++; index < calls.length; index = next++) {
      const call = calls[index];
      if (call) results[index] = await runOne(call, options);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? calls.length, calls.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

async function runOne(call: ServerCall, options: ToolPhaseOptions): Promise<ToolMessage> {
  options.emit({ type: 'tool-execution-start', toolCallId: call.toolCallId, name: call.name, input: call.input });
  const { content, state } = await execute(call, options);
  const isError = state !== 'success';
  options.emit({ type: 'tool-execution-end', toolCallId: call.toolCallId, name: call.name, content, isError, state, at: options.context.now().getTime() });
  return toolResult(call.toolCallId, { content, isError });
}

type Outcome = { content: ToolResultContent; state: ToolResultState };

async function execute(call: ServerCall, options: ToolPhaseOptions): Promise<Outcome> {
  if (call.invalidArguments !== undefined) {
    return { state: 'error', content: `${call.invalidReason ?? 'The arguments were not a JSON object'}: ${call.invalidArguments.slice(0, 500)}` };
  }
  const tool = options.tools.get(call.name);
  if (!tool) return { state: 'error', content: `Unknown tool "${call.name}".` };
  const parsed = tool.inputSchema.safeParse(call.input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`);
    return { state: 'error', content: `Invalid input for ${call.name}: ${problems.join('; ')}` };
  }

  const controller = new AbortController();
  const stop = () => controller.abort();
  options.signal.addEventListener('abort', stop, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const interrupted = new Promise<Outcome>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve({ state: 'interrupted', content: INTERRUPTED_TEXT }), { once: true });
    timer = setTimeout(() => {
      resolve({ state: 'error', content: `${call.name} did not finish within ${options.timeoutMs} ms.` });
      controller.abort();
    }, options.timeoutMs);
  });
  try {
    if (options.signal.aborted) return { state: 'interrupted', content: INTERRUPTED_TEXT };
    const run = tool
      .execute(parsed.data, {
        ...options.context,
        signal: controller.signal,
        progress: ({ progress, detail }) => {
          if (!controller.signal.aborted) options.emit({ type: 'tool-progress', toolCallId: call.toolCallId, name: call.name, input: call.input, progress, detail });
        },
        report: (report) => {
          if (controller.signal.aborted) return;
          if (report.kind === 'exposed') options.emit({ type: 'subagent-exposed', toolCallId: call.toolCallId, subagentId: report.subagentId, agentId: report.agentId, sessionId: report.sessionId, label: report.label });
          else options.emit({ type: 'subagent-event', toolCallId: call.toolCallId, source: report.source, sessionId: report.sessionId, event: report.event as AgentEvent });
        },
      })
      .then((content): Outcome => ({ state: 'success', content }));
    return await Promise.race([run, interrupted]);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { state: 'error', content: error instanceof ToolError ? message : `${call.name} failed: ${message}` };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    options.signal.removeEventListener('abort', stop);
  }
}
