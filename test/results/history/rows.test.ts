// history.csv rows: what a sweep appends for each record, one row per (date, server), and the file round trip.
import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../../src/errors/index.js';
import type { HistoryRow } from '../../../src/results/index.js';
import { appendHistory, historyCsv, historyRowFor, parseHistoryCsv } from '../../../src/results/history/index.js';
import { failed, measured, tool } from './build.js';

const specs = [tool('echo', 'Echo the input.', { text: { type: 'string' } })];

function row(date: string, server: string, tokens: number | null = 100): HistoryRow {
  return { date, server, status: tokens === null ? 'timeout' : 'measured', tools: tokens === null ? null : 1, tokens, canonicalSha256: null, isolation: 'host' };
}

describe('historyRowFor', () => {
  it('a measured record gives its tools, tokens, hash and isolation', () => {
    const record = measured('echo', specs, 'docker');
    expect(historyRowFor(record, '2026-08-05')).toEqual({
      date: '2026-08-05',
      server: 'echo',
      status: 'measured',
      tools: 1,
      tokens: record.totalTokens,
      canonicalSha256: record.canonicalSha256,
      isolation: 'docker',
    });
  });

  it('a failed record gives no number, whatever the record holds', () => {
    const record = { ...measured('echo', specs), status: 'timeout' as const };
    expect(historyRowFor(record, '2026-08-05')).toMatchObject({ status: 'timeout', tools: null, tokens: null, canonicalSha256: null, isolation: 'host' });
    expect(historyRowFor(failed('echo', 'not-applicable'), '2026-08-05')).toMatchObject({ status: 'not-applicable', tokens: null });
  });

  it('a dynamic record keeps its number', () => {
    expect(historyRowFor(measured('echo', specs, 'host', 'dynamic'), '2026-08-05').tokens).toBeGreaterThan(0);
  });

  it('a record from before isolation.kind reads as not recorded, never as host', () => {
    const line = historyCsv([historyRowFor(measured('echo', specs, null), '2026-08-05')]).split('\n')[1];
    expect(historyRowFor(measured('echo', specs, null), '2026-08-05').isolation).toBeNull();
    expect(line?.endsWith(',not-recorded')).toBe(true);
  });

  it('refuses a date that is not YYYY-MM-DD', () => {
    expect(() => historyRowFor(measured('echo', specs), '2026-8-5')).toThrow(/YYYY-MM-DD/);
  });
});

describe('appendHistory', () => {
  it('a row of the same server and day replaces the old one; the result is sorted', () => {
    const rows = [row('2026-08-12', 'b'), row('2026-08-05', 'b'), row('2026-08-05', 'a')];
    const result = appendHistory(rows, [row('2026-08-05', 'b', null), row('2026-08-12', 'a')]);
    expect(result.map((r) => [r.date, r.server, r.tokens])).toEqual([
      ['2026-08-05', 'a', 100],
      ['2026-08-05', 'b', null],
      ['2026-08-12', 'a', 100],
      ['2026-08-12', 'b', 100],
    ]);
    expect(rows).toHaveLength(3);
  });

  it('one row per (sweep, server): two sweeps of one day both stay; the same sweep again replaces its row', () => {
    const numbered = (sweep: number, tokens: number): HistoryRow => ({ ...row('2026-08-05', 'a', tokens), sweep });
    const result = appendHistory([numbered(2, 200), row('2026-08-05', 'a', 50)], [numbered(1, 100), numbered(2, 300)]);
    expect(result.map((r) => [r.sweep, r.tokens])).toEqual([
      [undefined, 50],
      [1, 100],
      [2, 300],
    ]);
  });

  it('server names that look alike stay apart', () => {
    const result = appendHistory([row('2026-08-05', 'a,b')], [row('2026-08-05', 'a'), row('2026-08-05', 'a","b')]);
    expect(result).toHaveLength(3);
  });
});

describe('history.csv round trip', () => {
  it('reads back what it wrote, byte for byte', () => {
    const rows = [
      historyRowFor(measured('echo', specs, 'docker'), '2026-08-05'),
      historyRowFor(measured('old', specs, null), '2026-08-05'),
      historyRowFor(failed('quote "and, comma"', 'startup-failure'), '2026-08-12'),
    ];
    const text = historyCsv(rows);
    const back = parseHistoryCsv(text, 'history.csv');
    expect(back).toEqual([...rows].sort((a, b) => (a.date + a.server < b.date + b.server ? -1 : 1)));
    expect(historyCsv(back)).toBe(text);
  });

  it.each([
    ['date,server\n', 1, /header/],
    ['date,server,status,tools,tokens,canonical_sha256,isolation\n2026-08-05,s,measured,1,2,,host\n2026-08-05,s,exploded,,,,host\n', 3, /unknown status/],
    ['date,server,status,tools,tokens,canonical_sha256,isolation\n5 Aug,s,measured,1,2,,host\n', 2, /YYYY-MM-DD/],
    ['date,server,status,tools,tokens,canonical_sha256,isolation\n2026-08-05,s,measured,1,-2,,host\n', 2, /tokens/],
    ['date,server,status,tools,tokens,canonical_sha256,isolation\n2026-08-05,s,measured,1,2,,vm\n', 2, /isolation/],
    ['date,server,status,tools,tokens,canonical_sha256,isolation\n2026-08-05,"s,measured,1,2,,host\n', 2, /fields/],
    ['date,sweep,server,status,tools,tokens,canonical_sha256,isolation\n2026-08-05,0,s,measured,1,2,,host\n', 2, /sweep "0" is not a sweep number/],
    ['date,sweep,server,status,tools,tokens,canonical_sha256,isolation\n2026-08-05,1,s,measured,1,2,,host\n2026-08-05,s,measured,1,2,,host\n', 3, /expected 8 fields/],
  ])('refuses a malformed file with its line (%#)', (text, line, message) => {
    let error: unknown;
    try {
      parseHistoryCsv(text, 'results/history.csv');
    } catch (caught) {
      error = caught;
    }
    expect(isMcpctxError(error, 'INVALID_RESULTS')).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message.startsWith(`results/history.csv:${line}:`)).toBe(true);
  });
});
