import { McpctxError } from '../../errors/index.js';
import type { Measurement, RecordStatus } from '../../measure/index.js';
import type { HistoryRow, IsoDate, SweepNumber } from '../_model.js';
import { compareRows } from './_csv.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Statuses whose record carries a number; every other record is a failure and gives no point. */
export function hasNumber(status: RecordStatus): boolean {
  return status === 'measured' || status === 'dynamic';
}

/** Refuses a date that is not `YYYY-MM-DD`: dates are compared as text, so the form is the order. */
export function checkIsoDate(date: IsoDate, what: string): void {
  if (!DATE.test(date)) throw new McpctxError('USAGE', `${what} must be a date as YYYY-MM-DD, got ${JSON.stringify(date)}`);
}

/** Refuses a sweep number that is not a whole number from 1: numbers order sweeps, and 0 stands for unknown. */
export function checkSweepNumber(sweep: SweepNumber | undefined): void {
  if (sweep !== undefined && !(Number.isSafeInteger(sweep) && sweep >= 1)) throw new McpctxError('USAGE', `a sweep number must be a whole number from 1, got ${String(sweep)}`);
}

/**
 * The number of the sweep after `history`'s newest: every sweep that measured something left a row,
 * so the rows hold the folder's count. Shards of one sweep read the same history and share it.
 */
export function nextSweepNumber(history: readonly HistoryRow[]): SweepNumber {
  let newest = 0;
  for (const row of history) if (row.sweep !== undefined && row.sweep > newest) newest = row.sweep;
  return newest + 1;
}

/** The row a sweep appends for one record, whatever its status; without `sweep` the row's sweep is unknown. */
export function historyRowFor(measurement: Measurement, date: IsoDate, sweep?: SweepNumber): HistoryRow {
  checkIsoDate(date, 'the sweep date');
  checkSweepNumber(sweep);
  const numbered = hasNumber(measurement.status);
  return {
    date,
    ...(sweep === undefined ? {} : { sweep }),
    server: measurement.name,
    status: measurement.status,
    tools: numbered ? measurement.toolCount : null,
    tokens: numbered ? measurement.totalTokens : null,
    canonicalSha256: numbered ? measurement.canonicalSha256 : null,
    // Records made before isolation.kind existed stay unknown; never read as `host`.
    isolation: measurement.isolation?.kind ?? null,
  };
}

/**
 * One row per (sweep, server): every sweep stays, two of one day included; an added row replaces
 * only a row of the same server and sweep. Rows of an unknown sweep (written before sweeps were
 * numbered) were one per (date, server), and stay so. Sorted.
 */
export function appendHistory(rows: readonly HistoryRow[], added: readonly HistoryRow[]): HistoryRow[] {
  const bySweep = new Map<string, HistoryRow>();
  // JSON of the triple as the key: no separator a server name could contain can collide.
  for (const row of [...rows, ...added]) bySweep.set(JSON.stringify([row.date, row.sweep ?? null, row.server]), row);
  return [...bySweep.values()].sort(compareRows);
}
