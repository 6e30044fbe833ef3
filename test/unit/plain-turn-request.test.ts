/**
 * The hand-read turn request (src/api/plain-turn-request.ts) against the schema it shortcuts: for any
 * JSON, it gives nothing or exactly what `turnRequestSchema` gives, it gives nothing for whatever the
 * schema refuses, and it takes the plain requests clients send.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainTurnRequest } from '../../src/api/plain-turn-request';
import { turnRequestSchema } from '../../src/api/turn-request';

/** Values near a request's shape, as JSON.parse would give them. (`undefined` stands for an absent key.) */
const odd = fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}));
const maybe = <T>(value: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, { arbitrary: value, weight: 4 }, { arbitrary: odd, weight: 1 });
const message = fc.oneof(
  { arbitrary: fc.record({ role: fc.constant('user'), content: fc.string() }), weight: 8 },
  { arbitrary: fc.record({ role: fc.constantFrom('system', 'assistant', 'tool', 'tool_permission', 'User'), content: fc.string() }), weight: 1 },
  { arbitrary: fc.record({ role: fc.constant('user'), content: fc.oneof(fc.constant([{ type: 'text', text: 'hi' }]), fc.constant([]), odd) }), weight: 1 },
  { arbitrary: fc.record({ role: fc.constant('user'), content: fc.string(), id: fc.string() }), weight: 1 },
  { arbitrary: fc.record({ role: fc.constant('tool'), toolCallId: fc.constant('call_1'), content: fc.string() }), weight: 1 },
  { arbitrary: odd, weight: 1 },
);
const request = fc
  .record({
    messages: fc.oneof({ arbitrary: fc.array(message, { maxLength: 4 }), weight: 8 }, { arbitrary: odd, weight: 1 }),
    stream: maybe(fc.constantFrom('delta', 'message', 'pi', 'none', 'sse')),
    model: maybe(fc.oneof(fc.constantFrom('openai:gpt', ''), fc.string({ minLength: 250, maxLength: 260 }))),
    ifBusy: maybe(fc.constantFrom('reject', 'enqueue', 'interrupt', 'steer', 'wait')),
    tools: fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, { arbitrary: fc.constant([{ name: 'lookup' }]), weight: 1 }),
    parentId: fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, { arbitrary: fc.constantFrom(null, 'msg_1'), weight: 1 }),
    extra: fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, { arbitrary: odd, weight: 1 }),
  })
  .map((value) => JSON.parse(JSON.stringify(value)) as unknown);

describe('plainTurnRequest', () => {
  it('gives nothing, or exactly what the schema gives; nothing for what the schema refuses', () => {
    fc.assert(
      fc.property(fc.oneof(request, odd), (json) => {
        const plain = plainTurnRequest(json);
        const parsed = turnRequestSchema().safeParse(json);
        if (!parsed.success) expect(plain).toBeUndefined();
        else if (plain !== undefined) {
          expect(plain).toStrictEqual(parsed.data);
          expect(Object.keys(plain)).toEqual(Object.keys(parsed.data));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the plain requests clients send', () => {
    for (const json of [
      { messages: [{ role: 'user', content: 'hello' }] },
      { stream: 'delta', model: 'openai:deltas-5', messages: [{ role: 'user', content: 'hello' }] },
      { messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }], ifBusy: 'steer', stream: 'pi' },
    ]) {
      expect(plainTurnRequest(json)).toStrictEqual(turnRequestSchema().parse(json));
    }
  });

  it('leaves to the schema what is over a limit', () => {
    expect(plainTurnRequest({ messages: Array.from({ length: 257 }, () => ({ role: 'user', content: 'x' })) })).toBeUndefined();
    expect(plainTurnRequest({ messages: [{ role: 'user', content: 'x'.repeat(8 * 1024 * 1024 + 1) }] })).toBeUndefined();
    expect(plainTurnRequest({ messages: [{ role: 'user', content: 'x' }], model: 'm'.repeat(257) })).toBeUndefined();
    expect(plainTurnRequest({ messages: [] })).toBeUndefined();
  });
});
