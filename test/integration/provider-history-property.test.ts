/**
 * No sequence of what models and clients do locks a session: whatever history a session holds, the
 * next call to a model that answers is not refused. Random sequences on one session:
 * - each turn on a model drawn from the stand-in's recordings and scripts of both APIs and from the
 *   Workers AI binding's stub (text, thinking signed and redacted, tool calls server and client,
 *   parallel calls, refusals, invented tools, cut streams, upstream errors, strict chat templates,
 *   Mistral's ids, Gemini's signatures...);
 * - client tools offered or not, answered with text, an image or an error;
 * - images, system messages and documents larger than a small model's window sent;
 * - slow turns cancelled, interrupted, steered or queued behind; user messages answered again or
 *   edited; through the turns API and the Harness door alike.
 * The stand-in refuses, in each real API's words, what the real one refuses (calls and results that
 * do not pair, blank text, another model's signatures, long ids, bad names, tool calls without tools,
 * a model's output limit, the binding's null content), so a turn on a model that answers must end as
 * the model ended it, never in an error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, fetchWorker, newSessionId, postTurn, readSse, session, user } from '../helpers/api';
import { running, SLOW } from '../helpers/busy';

/** Models that answer: a turn on one of them ends as the model ends it, whatever came before. */
const ANSWERING = [
  'anthropic:replay/anthropic/claude-sonnet-4-text-ping',
  'anthropic:replay/anthropic/claude-sonnet-4-single-tool-use',
  'anthropic:replay/anthropic/claude-sonnet-4-parallel-tool-use',
  'anthropic:replay/anthropic/claude-sonnet-4-thinking-signature-text',
  'anthropic:replay/anthropic/claude-sonnet-4-5-redacted-thinking',
  'anthropic:replay/anthropic/claude-fable-5-1-refusal',
  'anthropic:script/calc',
  'anthropic:script/loop',
  'anthropic:script/surrogate',
  'anthropic:script/blank',
  'anthropic:script/whole',
  'anthropic:script/pause',
  'anthropic:script/claude-3-haiku',
  'openai:replay/openai/gpt-4o-text-usage',
  'openai:replay/openai/gpt-4o-single-tool-call-usage',
  'openai:replay/openai/gpt-4o-parallel-tool-calls-usage',
  'openai:replay/openai/gpt-4o-refusal',
  'openai:replay/deepseek/deepseek-reasoner-reasoning-tool-call-cached',
  'openai:replay/groq/kimi-k2-parallel-tool-calls-x-groq-usage',
  'openai:replay/llamacpp/gpt-oss-20b-reasoning-tool-call-timings',
  'openai:replay/openrouter/claude-haiku-4-5-parallel-tool-calls',
  'openai:replay/xai/grok-code-fast-reasoning-tool-call-cached',
  'openai:script/calc',
  'openai:script/invent',
  'openai:script/strict',
  'openai:script/mistral',
  'openai:script/gemini',
  'openai:script/azure',
  'openai:script/reasoning',
  'openai:script/nodone',
  'openai:script/think',
  // A 3,000-token window: a long history is compacted, its summary made by this model.
  'openai:script/echo',
  // A 2,000-token window the deployment does not know, named in its overflow.
  'openai:script/llamacpp',
  // The Workers AI binding, which refuses what its schema does not take (test/helpers/ai-binding-stub.mjs).
  'workers-ai:stub/text',
  'workers-ai:stub/native-tool',
  'workers-ai:stub/openai-tools',
  'workers-ai:stub/client-tool',
  'workers-ai:stub/pieces',
  'workers-ai:stub/reasoning',
  'workers-ai:stub/whole',
];

/** Models that fail their turn (a cut stream, an error mid-answer or before it): what they leave must not lock the session. */
const FAILING = [
  'anthropic:cut/anthropic/claude-sonnet-4-parallel-tool-use',
  'anthropic:cut/anthropic/claude-sonnet-4-thinking-signature-text',
  'anthropic:script/overloaded',
  'openai:cut/openai/gpt-4o-parallel-tool-calls-usage',
  'openai:cut/deepseek/deepseek-reasoner-reasoning-tool-call-cached',
  'openai:replay/groq/gpt-oss-120b-reasoning-tool-use-failed-error',
  'openai:replay/openrouter/minimax-m2-reasoning-length-midstream-error',
  'openai:status/500',
  'workers-ai:stub/cut',
  'workers-ai:stub/unavailable',
];

/**
 * The recordings' tools, offered as client tools: their calls wait for the client. Some, all or none
 * are offered: a call to one not offered gets its error at once, beside calls that wait.
 */
const CLIENT_TOOLS = [{ name: 'weather' }, { name: 'add' }, { name: 'multiply' }];

/** A 1x1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Past this many characters a user message is a pasted document (`Turn`'s is 16,000 and more). */
const PASTED_CHARS = 4000;

type Model = {
  id: string;
  pending: { toolCallId: string; name: string; input: Record<string, unknown>; awaiting: string }[];
  pendingModel?: string;
  /** The user messages of the active branch, which a branch may start from, and where an edit of each continues from. */
  /** `long`: a document larger than the smallest window, which a turn answering it again may not fit. */
  users: { id: string; editFrom: string | null; long: boolean }[];
};

/**
 * A turn's JSON answer, checked: a model that answers ends its turn as it ends it, and a turn that
 * brings a short message always fits (the history is compacted whatever it holds).
 */
async function post(model: Model, body: Record<string, unknown>, answering: boolean, short = true): Promise<void> {
  const response = await postTurn(model.id, { ...body, stream: 'none' });
  const json: any = await response.json();
  expect(response.status, JSON.stringify(json)).toBe(200);
  if (answering) expect(json.stopReason, `${String(body.model)}: ${JSON.stringify(json.error)}`).not.toBe('error');
  if (short) expect(json.error?.code, String(body.model)).not.toBe('context_full');
}

/** A Harness run on the same session: the turn it ran ends as its model ends it. */
async function harness(model: Model, body: Record<string, unknown>, on: string): Promise<void> {
  const response = await fetchWorker('/harness/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ sessionId: model.id, userId: 'local', chatModel: { name: on }, ...body }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  await lastTurnEnded(model, on);
}

/** The session's last turn, on a model that answers, ended as the model ended it. */
async function lastTurnEnded(model: Model, on: string, answering = ANSWERING.includes(on)): Promise<void> {
  const { body } = await session(model.id);
  if (answering) expect(body.lastTurn?.stopReason, `${on}: ${body.lastTurn?.errorCode}`).not.toBe('error');
}

/** What the session waits for now, as the model keeps it; its history checked to pair calls and results. */
async function observe(model: Model): Promise<void> {
  const { status, body } = await session(model.id);
  expect(status).toBe(200);
  expect(body.running).toBe(false);
  model.pending = body.pendingToolCalls.map(({ toolCallId, name, input, awaiting }: any) => ({ toolCallId, name, input, awaiting }));
  const page: any = await (await fetchWorker(`/sessions/${model.id}/messages?limit=500`)).json();
  checkHistoryInvariants(page.messages, model.pending.map((call) => call.toolCallId));
  // A system message is no place to continue from: an edit continues from the message before it.
  const byId = new Map(page.messages.map((message: any) => [message.id, message]));
  const editFrom = (message: any): string | null => {
    let parent: any = byId.get(message.parentId);
    while (parent?.role === 'system') parent = byId.get(parent.parentId);
    return parent?.id ?? null;
  };
  model.users = page.messages
    .filter((message: any) => message.role === 'user')
    .map((message: any) => ({ id: message.id, editFrom: editFrom(message), long: JSON.stringify(message.content).length > PASTED_CHARS }));
}

class Turn implements fc.AsyncCommand<Model, Model> {
  constructor(
    readonly on: string,
    readonly tools: typeof CLIENT_TOOLS,
    readonly content: 'text' | 'blank' | 'image' | 'system' | 'pasted',
    readonly door: 'turns' | 'harness',
  ) {}
  check = (model: Readonly<Model>) => model.pending.length === 0;
  async run(_: Model, model: Model) {
    // A pasted document larger than the smallest window (script/echo's 3,000 tokens).
    const text = this.content === 'blank' ? ' \n' : this.content === 'pasted' ? `turn on ${this.on}: ${'lorem ipsum dolor sit amet '.repeat(600)}` : `turn on ${this.on}`;
    if (this.door === 'harness') await harness(model, { input: `turn on ${this.on}`, ...(this.tools.length > 0 ? { tools: this.tools } : {}) }, this.on);
    else await this.post(model, text);
    await observe(model);
    if (model.pending.length > 0) model.pendingModel = this.on;
  }
  private async post(model: Model, text: string) {
    const messages = [
      ...(this.content === 'system' ? [{ role: 'system', content: 'Answer briefly.' }] : []),
      this.content === 'image' ? { role: 'user', content: [{ type: 'text', text }, { type: 'image', mimeType: 'image/png', data: PNG }] } : user(text),
    ];
    await post(model, { messages, model: this.on, ...(this.tools.length > 0 ? { tools: this.tools } : {}) }, ANSWERING.includes(this.on), this.content !== 'pasted');
  }
  toString = () => `Turn(${this.door}, ${this.on}, tools=${this.tools.map((tool) => tool.name).join('+')}, ${this.content})`;
}

class Answer implements fc.AsyncCommand<Model, Model> {
  constructor(
    readonly as: 'text' | 'image' | 'error',
    readonly door: 'turns' | 'harness',
  ) {}
  check = (model: Readonly<Model>) => model.pending.length > 0;
  async run(_: Model, model: Model) {
    if (this.door === 'harness') {
      const output = this.as === 'image' ? [{ type: 'data', source: { type: 'base64', media_type: 'image/png', data: PNG }, id: 'img_1', name: 'map.png' }] : [{ type: 'text', text: this.as === 'error' ? 'no such city' : 'sunny' }];
      const results = model.pending.filter((call) => call.awaiting === 'client').map((call) => ({ id: call.toolCallId, name: call.name, output, ...(this.as === 'error' ? { state: 'error' } : {}) }));
      const confirms = model.pending
        .filter((call) => call.awaiting === 'permission')
        .map((call) => ({ confirmed: true, toolCall: { id: call.toolCallId, name: call.name, input: call.input, content: null }, rules: null }));
      await harness(model, { toolResults: results, confirmResults: confirms }, model.pendingModel!);
      await observe(model);
      return;
    }
    const content = this.as === 'image' ? [{ type: 'image', mimeType: 'image/png', data: PNG }] : this.as === 'error' ? 'no such city' : 'sunny, 21 degrees';
    const messages = model.pending.map((call) =>
      call.awaiting === 'client' ? { role: 'tool', toolCallId: call.toolCallId, content, ...(this.as === 'error' ? { isError: true } : {}) } : { role: 'tool_permission', toolCallId: call.toolCallId, granted: true },
    );
    // The model that made the calls hears their results: thinking it signed goes back to it alone.
    await post(model, { messages, model: model.pendingModel }, ANSWERING.includes(model.pendingModel!));
    await observe(model);
  }
  toString = () => `Answer(${this.door}, ${this.as})`;
}

/** A slow turn, then a cancel or a second message on a model that answers, sent while it runs. */
class Cut implements fc.AsyncCommand<Model, Model> {
  constructor(
    readonly how: 'cancel' | 'interrupt' | 'steer' | 'enqueue',
    readonly on: string,
  ) {}
  check = (model: Readonly<Model>) => model.pending.length === 0;
  async run(_: Model, model: Model) {
    const slow = await running(model.id, 'count slowly');
    if (this.how === 'cancel') {
      const cancelled = await fetchWorker(`/sessions/${model.id}/turns/${slow.turnId}/cancel`, { method: 'POST' });
      expect(cancelled.status).toBeLessThan(500);
      await cancelled.arrayBuffer();
      await slow.rest;
    } else {
      const second = await postTurn(model.id, { messages: [user(`and now ${this.on}`)], model: this.on, ifBusy: this.how, stream: 'delta' });
      // A queued turn (202) runs after the slow one, a steer (202) joins it; an interrupt streams its own turn.
      expect(second.status).toBe(this.how === 'interrupt' ? 200 : 202);
      const [events] = await Promise.all([this.how === 'interrupt' ? readSse(second) : second.arrayBuffer().then(() => []), slow.rest]);
      const stop = events.findLast((event) => event.event === 'turn_stop');
      if (stop) expect(stop.data.stopReason, `${this.on}: ${JSON.stringify(stop.data.error)}`).not.toBe('error');
    }
    for (let tries = 0; tries < 100 && (await session(model.id)).body.running; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    // The queued turn, the interrupting one, or the slow one the steer joined, ended as its model ended it.
    if (this.how === 'steer') await lastTurnEnded(model, SLOW, true);
    else if (this.how !== 'cancel') await lastTurnEnded(model, this.on);
    await observe(model);
    if (model.pending.length > 0) model.pendingModel = this.on;
  }
  toString = () => `Cut(${this.how}, ${this.on})`;
}

/** A turn on another branch: the model answers a user message again, or answers it edited. */
class Branch implements fc.AsyncCommand<Model, Model> {
  constructor(
    readonly how: 'regenerate' | 'edit',
    readonly pick: number,
    readonly on: string,
  ) {}
  check = (model: Readonly<Model>) => model.users.length > 0;
  async run(_: Model, model: Model) {
    const from = model.users[Math.floor(this.pick * model.users.length)]!;
    const body = this.how === 'regenerate' ? { parentId: from.id, messages: [] } : { parentId: from.editFrom, messages: [user(`edited for ${this.on}`)] };
    // Answered again, a pasted document is again larger than a small window; an edit replaces it.
    await post(model, { ...body, model: this.on }, ANSWERING.includes(this.on), this.how === 'edit' || !from.long);
    await observe(model);
    if (model.pending.length > 0) model.pendingModel = this.on;
  }
  toString = () => `Branch(${this.how}, ${this.pick.toFixed(2)}, ${this.on})`;
}

const answering = fc.constantFrom(...ANSWERING);
const door = fc.constantFrom('turns' as const, 'harness' as const);
const commands = [
  fc.tuple(fc.oneof({ arbitrary: answering, weight: 3 }, { arbitrary: fc.constantFrom(...FAILING), weight: 1 }), fc.subarray(CLIENT_TOOLS), fc.constantFrom('text' as const, 'blank' as const, 'image' as const, 'system' as const, 'pasted' as const), door).map(
    ([on, tools, content, through]) => new Turn(on, tools, content, through),
  ),
  fc.tuple(fc.constantFrom('text' as const, 'image' as const, 'error' as const), door).map(([as, through]) => new Answer(as, through)),
  fc.tuple(fc.constantFrom('cancel' as const, 'interrupt' as const, 'steer' as const, 'enqueue' as const), answering).map(([how, on]) => new Cut(how, on)),
  fc.tuple(fc.constantFrom('regenerate' as const, 'edit' as const), fc.double({ min: 0, max: 0.999, noNaN: true }), answering).map(([how, pick, on]) => new Branch(how, pick, on)),
];

describe('a session, whatever its history', () => {
  it('is never refused by a model that answers, after any sequence of turns, answers, cuts and branches on both APIs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 10, size: 'max' }), async (cmds) => {
        const model: Model = { id: newSessionId('any-history'), pending: [], users: [] };
        await fc.asyncModelRun(() => ({ model, real: model }), cmds);
      }),
      { numRuns: 15 },
    );
    // Fifteen runs of up to ten commands, about 25 s; a run of 300 found the strict template's lock
    // (docs/decisions.md 36), a run of 200 the calibration's (docs/history.md, "Overflow"). The limit
    // is a guard against a hang, not a measure of speed.
  }, 240_000);
});
