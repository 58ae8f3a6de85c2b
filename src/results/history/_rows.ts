import { McpctxError } from '../../errors/index.js';
import type { Measurement, RecordStatus } from '../../measure/index.js';
import type { HistoryRow, IsoDate } from '../_model.js';
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

/** The row a sweep appends for one record, whatever its status. */
export function historyRowFor(measurement: Measurement, date: IsoDate): HistoryRow {
  checkIsoDate(date, 'the sweep date');
  const numbered = hasNumber(measurement.status);
  return {
    date,
    server: measurement.name,
    status: measurement.status,
    tools: numbered ? measurement.toolCount : null,
    tokens: numbered ? measurement.totalTokens : null,
    canonicalSha256: numbered ? measurement.canonicalSha256 : null,
    // Records made before isolation.kind existed stay unknown; never read as `host`.
    isolation: measurement.isolation?.kind ?? null,
  };
}

/** One row per (date, server): an added row replaces a row of the same server and day. Sorted. */
export function appendHistory(rows: readonly HistoryRow[], added: readonly HistoryRow[]): HistoryRow[] {
  const byDay = new Map<string, HistoryRow>();
  // JSON of the pair as the key: no separator a server name could contain can collide.
  for (const row of [...rows, ...added]) byDay.set(JSON.stringify([row.date, row.server]), row);
  return [...byDay.values()].sort(compareRows);
}
