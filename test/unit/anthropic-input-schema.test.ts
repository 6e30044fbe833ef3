import { describe, expect, it } from 'vitest';
import { inputSchema } from '../../src/providers/anthropic/input-schema';

describe('a tool schema as the Messages API takes it', () => {
  it('is the schema as it is, an object, where it has no branches at its top', () => {
    expect(inputSchema({ properties: { a: { type: 'string' } }, required: ['a'] })).toEqual({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
  });

  it('takes the branches of a top-level anyOf or oneOf into its properties; what every branch requires stays required', () => {
    const place = { type: 'object', properties: { units: { type: 'string' } }, anyOf: [
      { properties: { city: { type: 'string' } }, required: ['city', 'units'] },
      { properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon', 'units'] },
    ] };
    expect(inputSchema(place)).toEqual({ type: 'object', properties: { city: { type: 'string' }, lat: { type: 'number' }, lon: { type: 'number' }, units: { type: 'string' } }, required: ['units'] });
    expect(inputSchema({ oneOf: [{ properties: { yaml: { type: 'string' } } }, { properties: { dir: { type: 'string' } } }] })).toEqual({ type: 'object', properties: { yaml: { type: 'string' }, dir: { type: 'string' } } });
  });

  it('keeps what any branch of a top-level allOf requires', () => {
    expect(inputSchema({ type: 'object', allOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'string' } }, required: ['b'] }] })).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      required: ['a', 'b'],
    });
  });
});
