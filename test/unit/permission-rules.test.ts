/** The matcher of lasting permission rules: globs on a tool's subject; deny over ask over allow. */
import { describe, expect, it } from 'vitest';
import { globMatches, verdictFor, type PermissionRule } from '../../src/tools/permission-rules';

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
});
