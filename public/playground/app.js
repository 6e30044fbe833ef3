// The playground: a page on the typed client (client.js, bundled from client/src by
// scripts/build-playground.mjs). The token, the model and the open session are kept in this browser's
// localStorage; the list of sessions, the usage and everything else come from the API. An exchange runs with `run()`, which asks this page for permissions and for
// the answers of its client tool; a page reloaded mid-exchange replays the exchange's turns from
// their event logs and follows the running one live.
import { createClient } from './client.js';

const $ = (selector) => document.querySelector(selector);
const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

const saved = (key, fallback) => JSON.parse(localStorage.getItem(`playground.${key}`) ?? 'null') ?? fallback;
const save = (key, value) => (value === null ? localStorage.removeItem(`playground.${key}`) : localStorage.setItem(`playground.${key}`, JSON.stringify(value)));

/** The page's own client tool: the model asks the user, the user types the answer. */
const CLIENT_TOOLS = {
  ask_user: {
    description: 'Ask the user a question; the result is their answer.',
    parameters: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
    run: (_input, call) => askUser(call),
  },
};

let current = null;
/** Tool cards by call id: results and prompts find their card wherever it is. */
const cards = new Map();
let view = null;

function api() {
  const token = $('#token').value.trim();
  return createClient({ baseUrl: location.origin, ...(token ? { token } : {}) });
}

function status(text) {
  $('#status').textContent = text;
}

function scrollDown() {
  const list = $('#conversation');
  list.scrollTop = list.scrollHeight;
}

function plain(content) {
  if (typeof content === 'string') return content;
  return content.map((block) => (block.type === 'text' ? block.text : block.type === 'image' ? '[image]' : '')).join('\n');
}

// --- rendering ------------------------------------------------------------------------------

/** One assistant turn as it streams: thinking and text blocks, tool cards, how it stopped. */
class TurnView {
  constructor() {
    this.item = el('li', 'assistant');
    $('#conversation').append(this.item);
    this.block = null;
  }

  append(kind, delta) {
    if (this.block?.kind !== kind) {
      this.block = { kind, node: el('div', kind, '') };
      this.item.append(this.block.node);
    }
    this.block.node.textContent += delta;
    scrollDown();
  }

  event(event) {
    switch (event.event) {
      case 'turn_start':
        this.item.dataset.turnId = event.data.turnId;
        status(`Turn ${event.data.turnId} on ${event.data.model}…`);
        break;
      case 'thinking_delta':
        this.append('thinking', event.data.delta);
        break;
      case 'text_delta':
        this.append('text', event.data.delta);
        break;
      case 'tool_call':
        this.block = null;
        this.item.append(toolCard(event.data));
        break;
      case 'tool_result':
        showResult(event.data.toolCallId, event.data.content, event.data.isError);
        break;
      case 'turn_stop': {
        const { stopReason, error } = event.data;
        const line = el('div', error ? 'stop error' : 'stop', error ? `${stopReason}: ${error.message}` : `stopped: ${stopReason}`);
        line.dataset.stopReason = stopReason;
        this.item.append(line);
        status('');
        break;
      }
    }
  }
}

function toolCard({ toolCallId, name, input }) {
  const card = el('div', 'tool');
  card.dataset.toolCallId = toolCallId;
  const head = el('header');
  head.append(el('span', 'name', name), el('span', 'state', 'called'));
  card.append(head, el('pre', 'args', JSON.stringify(input, null, 2)));
  cards.set(toolCallId, card);
  return card;
}

function setState(toolCallId, text) {
  const state = cards.get(toolCallId)?.querySelector('.state');
  if (state) state.textContent = text;
}

function showResult(toolCallId, content, isError) {
  const card = cards.get(toolCallId);
  if (!card) return;
  card.querySelector('.actions')?.remove();
  card.querySelector('.result')?.remove();
  card.append(el('pre', isError ? 'result error' : 'result', plain(content)));
  setState(toolCallId, isError ? 'error' : 'done');
  scrollDown();
}

/** A card for a call that waits but was not rendered on this page (another tab asked for it). */
function cardFor(call) {
  if (cards.has(call.toolCallId)) return cards.get(call.toolCallId);
  const item = el('li', 'assistant');
  item.append(toolCard(call));
  $('#conversation').append(item);
  return cards.get(call.toolCallId);
}

function askPermission(call) {
  return new Promise((resolve) => {
    const card = cardFor(call);
    setState(call.toolCallId, 'needs your permission');
    const actions = el('div', 'actions');
    const approve = el('button', 'approve', 'Approve');
    const deny = el('button', 'deny', 'Deny');
    const reason = el('input', 'reason');
    reason.placeholder = 'Reason for a denial (optional)';
    approve.type = deny.type = 'button';
    approve.onclick = () => {
      actions.remove();
      setState(call.toolCallId, 'approved');
      resolve({ granted: true });
    };
    deny.onclick = () => {
      actions.remove();
      setState(call.toolCallId, 'denied');
      const why = reason.value.trim();
      resolve(why ? { granted: false, reason: why } : { granted: false });
    };
    actions.append(approve, deny, reason);
    card.append(actions);
    scrollDown();
  });
}

function askUser(call) {
  return new Promise((resolve) => {
    const card = cardFor(call);
    setState(call.toolCallId, 'waiting for your answer');
    const actions = el('div', 'actions');
    const answer = el('textarea', 'answer');
    answer.rows = 1;
    answer.placeholder = String(call.input.question ?? 'Your answer');
    const send = el('button', 'send-answer', 'Send answer');
    send.type = 'button';
    send.onclick = () => {
      actions.remove();
      showResult(call.toolCallId, answer.value, false);
      resolve(answer.value);
    };
    actions.append(answer, send);
    card.append(actions);
    scrollDown();
  });
}

/**
 * A user message, with its branch switcher ("< 2 / 3 >") where it has siblings, and an edit button:
 * an edit continues from the message's parent on a new branch (docs/branches.md).
 */
function userItem(message) {
  const item = el('li', 'user');
  item.append(el('span', 'content', plain(message.content)));
  if (!message.id) return item;
  item.dataset.messageId = message.id;
  const tools = el('div', 'branch');
  const siblings = message.siblingIds ?? [];
  if (siblings.length > 1) {
    const at = siblings.indexOf(message.id);
    const step = (delta, label) => {
      const button = el('button', 'step', label);
      button.type = 'button';
      button.disabled = siblings[at + delta] === undefined;
      button.onclick = () => switchTo(siblings[at + delta]);
      return button;
    };
    tools.append(step(-1, '<'), el('span', 'position', `${at + 1} / ${siblings.length}`), step(1, '>'));
  }
  const edit = el('button', 'edit', 'edit');
  edit.type = 'button';
  edit.onclick = () => {
    const text = prompt('Edit this message (the answer after it goes on a new branch):', plain(message.content));
    if (text?.trim()) void send(text.trim(), message.parentId ?? null);
  };
  tools.append(edit);
  item.append(tools);
  return item;
}

/** Makes active the latest branch that holds the message `messageId`, and draws it. */
async function switchTo(messageId) {
  const client = api();
  const branches = (await client.sessions.branches(current)).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  for (const branch of branches) {
    const page = await client.sessions.messages(current, { leaf: branch.leafId, limit: 500 });
    if (!page.messages.some((message) => message.id === messageId)) continue;
    await client.sessions.activate(current, branch.leafId);
    return open(current);
  }
}

function renderHistory(messages) {
  for (const message of messages) {
    if (message.role === 'user') $('#conversation').append(userItem(message));
    else if (message.role === 'system') $('#conversation').append(el('li', 'note', `system: ${plain(message.content)}`));
    else if (message.role === 'compaction') $('#conversation').append(el('li', 'note', `${message.summarizedMessages} earlier messages are summarised for the model.`));
    else if (message.role === 'tool') showResult(message.toolCallId, message.content, message.isError);
    else if (message.role === 'assistant') {
      const turn = new TurnView();
      const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      for (const block of blocks) {
        if (block.type === 'thinking') turn.append('thinking', block.thinking);
        else if (block.type === 'text') turn.append('text', block.text);
        else if (block.type === 'tool_use') {
          turn.block = null;
          turn.item.append(toolCard({ toolCallId: block.toolCallId, name: block.name, input: block.input }));
        }
      }
    }
  }
}

async function allMessages(sessionId) {
  const messages = [];
  let cursor;
  do {
    const page = await api().sessions.messages(sessionId, { limit: 500, ...(cursor ? { cursor } : {}) });
    messages.push(...page.messages);
    cursor = page.next;
  } while (cursor);
  return messages;
}

// --- sessions -------------------------------------------------------------------------------

/**
 * The user's sessions, from the service (`GET /sessions`, newest change first): a sub-agent's or a
 * fork's session shows where it came from. A new session shows once it has its first turn; until
 * then it is listed here alone.
 */
async function renderSessions() {
  // Drawn at once from the last list (the open session marked), then again from the service's.
  drawSessions();
  try {
    listed = (await api().sessions.list({ limit: 50 })).sessions;
  } catch {
    listed = [];
  }
  drawSessions();
  void renderUsage();
}

/** The sessions last listed by the service. */
let listed = [];

function drawSessions() {
  const entries = [...listed];
  if (current && !entries.some((entry) => entry.sessionId === current)) entries.unshift({ sessionId: current });
  const list = $('#sessions');
  list.replaceChildren();
  for (const entry of entries) {
    const item = el('li');
    const button = el('button', '', entry.title ?? (entry.messageCount ? 'Untitled' : 'New session'));
    button.type = 'button';
    button.dataset.sessionId = entry.sessionId;
    const badges = [entry.running ? 'running' : '', entry.pendingToolCalls ? `${entry.pendingToolCalls} waiting` : ''].filter(Boolean).join(' · ');
    button.append(el('small', '', entry.parentSessionId ? `from ${entry.parentSessionId}` : entry.sessionId));
    if (badges) button.append(el('small', 'badges', badges));
    if (entry.sessionId === current) button.setAttribute('aria-current', 'true');
    button.onclick = () => open(entry.sessionId);
    item.append(button);
    list.append(item);
  }
}

/** Today's usage of the user, over every session and door, against the deployment's daily limits. */
async function renderUsage() {
  const panel = $('#user-usage');
  try {
    const me = await api().me.get();
    const usage = me.today.usage;
    const cost = usage.costUsd === null ? '' : ` · $${usage.costUsd.toFixed(4)}`;
    const limits = [me.limits.dailyTokens ? `${me.limits.dailyTokens} tokens` : '', me.limits.dailyCostUsd ? `$${me.limits.dailyCostUsd}` : ''].filter(Boolean).join(' or ');
    panel.replaceChildren(
      el('strong', '', 'Today'),
      el('span', 'calls', `${usage.calls} model calls`),
      el('span', 'tokens', `${usage.inputTokens} in · ${usage.outputTokens} out tokens${cost}`),
      el('span', 'limits', limits ? `limit: ${limits} a day` : 'no daily limit'),
    );
  } catch {
    panel.replaceChildren(el('span', '', 'usage unavailable'));
  }
}

function remember() {
  void renderSessions();
}

async function refreshSession() {
  if (!current) return;
  try {
    const session = await api().sessions.get(current);
    $('#usage').textContent = `usage: ${session.usage.inputTokens} in · ${session.usage.outputTokens} out tokens · ${session.messageCount} messages`;
    remember();
    return session;
  } catch {
    $('#usage').textContent = 'no usage yet';
    return undefined;
  }
}

async function open(sessionId) {
  current = sessionId;
  save('current', sessionId);
  cards.clear();
  $('#conversation').replaceChildren();
  void renderSessions();
  const session = await refreshSession();
  if (!session) return;
  const messages = await allMessages(sessionId);
  const live = saved('live', null);
  if (live?.sessionId === sessionId) return resume(live, messages, session);
  renderHistory(messages);
  // Calls that wait (asked on another page, or before this one was reloaded): asked again here.
  if (session.pendingToolCalls.length > 0) await answerPending(session.pendingToolCalls);
}

// --- exchanges ------------------------------------------------------------------------------

function onEvent(event) {
  if (event.event === 'turn_start') {
    view = new TurnView();
    const live = saved('live', null);
    if (live) save('live', { ...live, turnIds: [...live.turnIds, event.data.turnId] });
  }
  view?.event(event);
  if (event.event === 'turn_stop') void refreshSession();
}

/** While a turn runs, the composer stays open: a message then steers the turn or waits in the queue (`#if-busy`). */
function setBusy(busy) {
  answering = busy;
  document.body.classList.toggle('answering', busy);
}

let answering = false;

/** A message sent while the agent answers: handed to the running turn, or queued (then followed when it runs). */
async function sendWhileBusy(text) {
  const ifBusy = $('#if-busy').value;
  const note = el('li', 'user', text);
  $('#conversation').append(note);
  scrollDown();
  try {
    const accepted = await api().turns.submit(current, { messages: [{ role: 'user', content: text }], ifBusy });
    if (!('status' in accepted)) return void (await refreshSession());
    note.dataset.accepted = accepted.status;
    note.title = accepted.status === 'queued' ? `queued (position ${accepted.position})` : 'steered into the running answer';
    if (accepted.status === 'queued') await followQueued(accepted.turnId);
  } catch (error) {
    status(`Error: ${error.message}`);
  }
}

/** A queued turn's events, drawn as they come once it runs. */
async function followQueued(turnId) {
  for await (const event of api().turns.follow(current, turnId)) onEvent(event);
  await refreshSession();
}

/** Runs an exchange from these messages to its end: the turns, the prompts, the answers. */
async function exchange(messages, parentId) {
  setBusy(true);
  try {
    const model = $('#model').value.trim();
    const branch = parentId !== undefined ? { parentId } : {};
    await api().run(current, { messages, tools: CLIENT_TOOLS, onPermission: askPermission, onEvent, ...(model ? { model } : {}), ...branch });
  } catch (error) {
    status(`Error: ${error.message}`);
  } finally {
    save('live', null);
    setBusy(false);
    await refreshSession();
  }
}

async function answerPending(pending) {
  const answers = await Promise.all(
    pending.map(async (call) => {
      if (call.awaiting === 'permission') {
        const permission = await askPermission(call);
        return { role: 'tool_permission', toolCallId: call.toolCallId, ...permission };
      }
      const tool = CLIENT_TOOLS[call.name];
      if (!tool) return { role: 'tool', toolCallId: call.toolCallId, content: `This page has no tool ${call.name}.`, isError: true };
      return { role: 'tool', toolCallId: call.toolCallId, content: await tool.run(call.input, call) };
    }),
  );
  await exchange(answers);
}

/**
 * After a reload mid-exchange: the history as it was before the exchange, the request, then each
 * turn of the exchange from its event log (the running one goes on live), then what is still owed.
 */
async function resume(live, messages, session) {
  // Reloaded before the first turn was named: the running one is it, if the request got there.
  const turnIds = live.turnIds.length > 0 ? live.turnIds : session.runningTurnId ? [session.runningTurnId] : [];
  save('live', { ...live, turnIds });
  let seen = 0;
  renderHistory(messages.filter((message) => message.role === 'compaction' || seen++ < live.keep));
  $('#conversation').append(el('li', 'user', live.text));
  setBusy(true);
  let stop;
  try {
    for (const turnId of turnIds) {
      view = new TurnView();
      for await (const event of api().turns.follow(current, turnId, 0)) {
        view.event(event);
        if (event.event === 'turn_stop') stop = event.data;
      }
    }
  } catch (error) {
    status(`Could not resume: ${error.message}`);
  }
  // Client answers are not events: their results come from the history.
  for (const message of await allMessages(current)) if (message.role === 'tool' && !cards.get(message.toolCallId)?.querySelector('.result')) showResult(message.toolCallId, message.content, message.isError);
  const after = await refreshSession();
  setBusy(false);
  if (stop?.stopReason === 'tool_use' && after?.pendingToolCalls.length) return answerPending(after.pendingToolCalls);
  save('live', null);
}

/** Sends a message: after the active leaf, or (an edit) after `parentId` on a new branch, drawn once it stands. */
async function send(text, parentId) {
  if (!current) newSession();
  remember();
  if (parentId !== undefined) {
    await exchange([{ role: 'user', content: text }], parentId);
    return open(current);
  }
  const before = (await refreshSession())?.messageCount ?? 0;
  save('live', { sessionId: current, keep: before, text, turnIds: [] });
  $('#conversation').append(el('li', 'user', text));
  scrollDown();
  await exchange([{ role: 'user', content: text }]);
}

function newSession() {
  const id = `pg-${crypto.randomUUID().slice(0, 8)}`;
  current = id;
  save('current', id);
  cards.clear();
  $('#conversation').replaceChildren();
  $('#usage').textContent = 'no usage yet';
  void renderSessions();
}

// --- wiring ---------------------------------------------------------------------------------

$('#token').value = saved('token', '');
$('#token').onchange = () => {
  save('token', $('#token').value.trim() || null);
  void renderSessions();
};
$('#model').value = saved('model', '');
$('#model').onchange = () => save('model', $('#model').value.trim() || null);
$('#new-session').onclick = () => newSession();
$('#composer').onsubmit = (event) => {
  event.preventDefault();
  const text = $('#prompt').value.trim();
  if (!text) return;
  $('#prompt').value = '';
  void (answering ? sendWhileBusy(text) : send(text));
};
$('#prompt').onkeydown = (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    $('#composer').requestSubmit();
  }
};

void renderSessions();
const last = saved('live', null)?.sessionId ?? saved('current', null);
if (last) void open(last);
