/**
 * Names the conversation after its first exchange (the chat protocol's `conversation_title_update`), in a side
 * call that holds no lock: the next turn may start meanwhile. Its usage counts for the session. A
 * model that never answers is given up on: a few attempts per object's life, each bounded in time.
 */
import { makeTitle } from '../agent/title';
import type { SessionEvent } from '../protocol/session-events';
import type { ModelHandle } from '../providers/types';
import type { SessionStores } from './store/stores';
import type { UserLink } from './user-link';

/** Title attempts per session object before it gives up until it wakes again (a model that never answers). */
const MAX_TITLE_ATTEMPTS = 3;
/** A title is not worth a long wait: past this its call is abandoned. */
const TITLE_TIMEOUT_MS = 30_000;

export class Titles {
  private titling = false;
  private attempts = 0;
  /** Aborts the title call when the session is deleted. */
  private sideWork = new AbortController();

  constructor(
    private readonly stores: SessionStores,
    private readonly tell: (event: SessionEvent) => void,
    /** The user's quota allows the call, and counts it (docs/users.md). */
    private readonly users: Pick<UserLink, 'refusal' | 'spent' | 'changed'>,
  ) {}

  /** Never rejects: a side call with nobody to tell (a storage that went away with its object included). */
  async name(sessionId: string, model: ModelHandle): Promise<void> {
    try {
      await this.attempt(sessionId, model);
    } catch (error) {
      console.warn('no title', sessionId, error);
    }
  }

  private async attempt(sessionId: string, model: ModelHandle): Promise<void> {
    const { meta, history } = this.stores;
    if (this.titling || this.attempts >= MAX_TITLE_ATTEMPTS || meta.title() !== undefined || this.users.refusal()) return;
    this.titling = true;
    this.attempts++;
    // A timer of our own, cleared when the call ends: a pending timer would keep the object from
    // hibernating (as `AbortSignal.timeout` would, for its whole 30 s).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), TITLE_TIMEOUT_MS);
    try {
      const signal = AbortSignal.any([this.sideWork.signal, timeout.signal]);
      const result = await makeTitle(model, history.firstMessages(10), signal);
      if (!meta.exists()) return; // deleted meanwhile
      meta.addUsage(result.usage);
      this.users.spent({ model: model.id, usage: result.usage });
      if (!result.ok) return console.warn('no title', sessionId, result.error.code);
      meta.setTitle(result.title);
      this.users.changed(sessionId);
      this.tell({ type: 'session-titled', sessionId, title: result.title });
    } finally {
      clearTimeout(timer);
      this.titling = false;
    }
  }

  /** The session is being deleted: a title call on its way is abandoned. */
  abandon(): void {
    this.sideWork.abort();
    this.sideWork = new AbortController();
  }
}
