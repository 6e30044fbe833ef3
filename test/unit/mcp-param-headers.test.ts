/**
 * MCP 2026-07-28's headers from a call: a value as a header carries it (as it is, or in base64
 * inside `=?base64?…?=`), and the parameters a tool's schema asks to see in `Mcp-Param-*`, with the
 * rules that leave a tool out.
 */
import { describe, expect, it } from 'vitest';
import { headerValue, readHeaderValue } from '../../src/api/mcp-headers';
import { paramHeadersOf, paramHeaderValues } from '../../src/tools/mcp/mcp-param-headers';

describe('a header value', () => {
  it('goes as it is when it can, in base64 otherwise, and reads back', () => {
    const rows: [string, string][] = [
      ['us-west1', 'us-west1'],
      ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
      [' padded ', '=?base64?IHBhZGRlZCA=?='],
      ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
      ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
      ['', '=?base64??='],
    ];
    for (const [value, header] of rows) {
      expect(headerValue(value)).toBe(header);
      expect(readHeaderValue(header)).toBe(value);
    }
    expect(readHeaderValue('=?base64?not base64!?=')).toBeUndefined();
    expect(readHeaderValue('=?base64?/w==?=')).toBeUndefined(); // not UTF-8
  });
});

describe('x-mcp-header', () => {
  const tool = (properties: Record<string, unknown>) => ({ type: 'object', properties });

  it('finds the annotated parameters reached through properties, nested ones too', () => {
    const schema = tool({ region: { type: 'string', 'x-mcp-header': 'Region' }, opts: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } }, q: { type: 'string' } });
    const found = paramHeadersOf(schema);
    expect(found).toEqual({ headers: [{ name: 'Region', path: ['region'] }, { name: 'Dry-Run', path: ['opts', 'dry'] }] });
    if (!('headers' in found)) return;
    expect(paramHeaderValues(found.headers, { region: 'eu', opts: { dry: false }, q: 'x' })).toEqual({ 'mcp-param-Region': 'eu', 'mcp-param-Dry-Run': 'false' });
    // A parameter the call leaves out, or null, sends no header.
    expect(paramHeaderValues(found.headers, { q: 'x', opts: null })).toEqual({});
    expect(paramHeadersOf(tool({ n: { type: 'integer', 'x-mcp-header': 'N' } }))).toEqual({ headers: [{ name: 'N', path: ['n'] }] });
  });

  it('leaves a tool out whose annotation breaks a rule', () => {
    const broken = [
      tool({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }),
      tool({ either: { anyOf: [{ type: 'string', 'x-mcp-header': 'Either' }] } }),
      tool({ ratio: { type: 'number', 'x-mcp-header': 'Ratio' } }),
      tool({ a: { type: 'string', 'x-mcp-header': 'Bad Name' } }),
      tool({ a: { type: 'string', 'x-mcp-header': '' } }),
      tool({ a: { type: 'string', 'x-mcp-header': 'Same' }, b: { type: 'string', 'x-mcp-header': 'same' } }),
      { type: 'object', 'x-mcp-header': 'Root' },
      { type: 'object', $defs: { x: { type: 'string', 'x-mcp-header': 'Def' } } },
    ];
    for (const schema of broken) expect(paramHeadersOf(schema)).toHaveProperty('invalid');
  });
});
