import type { IsolationKind } from '../measure/index.js';
import type { HistoryRow, IsoDate } from './_model.js';
import { compareSweeps } from './_order.js';

/** The part of a server's history a trend may be drawn across. */
export interface PlottableSeries {
  /** Measured rows (a number of tokens) of the comparable run, oldest first: every sweep, two of one day included. */
  points: HistoryRow[];
  /** Every row of the comparable run, failures included, oldest first. */
  rows: HistoryRow[];
  /** The isolation of the run; null when no row of it recorded one. */
  isolation: IsolationKind | null;
  /** Date of the oldest row of the comparable run (failed rows included); null without history. */
  since: IsoDate | null;
  /** Rows of the run whose isolation was not recorded: they plot, and the page says so. */
  unrecordedRows: number;
  /** True when older rows were left out because they were measured under another isolation. */
  cutByIsolation: boolean;
}

/**
 * The run of a server's sweeps, ending at its newest, that were all measured the same way. A row of
 * unknown isolation is no evidence of a difference, so it neither starts nor breaks a run; a row
 * of another known isolation ends it. A failed row is part of the run but gives no point: a server
 * that stopped starting reads as a gap, never as a drop to zero.
 */
export function plottableSeries(history: readonly HistoryRow[], server: string): PlottableSeries {
  // By sweep, not by date alone: the later of two sweeps of one day is the newer point.
  const rows = history.filter((row) => row.server === server).sort(compareSweeps);
  let isolation: IsolationKind | null = null;
  let start = rows.length;
  let cutByIsolation = false;
  for (let index = rows.length - 1; index >= 0; index -= 1) {
    const row = rows[index] as HistoryRow;
    if (row.isolation !== null) {
      if (isolation === null) isolation = row.isolation;
      else if (row.isolation !== isolation) {
        cutByIsolation = true;
        break;
      }
    }
    start = index;
  }
  const run = rows.slice(start);
  return {
    rows: run,
    points: run.filter((row) => row.tokens !== null && (row.status === 'measured' || row.status === 'dynamic')),
    isolation,
    since: run[0]?.date ?? null,
    unrecordedRows: run.filter((row) => row.isolation === null).length,
    cutByIsolation,
  };
}
