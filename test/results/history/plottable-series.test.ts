// plottableSeries (src/results/_series.ts), the one rule for what may be compared, at its edges.
import { describe, expect, it } from 'vitest';
import type { IsolationKind } from '../../../src/measure/index.js';
import type { HistoryRow } from '../../../src/results/index.js';
import { plottableSeries } from '../../../src/results/_series.js';

function row(date: string, isolation: IsolationKind | null, tokens: number | null = 100, server = 's'): HistoryRow {
  return { date, server, status: tokens === null ? 'timeout' : 'measured', tools: tokens === null ? null : 1, tokens, canonicalSha256: null, isolation };
}

describe('plottableSeries', () => {
  it('rows of unknown isolation plot, and are counted so the page can say so', () => {
    const series = plottableSeries([row('2026-08-05', null), row('2026-08-12', null), row('2026-08-19', 'host')], 's');
    expect(series.points.map((point) => point.date)).toEqual(['2026-08-05', '2026-08-12', '2026-08-19']);
    expect(series).toMatchObject({ isolation: 'host', since: '2026-08-05', unrecordedRows: 2, cutByIsolation: false });
  });

  it('a different known isolation cuts the run, even behind unknown rows', () => {
    const series = plottableSeries([row('2026-08-05', 'docker'), row('2026-08-12', null), row('2026-08-19', 'host')], 's');
    expect(series.points.map((point) => point.date)).toEqual(['2026-08-12', '2026-08-19']);
    expect(series).toMatchObject({ isolation: 'host', since: '2026-08-12', cutByIsolation: true });
  });

  it('a failed row is part of the run but gives no point', () => {
    const series = plottableSeries([row('2026-08-05', 'host', null), row('2026-08-12', 'host'), row('2026-08-19', 'host', null)], 's');
    expect(series.points.map((point) => point.date)).toEqual(['2026-08-12']);
    expect(series.since).toBe('2026-08-05');
  });

  it('reads only its server, in date order whatever the input order', () => {
    const series = plottableSeries([row('2026-08-19', 'host'), row('2026-08-05', 'docker', 1, 'other'), row('2026-08-05', 'host')], 's');
    expect(series.points.map((point) => point.date)).toEqual(['2026-08-05', '2026-08-19']);
    expect(series.cutByIsolation).toBe(false);
  });

  it('no history: nothing to plot', () => {
    expect(plottableSeries([], 's')).toEqual({ points: [], rows: [], isolation: null, since: null, unrecordedRows: 0, cutByIsolation: false });
  });
});
