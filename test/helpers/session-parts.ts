/**
 * The parts of a session's object (its stores, socket hub and door, user link), for tests that put a
 * fault into one from inside the object (`runInDurableObject`). The object is a shell; the parts are
 * its loaded session's (src/session/session-object.ts). `Shape` names what the test reaches, private
 * members included.
 */
import type { SessionParts } from '../../src/session/assembly';

export function partsOf<Shape = SessionParts>(instance: unknown): Shape {
  return (instance as { session: { parts: Shape } }).session.parts;
}
