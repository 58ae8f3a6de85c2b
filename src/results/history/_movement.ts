import type { IsolationKind, RecordStatus } from '../../measure/index.js';
import type { HistoryRow, IsoDate, PublishedServer, ResultsState, SweepNumber, ToolVector } from '../_model.js';
import { plottableSeries } from '../_series.js';
import { attribute, attributionSummary, signed, type ToolAttribution } from './_attribution.js';
import { conditionsChange, type ConditionsChange } from './_conditions.js';
import { hasNumber } from './_rows.js';
import { measuredWithOf } from './_vectors.js';

export type { ToolAttribution, ToolDelta, FieldSplit } from './_attribution.js';
export type { ConditionsChange } from './_conditions.js';

export const COST_REGRESSION_METHOD = 'cost-regression/v1';
/** A movement is emphasised only when it clears both: relative alone would headline a cheap server's drift, absolute alone an expensive one's. */
export const EMPHASIS_MIN_SHARE = 0.05;
export const EMPHASIS_MIN_TOKENS = 25;

/**
 * What moved: with both captures' tool vectors, from where the tokens went (new or removed tools
 * only: more/fewer tools; existing tools only: heavier/lighter tools; both: mixed). Without them,
 * from the totals alone: the count and the cost the same way (more/fewer tools), the cost with
 * the count unchanged (heavier/lighter tools), or the two opposite ways or the count without the
 * cost (mixed, never guessed). `reshaped`: the bytes changed, neither total did. `unknown`: a row
 * has no tool count on record.
 */
export type CostMechanism = 'more tools' | 'fewer tools' | 'heavier tools' | 'lighter tools' | 'mixed' | 'reshaped' | 'unknown';

/** One side of a movement: a comparable measurement of one capture. */
export interface CostPoint {
  date: IsoDate;
  /** The sweep that measured it; absent for a row from before sweeps were numbered. */
  sweep?: SweepNumber;
  canonicalSha256: string | null;
  tokens: number;
  tools: number | null;
}

/** A server's most recent movement: the change that produced the cost it carries today. */
export interface CostMovement {
  server: string;
  /** The comparable measurement before the change. */
  from: CostPoint;
  /** The first measurement of today's capture: the window is `from.date` → `to.date`. */
  to: CostPoint;
  /** Reported apart from the window: the newest comparable measurement, still of `to`'s capture. */
  latest: IsoDate;
  /** Comparable measurements at today's cost since `to`, `to` included. */
  heldFor: number;
  delta: number;
  /** `delta / from.tokens`; null when `from.tokens` is 0. */
  share: number | null;
  mechanism: CostMechanism;
  /** The mechanism in one line: the parts of the change and where each came from, or the totals' reading when no breakdown is available. */
  summary: string;
  emphasised: boolean;
  /** The isolation the compared run was measured under; null when no row of it recorded one. */
  isolation: IsolationKind | null;
  attribution: ToolAttribution | 'unavailable';
  /** Why the breakdown is unavailable (which capture has no tool vector); null when it is available. */
  unavailableBecause: string | null;
  /** What the number depends on besides the bytes (launch, server version), before against after. */
  conditions: ConditionsChange | 'unavailable';
}

/** A failed sweep: when, and the status it ended with. */
export interface FailedSweep {
  date: IsoDate;
  sweep?: SweepNumber;
  status: RecordStatus;
}

/** The worst movement: a server that had a number and whose newest sweeps failed. */
export interface CostFall {
  server: string;
  /** The last comparable measurement with a number: kept, never read as a drop to zero. */
  last: CostPoint;
  /** The first failed sweep after it. */
  failed: FailedSweep;
  /** The newest failed sweep (its status is the server's today). */
  latest: FailedSweep;
  /** Failed sweeps since `last`. */
  failures: number;
  /** Launch and server version of `last`'s capture against the newest failed record's. */
  conditions: ConditionsChange | 'unavailable';
}

/** A server that failed and measured again since its cost last changed. */
export interface CostReturn {
  server: string;
  /** The last number before the failure; null when it had none in the comparable run. */
  before: CostPoint | null;
  /** The first failed sweep of the gap, and how many failed. */
  failed: FailedSweep;
  failures: number;
  /** The first measurement after the gap. */
  returned: CostPoint;
}

/**
 * Where a server stands: fallen from a number to a failure, its movement, a cost held since its
 * first comparable measurement, or nothing comparable. A moved or held server may have returned
 * from a failure since its cost last changed.
 */
export type CostReading =
  | { kind: 'fell'; server: PublishedServer; fall: CostFall; cutByIsolation: boolean }
  | { kind: 'moved'; server: PublishedServer; movement: CostMovement; returned: CostReturn | null; cutByIsolation: boolean }
  | { kind: 'held'; server: PublishedServer; point: CostPoint; latest: IsoDate; heldFor: number; returned: CostReturn | null; cutByIsolation: boolean }
  | { kind: 'none'; server: PublishedServer };

/** What `regressions.md` says, as data (`regressions.json`), for pages that render it. */
export interface CostReport {
  method: typeof COST_REGRESSION_METHOD;
  /** Fallen to a failure: the worst movement, first; the largest last number first, then by name. */
  fell: CostFall[];
  /** Movements, emphasised first, then by size, then by name. */
  movements: CostMovement[];
  /** Returns from a failure, by name. */
  returned: CostReturn[];
  /** Servers whose cost has held since their first comparable measurement, by name. */
  held: Array<{ server: string; status: PublishedServer['status']; point: CostPoint; latest: IsoDate; heldFor: number; cutByIsolation: boolean }>;
  /** Servers with no comparable measurement, by name. */
  none: Array<{ server: string; status: PublishedServer['status'] }>;
}

/** Every server's reading, as data: the same state gives the same report, whatever the order of the servers list. */
export function costReport(state: ResultsState): CostReport {
  const readings = costReadings(state);
  const byName = <T extends { server: string }>(items: T[]): T[] => items.sort((a, b) => compareText(a.server, b.server));
  return {
    method: COST_REGRESSION_METHOD,
    fell: readings
      .flatMap((reading) => (reading.kind === 'fell' ? [reading.fall] : []))
      .sort(compareFalls),
    movements: readings.flatMap((reading) => (reading.kind === 'moved' ? [reading.movement] : [])).sort(compareMovements),
    returned: byName(readings.flatMap((reading) => (reading.kind === 'moved' || reading.kind === 'held') && reading.returned !== null ? [reading.returned] : [])),
    held: byName(
      readings.flatMap((reading) =>
        reading.kind === 'held'
          ? [{ server: reading.server.name, status: reading.server.status, point: reading.point, latest: reading.latest, heldFor: reading.heldFor, cutByIsolation: reading.cutByIsolation }]
          : [],
      ),
    ),
    none: byName(readings.flatMap((reading) => (reading.kind === 'none' ? [{ server: reading.server.name, status: reading.server.status }] : []))),
  };
}

/** Every server's movement that has one, emphasised first, then by size, then by name. */
export function costMovements(state: ResultsState): CostMovement[] {
  return costReadings(state)
    .flatMap((reading) => (reading.kind === 'moved' ? [reading.movement] : []))
    .sort(compareMovements);
}

export function compareMovements(a: CostMovement, b: CostMovement): number {
  if (a.emphasised !== b.emphasised) return a.emphasised ? -1 : 1;
  const size = Math.abs(b.delta) - Math.abs(a.delta);
  return size !== 0 ? size : compareText(a.server, b.server);
}

/** The largest last number first (the most lost from every request), then by name. */
export function compareFalls(a: CostFall, b: CostFall): number {
  return b.last.tokens - a.last.tokens || compareText(a.server, b.server);
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One reading per server of the list, in the list's order. */
export function costReadings(state: ResultsState): CostReading[] {
  return state.servers.map((server) => readServer(server, state.history));
}

function readServer(server: PublishedServer, history: readonly HistoryRow[]): CostReading {
  // The isolation rule lives in plottableSeries alone: a change of harness never reads as a change of server.
  const series = plottableSeries(history, server.name);
  const points = series.points;
  const last = points[points.length - 1];
  if (last === undefined) return { kind: 'none', server };
  const newest = series.rows[series.rows.length - 1] as HistoryRow;
  if (!hasNumber(newest.status)) return { kind: 'fell', server, fall: fallOf(server, series.rows, last), cutByIsolation: series.cutByIsolation };
  let start = points.length - 1;
  while (start > 0 && identical(points[start - 1] as HistoryRow, last)) start -= 1;
  const heldFor = points.length - start;
  const to = pointOf(points[start] as HistoryRow);
  const before = points[start - 1];
  const returned = returnOf(server.name, series.rows, before);
  if (before === undefined) return { kind: 'held', server, point: to, latest: last.date, heldFor, returned, cutByIsolation: series.cutByIsolation };
  const from = pointOf(before);
  const delta = to.tokens - from.tokens;
  const vectors = attributionFor(server, from, to);
  const totalsMechanism = mechanismOf(from, to);
  const attribution = vectors.attribution;
  return {
    kind: 'moved',
    server,
    returned,
    cutByIsolation: series.cutByIsolation,
    movement: {
      server: server.name,
      from,
      to,
      latest: last.date,
      heldFor,
      delta,
      share: from.tokens === 0 ? null : delta / from.tokens,
      mechanism: attribution === 'unavailable' ? totalsMechanism : attributedMechanism(attribution, totalsMechanism),
      summary: attribution === 'unavailable' ? `${signed(delta)}: ${totalsMechanism}, read from the totals (no per-tool breakdown)` : attributionSummary(delta, attribution),
      emphasised: isEmphasised(delta, from.tokens),
      isolation: series.isolation,
      ...vectors,
      conditions: conditionsChange(vectorOf(server, from)?.measuredWith, vectorOf(server, to)?.measuredWith),
    },
  };
}

/** A server whose newest sweeps failed after `last`, its last number: when it fell, to what, and what changed with it. */
function fallOf(server: PublishedServer, rows: readonly HistoryRow[], last: HistoryRow): CostFall {
  const after = rows.slice(rows.indexOf(last) + 1);
  const first = after[0] as HistoryRow;
  const newest = after[after.length - 1] as HistoryRow;
  const point = pointOf(last);
  // The newest record is the failed one when the server's status is still its status.
  const failedRecord = server.measurement !== null && server.measurement.status === newest.status ? server.measurement : null;
  return {
    server: server.name,
    last: point,
    failed: failedSweep(first),
    latest: failedSweep(newest),
    failures: after.length,
    conditions: conditionsChange(vectorOf(server, point)?.measuredWith, failedRecord === null ? undefined : measuredWithOf(failedRecord)),
  };
}

/**
 * The newest gap of failed sweeps after `from` (after the first row when there is no `from`):
 * the server failed and measured again since its cost last changed. Null when it did not.
 */
function returnOf(server: string, rows: readonly HistoryRow[], from: HistoryRow | undefined): CostReturn | null {
  const since = from === undefined ? 0 : rows.indexOf(from) + 1;
  let end = rows.length - 1;
  while (end >= since && hasNumber((rows[end] as HistoryRow).status)) end -= 1;
  const returnedRow = rows[end + 1];
  // No number after the gap: the server is still failing (a fall, not a return).
  if (end < since || returnedRow === undefined) return null;
  let start = end;
  while (start > 0 && !hasNumber((rows[start - 1] as HistoryRow).status)) start -= 1;
  const before = rows[start - 1];
  return {
    server,
    before: before === undefined ? null : pointOf(before),
    failed: failedSweep(rows[start] as HistoryRow),
    failures: end - start + 1,
    returned: pointOf(returnedRow),
  };
}

function failedSweep(row: HistoryRow): FailedSweep {
  return { date: row.date, ...(row.sweep === undefined ? {} : { sweep: row.sweep }), status: row.status };
}

/** With the breakdown: where the tokens went. Tools added or removed alone are the count's doing; existing tools alone are heavier or lighter; both are mixed. */
function attributedMechanism(parts: ToolAttribution, totals: CostMechanism): CostMechanism {
  const countParts = parts.added.length + parts.removed.length;
  if (parts.changed.length === 0) return totals;
  if (countParts > 0) return 'mixed';
  return parts.existing.delta > 0 ? 'heavier tools' : parts.existing.delta < 0 ? 'lighter tools' : totals;
}

/** The same capture: the same canonical hash, or the same tokens where a row has no hash. */
function identical(a: HistoryRow, b: HistoryRow): boolean {
  if (a.canonicalSha256 !== null && b.canonicalSha256 !== null) return a.canonicalSha256 === b.canonicalSha256;
  return a.tokens === b.tokens;
}

function pointOf(row: HistoryRow): CostPoint {
  return { date: row.date, ...(row.sweep === undefined ? {} : { sweep: row.sweep }), canonicalSha256: row.canonicalSha256, tokens: row.tokens ?? 0, tools: row.tools };
}

export function isEmphasised(delta: number, before: number): boolean {
  const size = Math.abs(delta);
  if (size < EMPHASIS_MIN_TOKENS) return false;
  return before === 0 || size / before >= EMPHASIS_MIN_SHARE;
}

function mechanismOf(from: CostPoint, to: CostPoint): CostMechanism {
  if (from.tools === null || to.tools === null) return 'unknown';
  const count = Math.sign(to.tools - from.tools);
  const cost = Math.sign(to.tokens - from.tokens);
  if (count === 0 && cost === 0) return 'reshaped';
  if (count === 0) return cost > 0 ? 'heavier tools' : 'lighter tools';
  if (count === cost) return cost > 0 ? 'more tools' : 'fewer tools';
  return 'mixed';
}

function attributionFor(
  server: PublishedServer,
  from: CostPoint,
  to: CostPoint,
): Pick<CostMovement, 'attribution' | 'unavailableBecause'> {
  const before = vectorOf(server, from);
  const after = vectorOf(server, to);
  const missing = [before === undefined ? from : undefined, after === undefined ? to : undefined].filter((point) => point !== undefined);
  if (before === undefined || after === undefined) {
    const which = missing.map((point) => (point.canonicalSha256 === null ? `the ${point.date} capture (no hash on record)` : `capture ${point.canonicalSha256.slice(0, 12)} (${point.date})`));
    return { attribution: 'unavailable', unavailableBecause: `no tool vector for ${which.join(' or ')}` };
  }
  return { attribution: attribute(before.tools, after.tools, to.tokens - from.tokens), unavailableBecause: null };
}

/** The vector of a capture, only when its totals agree with the row (otherwise its tools would explain another number). */
function vectorOf(server: PublishedServer, point: CostPoint): ToolVector | undefined {
  if (point.canonicalSha256 === null) return undefined;
  const vector = server.vectors.vectors.find((candidate) => candidate.canonicalSha256 === point.canonicalSha256);
  return vector !== undefined && vector.totalTokens === point.tokens ? vector : undefined;
}
