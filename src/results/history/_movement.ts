import type { IsolationKind } from '../../measure/index.js';
import type { HistoryRow, IsoDate, PublishedServer, ResultsState, ToolTokens, ToolVector } from '../_model.js';
import { plottableSeries } from '../_series.js';

export const COST_REGRESSION_METHOD = 'cost-regression/v1';
/** A movement is emphasised only when it clears both: relative alone would headline a cheap server's drift, absolute alone an expensive one's. */
export const EMPHASIS_MIN_SHARE = 0.05;
export const EMPHASIS_MIN_TOKENS = 25;

/**
 * What the totals alone say moved: the count and the cost the same way (more/fewer tools), the
 * cost with the count unchanged (heavier/lighter tools), or the two opposite ways or the count
 * without the cost (mixed, never guessed). `reshaped`: the bytes changed, neither total did.
 * `unknown`: a row has no tool count on record.
 */
export type CostMechanism = 'more tools' | 'fewer tools' | 'heavier tools' | 'lighter tools' | 'mixed' | 'reshaped' | 'unknown';

/** One side of a movement: a comparable measurement of one capture. */
export interface CostPoint {
  date: IsoDate;
  canonicalSha256: string | null;
  tokens: number;
  tools: number | null;
}

/** One tool's part of a movement: added (before null), removed (after null) or changed. */
export interface ToolDelta {
  /** The tool's name; a name a catalog repeats is told apart as `name #2`, `name #3`. */
  name: string;
  tokensBefore: number | null;
  tokensAfter: number | null;
  delta: number;
  descriptionDelta: number;
  inputSchemaDelta: number;
}

/** Per-tool attribution from the two captures' tool vectors; each list sorted by size, then name. */
export interface ToolAttribution {
  added: ToolDelta[];
  removed: ToolDelta[];
  changed: ToolDelta[];
  /** What belongs to no single tool (the list's brackets and commas, token boundaries): published, never spread. */
  unattributed: number;
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
  emphasised: boolean;
  /** The isolation the compared run was measured under; null when no row of it recorded one. */
  isolation: IsolationKind | null;
  attribution: ToolAttribution | 'unavailable';
  /** Why the breakdown is unavailable (which capture has no tool vector); null when it is available. */
  unavailableBecause: string | null;
}

/** Where a server stands: its movement, a cost held since its first comparable measurement, or nothing comparable. */
export type CostReading =
  | { kind: 'moved'; server: PublishedServer; movement: CostMovement; cutByIsolation: boolean }
  | { kind: 'held'; server: PublishedServer; point: CostPoint; latest: IsoDate; heldFor: number; cutByIsolation: boolean }
  | { kind: 'none'; server: PublishedServer };

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
  let start = points.length - 1;
  while (start > 0 && identical(points[start - 1] as HistoryRow, last)) start -= 1;
  const heldFor = points.length - start;
  const to = pointOf(points[start] as HistoryRow);
  const before = points[start - 1];
  if (before === undefined) return { kind: 'held', server, point: to, latest: last.date, heldFor, cutByIsolation: series.cutByIsolation };
  const from = pointOf(before);
  const delta = to.tokens - from.tokens;
  const vectors = attributionFor(server, from, to);
  return {
    kind: 'moved',
    server,
    cutByIsolation: series.cutByIsolation,
    movement: {
      server: server.name,
      from,
      to,
      latest: last.date,
      heldFor,
      delta,
      share: from.tokens === 0 ? null : delta / from.tokens,
      mechanism: mechanismOf(from, to),
      emphasised: isEmphasised(delta, from.tokens),
      isolation: series.isolation,
      ...vectors,
    },
  };
}

/** The same capture: the same canonical hash, or the same tokens where a row has no hash. */
function identical(a: HistoryRow, b: HistoryRow): boolean {
  if (a.canonicalSha256 !== null && b.canonicalSha256 !== null) return a.canonicalSha256 === b.canonicalSha256;
  return a.tokens === b.tokens;
}

function pointOf(row: HistoryRow): CostPoint {
  return { date: row.date, canonicalSha256: row.canonicalSha256, tokens: row.tokens ?? 0, tools: row.tools };
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

function attribute(before: readonly ToolTokens[], after: readonly ToolTokens[], delta: number): ToolAttribution {
  const old = byKey(before);
  const now = byKey(after);
  const added: ToolDelta[] = [];
  const removed: ToolDelta[] = [];
  const changed: ToolDelta[] = [];
  for (const [key, { name, tool }] of now) {
    const was = old.get(key)?.tool;
    if (was === undefined) added.push(toolDelta(name, undefined, tool));
    else if (was.tokens !== tool.tokens) changed.push(toolDelta(name, was, tool));
  }
  for (const [key, { name, tool }] of old) if (!now.has(key)) removed.push(toolDelta(name, tool, undefined));
  const attributed = [...added, ...removed, ...changed].reduce((sum, part) => sum + part.delta, 0);
  return { added: sorted(added), removed: sorted(removed), changed: sorted(changed), unattributed: delta - attributed };
}

/**
 * Tools keyed by name and occurrence, so a repeated name pairs the same way on both sides; the
 * key is JSON of the pair, which no name can forge, and the shown name numbers the repeats.
 */
function byKey(tools: readonly ToolTokens[]): Map<string, { name: string; tool: ToolTokens }> {
  const keyed = new Map<string, { name: string; tool: ToolTokens }>();
  const seen = new Map<string, number>();
  for (const tool of tools) {
    const occurrence = (seen.get(tool.name) ?? 0) + 1;
    seen.set(tool.name, occurrence);
    keyed.set(JSON.stringify([tool.name, occurrence]), { name: occurrence === 1 ? tool.name : `${tool.name} #${occurrence}`, tool });
  }
  return keyed;
}

function toolDelta(name: string, before: ToolTokens | undefined, after: ToolTokens | undefined): ToolDelta {
  return {
    name,
    tokensBefore: before?.tokens ?? null,
    tokensAfter: after?.tokens ?? null,
    delta: (after?.tokens ?? 0) - (before?.tokens ?? 0),
    descriptionDelta: (after?.descriptionTokens ?? 0) - (before?.descriptionTokens ?? 0),
    inputSchemaDelta: (after?.inputSchemaTokens ?? 0) - (before?.inputSchemaTokens ?? 0),
  };
}

function sorted(deltas: ToolDelta[]): ToolDelta[] {
  return deltas.sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta) || compareText(a.name, b.name));
}
