/** The matcher of lasting permission rules: globs on a tool's subject; deny over ask over allow. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globMatches, MAX_SUBJECT_CHARS, verdictFor, type PermissionRule } from '../../src/tools/permission-rules';

const rule = (tool_name: string, rule_content: string, behavior: PermissionRule['behavior']): PermissionRule => ({ tool_name, rule_content, behavior, source: 'test' });

describe('permission rules', () => {
  it('matches globs on the whole subject', () => {
    expect(globMatches('buy *', 'buy milk')).toBe(true);
    expect(globMatches('buy *', 'please buy milk')).toBe(false);
    expect(globMatches('?+?', '1+1')).toBe(true);
    expect(globMatches('a.b', 'axb')).toBe(false);
    expect(globMatches('', 'anything')).toBe(true);
    expect(globMatches('*', '')).toBe(true);
    expect(globMatches('(x)*', '(x) and more')).toBe(true);
  });

  it('lets deny win over ask, and ask over allow; names a tool or every tool', () => {
    const rules = [rule('memory_save', 'buy *', 'allow'), rule('memory_save', '*milk*', 'ask'), rule('*', 'secret*', 'deny')];
    expect(verdictFor(rules, 'memory_save', 'buy bread')).toBe('allow');
    expect(verdictFor(rules, 'memory_save', 'buy milk')).toBe('ask');
    expect(verdictFor(rules, 'memory_save', 'secret plan')).toBe('deny');
    expect(verdictFor(rules, 'calculator', 'secret')).toBe('deny');
    expect(verdictFor(rules, 'calculator', '1+1')).toBeUndefined();
    expect(verdictFor([rule('x', '*', 'allow'), rule('x', '*', 'deny')], 'x', 'y')).toBe('deny');
  });

  it('matches as the shell glob it stands for (against a regular expression, on random patterns and subjects)', () => {
    const regexMatches = (pattern: string, subject: string) =>
      new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[\\s\\S]*').replace(/\?/g, '[\\s\\S]')}$`).test(subject);
    const text = (chars: string[], maxLength: number) => fc.array(fc.constantFrom(...chars), { maxLength }).map((list) => list.join(''));
    fc.assert(
      fc.property(text(['a', 'b', '*', '?', '.'], 8), text(['a', 'b', '.'], 12), (pattern, subject) => {
        expect(globMatches(pattern, subject)).toBe(pattern === '' || regexMatches(pattern, subject));
      }),
      { numRuns: 2000 },
    );
  });

  it('matches a pattern that makes a backtracking matcher run for hours, at once', () => {
    // `*a*a*a*b` against 450 characters held a session for 18 s; this one would take far longer.
    expect(globMatches('*a*a*a*a*a*a*a*a*b', 'a'.repeat(5000))).toBe(false);
    expect(globMatches('*a*a*a*a*a*a*a*a*b', `${'a'.repeat(5000)}b`)).toBe(true);
  });

  it('lets no subject past a deny or ask rule by its length, and none through an allow rule', () => {
    const long = `${'x'.repeat(MAX_SUBJECT_CHARS)}y`;
    expect(verdictFor([rule('t', '*z*', 'deny')], 't', long)).toBe('deny');
    expect(verdictFor([rule('t', '*z*', 'ask')], 't', long)).toBe('ask');
    expect(verdictFor([rule('t', 'x*', 'allow')], 't', long)).toBeUndefined();
    expect(verdictFor([rule('t', '*', 'allow')], 't', long)).toBe('allow');
  });
});
