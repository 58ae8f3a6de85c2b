import { decode } from '@toon-format/toon';
import { describe, expect, it } from 'vitest';
import { buildToolResult, formatText, toCsv, toolErrorFrom } from '../../src/shape/index.js';
import { McpctxError } from '../../src/errors/index.js';
import { countTokens } from '../../src/tokens/index.js';

const rows = [
  { number: 1, title: 'Fix "quotes", commas', merged: true, closed_at: null },
  { number: 2, title: 'line\nbreak', merged: false, closed_at: '2013-02-03T10:00:00Z', extra: ' padded ' },
];

describe('buildToolResult', () => {
  it('mirrors structuredContent with one compact text block of the same value', () => {
    const value = { items: rows, total: 2 };
    const built = buildToolResult(value);
    expect(built.result.structuredContent).toBe(value);
    expect(built.result.content).toHaveLength(1);
    expect(built.text).toBe(JSON.stringify(value));
    expect(JSON.parse(built.text)).toEqual(built.result.structuredContent);
    expect(built.textTokens).toBe(countTokens(built.text));
    expect(built.structuredTokens).toBe(countTokens(JSON.stringify(value)));
  });

  it('sends text only when asked, and for CSV and TOON', () => {
    expect(buildToolResult({ a: 1 }, { mode: 'text-only' }).result).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
    const csv = buildToolResult(rows, { format: 'csv' });
    expect(csv.result.structuredContent).toBeUndefined();
    expect(csv.text).toBe(toCsv(rows));
    const toon = buildToolResult({ rows }, { format: 'toon' });
    expect(decode(toon.text)).toEqual({ rows });
    expect(toon.textTokens).toBe(countTokens(toon.text));
    expect(() => buildToolResult(rows, { format: 'csv', mode: 'mirror' })).toThrow(/json format/);
    expect(() => buildToolResult([1, 2], { mode: 'mirror' })).toThrow(/must be a JSON object/);
  });

  it('turns a typed error into a tool error carrying its remedy, and rethrows anything else', () => {
    const result = toolErrorFrom(new McpctxError('STALE_CURSOR', 'Stale cursor: repeat the query without a cursor.'));
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: 'STALE_CURSOR: Stale cursor: repeat the query without a cursor.' }] });
    expect(() => toolErrorFrom(new TypeError('bug'))).toThrow(TypeError);
  });
});

describe('formats', () => {
  it('writes RFC 4180 CSV with a header of every key in first-seen order', () => {
    expect(toCsv(rows)).toBe(
      [
        'number,title,merged,closed_at,extra',
        '1,"Fix ""quotes"", commas",true,,',
        '2,"line\nbreak",false,2013-02-03T10:00:00Z," padded "',
      ].join('\n'),
    );
    expect(toCsv([])).toBe('');
  });

  it('refuses nested values in CSV, naming the row and field', () => {
    expect(() => toCsv([{ a: 1 }, { a: { b: 2 } }])).toThrow(/row 1 field "a" is an object/);
    expect(() => toCsv([[1, 2]])).toThrow(/row 0 is an array/);
    expect(() => formatText({ a: 1 }, 'csv')).toThrow(/array of rows/);
  });

  it('writes compact JSON and lossless TOON', () => {
    expect(formatText(rows, 'json')).toBe(JSON.stringify(rows));
    expect(decode(formatText({ rows }, 'toon'))).toEqual({ rows });
  });
});

describe('inherited properties', () => {
  it('toCsv reads only a row\'s own keys: a header key a row lacks is an empty cell', () => {
    const rows = JSON.parse('[{"constructor":"c","toString":"t","__proto__":"p","id":1},{"id":2}]') as unknown[];
    expect(toCsv(rows)).toBe('constructor,toString,__proto__,id\nc,t,p,1\n,,,2');
  });
});
