/**
 * The messages steered into a running turn (src/session/steering.ts): taken by the loop they stay
 * in the session's queue until told, so their removal and their events are one commit; once taken
 * they can no longer be withdrawn (they may be on their way to the model).
 */
import { describe, expect, it } from 'vitest';
import type { UserMessage } from '../../src/api/content';
import { SteeringInbox } from '../../src/session/steering';
import type { SessionStores } from '../../src/session/store/stores';

/** The two stores the inbox writes, as a log of what it did to them. */
function stores() {
  const done: string[] = [];
  const fake = { queue: { remove: (id: string) => (done.push(`queue.remove ${id}`), true) }, turns: { forget: (id: string) => void done.push(`turns.forget ${id}`) } };
  return { done, stores: fake as unknown as SessionStores };
}

const message = (content: string): UserMessage => ({ role: 'user', content });

describe('the steering inbox', () => {
  it('hands the loop what waits, and lets it leave the queue only when told', () => {
    const { done, stores: fake } = stores();
    const inbox = new SteeringInbox(fake);
    inbox.add([message('a')], 'turn_a');
    inbox.add([message('b'), message('c')], 'turn_b');
    expect(inbox.take().map((taken) => taken.content)).toEqual(['a', 'b', 'c']);
    expect(done).toEqual([]);
    expect(inbox.take()).toEqual([]);
    inbox.told();
    expect(done).toEqual(['queue.remove turn_a', 'turns.forget turn_a', 'queue.remove turn_b', 'turns.forget turn_b']);
    inbox.told();
    expect(done).toHaveLength(4);
  });

  it('withdraws a batch the loop has not taken; refuses one it has, until it is told', () => {
    const { done, stores: fake } = stores();
    const inbox = new SteeringInbox(fake);
    inbox.add([message('a')], 'turn_a');
    inbox.add([message('b')], 'turn_b');
    expect(inbox.withdraw('turn_a')).toBe(true);
    expect(inbox.take().map((taken) => taken.content)).toEqual(['b']);
    expect(inbox.withdraw('turn_b')).toBe(false);
    inbox.add([message('c')], 'turn_c');
    expect(inbox.withdraw('turn_c')).toBe(true);
    inbox.told();
    expect(done).toEqual(['queue.remove turn_b', 'turns.forget turn_b']);
    expect(inbox.take()).toEqual([]);
  });
});
