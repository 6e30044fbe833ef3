/**
 * How deep JSON may nest. `JSON.parse` accepts thousands of levels, but `JSON.stringify` (and every
 * recursive walk: schemas, encoders, storage) overflows the stack somewhere past a few thousand, so a
 * value that reached the service whole could still fail later, far from where it came in. No tool
 * argument or message a person or a model writes needs more than a few levels: past `MAX_JSON_DEPTH`
 * a value is refused where it enters (a request's 400, a tool call's invalid arguments).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a parsed JSON value nests arrays and objects deeper than `max` (`{}` is one level). Walked
 * with a stack of its own, not recursion, so that the check cannot overflow on what it checks; it
 * visits each array and object once and stops at the first one too deep.
 */
export function nestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: { node: object; depth: number }[] = [{ node: value, depth: 1 }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    if (entry.depth > max) return true;
    const children: unknown[] = Array.isArray(entry.node) ? entry.node : Object.values(entry.node);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, depth: entry.depth + 1 });
    }
  }
  return false;
}

/** The sentence a refusal gives. */
export const TOO_DEEP_MESSAGE = `JSON nested more than ${MAX_JSON_DEPTH} levels deep is not accepted.`;
