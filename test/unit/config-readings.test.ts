/**
 * The variables' plain readings (src/config-readings.ts), which a Worker reads its configuration with
 * before it loads zod, against the zod checks of src/config.ts, which stay the definition: for every
 * variable and any text, a plain reading gives nothing or exactly what the check gives. A pattern's
 * and a choice's give nothing only where the check refuses (`pickModel` and the `MODELS` entries lean
 * on that). And the texts deployments write are read plainly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkOf, readConfig } from '../../src/config';
import { plainValue, type Reading } from '../../src/config-readings';
import { configOf, VARS } from '../../src/config-vars';
import type { Env } from '../../src/env';
import { loadConfig } from '../../src/load-config';

const variables = Object.entries(VARS).map(([name, { reading }]) => [name, reading as Reading] as const);

/** Texts near what a reading takes, and far from it. */
function textsFor(reading: Reading): fc.Arbitrary<string> {
  const spaced = (text: fc.Arbitrary<string>) => fc.tuple(fc.constantFrom('', ' ', '\t', '\n'), text, fc.constantFrom('', ' ', '\n')).map((parts) => parts.join(''));
  const near: fc.Arbitrary<string>[] = [fc.string(), fc.string({ unit: 'grapheme' })];
  if (reading.kind === 'count' || reading.kind === 'number') {
    near.push(fc.nat().map(String), fc.integer().map(String), fc.double({ noNaN: true }).map(String), fc.constantFrom('0x10', '1e3', '01', ' 12', '1.', '.5', '12abc', '9007199254740993'));
    near.push(fc.tuple(fc.nat(1_000_000), fc.nat(99)).map(([whole, part]) => `${whole}.${part}`), fc.double({ min: 0, max: 2, noNaN: true }).map((value) => value.toFixed(3)));
  }
  if (reading.kind === 'url') {
    near.push(fc.webUrl(), spaced(fc.webUrl()), fc.webUrl().map((url) => url.replace('://', ':')), fc.constantFrom('http://127.0.0.1:8787/v1', 'https://x', 'ftp://example.com', 'https://exa\tmple.com', 'HTTPS://EXAMPLE.COM', 'http:example.com', 'https://[::1]/'));
  }
  if (reading.kind === 'pattern') near.push(spaced(fc.stringMatching(reading.pattern)), fc.stringMatching(reading.pattern));
  if (reading.kind === 'choice') near.push(fc.constantFrom(...reading.options), spaced(fc.constantFrom(...reading.options)));
  return fc.oneof(...near);
}

describe('the configuration variables read plainly', () => {
  it.each(variables)('%s: gives nothing, or exactly what its check gives', (_name, reading) => {
    fc.assert(
      fc.property(textsFor(reading), (text) => {
        const plain = plainValue(reading, text);
        const parsed = checkOf(reading).safeParse(text);
        if (plain !== undefined) expect(parsed).toEqual({ success: true, data: plain });
        if ((reading.kind === 'pattern' || reading.kind === 'choice') && !parsed.success) expect(plain).toBeUndefined();
        if ((reading.kind === 'pattern' || reading.kind === 'choice') && parsed.success) expect(plain).toBe(parsed.data);
      }),
      { numRuns: 300 },
    );
  });

  it('reads the texts deployments write without the checks', () => {
    const read = (name: keyof typeof VARS, text: string) => plainValue(VARS[name].reading, text);
    expect(read('MODEL', ' openai:gpt-4o ')).toBe('openai:gpt-4o');
    expect(read('MODELS', 'openai:gpt-4o,anthropic:claude-sonnet-4-5')).toBe('openai:gpt-4o,anthropic:claude-sonnet-4-5');
    expect(read('OPENAI_BASE_URL', 'http://127.0.0.1:8787/v1')).toBe('http://127.0.0.1:8787/v1');
    expect(read('OPENAI_API_KEY', 'sk-test')).toBe('sk-test');
    expect(read('RATE_LIMIT_PER_MINUTE', '0')).toBe(0);
    expect(read('COMPACTION_THRESHOLD', '0.75')).toBe(0.75);
    expect(read('TITLES', 'off')).toBe('off');
    expect(read('CORS_ORIGINS', 'https://app.example.com, http://localhost:5173')).toBe('https://app.example.com, http://localhost:5173');
    expect(read('WEBHOOK_URL', 'https://hooks.example.com/agent')).toBe('https://hooks.example.com/agent');
    // Left to the check: a JSON value, a number written otherwise, and what the check refuses.
    expect(read('PRICES', '{}')).toBeUndefined();
    expect(read('MAX_ITERATIONS', '1e2')).toBeUndefined();
    expect(read('MAX_ITERATIONS', '0')).toBeUndefined();
    expect(read('WEBHOOK_URL', 'ftp://example.com')).toBeUndefined();
  });

  it('gives a Worker the same configuration, loading the checks only for a text the plain readings leave to them', async () => {
    const plainVars = { MODEL: 'openai:gpt-4o', MODELS: 'openai:gpt-4o-mini', OPENAI_BASE_URL: 'http://127.0.0.1:8787/v1', RATE_LIMIT_PER_MINUTE: '0', TITLES: 'off' };
    // Each `env` object is its own configuration: one read by hand, one checked, compared.
    const byHand = configOf({ ...plainVars } as unknown as Env);
    expect(byHand).toBeDefined();
    expect(JSON.stringify(byHand)).toBe(JSON.stringify(readConfig({ ...plainVars } as unknown as Env)));
    // A number written otherwise, and a JSON value: the plain readings cannot say; the checks can.
    for (const vars of [{ MAX_ITERATIONS: '1e1' }, { PRICES: '{"openai:gpt-4o": {"input": 2.5, "output": 10}}' }]) {
      expect(configOf({ ...vars } as unknown as Env)).toBeUndefined();
      // Each read from an env of its own: the configuration is kept per env, so neither reads the other's.
      const loaded = await loadConfig({ ...vars } as unknown as Env);
      expect(JSON.stringify(loaded)).toBe(JSON.stringify(readConfig({ ...vars } as unknown as Env)));
    }
    expect((await loadConfig({ PRICES: '{"openai:gpt-4o": {"input": 2.5, "output": 10}}' } as unknown as Env)).users.prices).toEqual({ 'openai:gpt-4o': { input: 2.5, output: 10 } });
    expect((await loadConfig({ MAX_ITERATIONS: '1e1' } as unknown as Env)).maxIterations).toBe(10);
    // And what the checks refuse is refused as before, named.
    await expect(loadConfig({ MAX_ITERATIONS: 'ten' } as unknown as Env)).rejects.toMatchObject({ status: 500, code: 'configuration_error', message: expect.stringContaining('MAX_ITERATIONS') });
  });
});
