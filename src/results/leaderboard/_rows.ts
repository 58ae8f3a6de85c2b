import { METHODOLOGY, RECORD_STATUSES, bandFor, type Band, type Measurement } from '../../measure/index.js';
import { printableText } from '../../text/index.js';
import type { IsoDate, PublishedServer, PublishedStatus, ResultsState } from '../_model.js';
import { plottableSeries } from '../_series.js';

export const LEADERBOARD_JSON_FILE = 'leaderboard.json';
export const LEADERBOARD_MD_FILE = 'leaderboard.md';
export const LEADERBOARD_METHOD = 'leaderboard/v1';

/** How the newest comparable point moved against the one before it. */
export interface LeaderboardTrend {
  direction: 'up' | 'down' | 'flat';
  /** Tokens of the newest point minus those of the one before it. */
  delta: number;
  /** Date of the point compared against. */
  from: IsoDate;
}

export interface LeaderboardRow {
  /** Measured and dynamic rows with a number only; 1 = fewest tokens; ties broken by name. */
  rank: number | null;
  server: string;
  status: PublishedStatus;
  /** The colour band of `tokens`; null without tokens. */
  band: Band | null;
  tools: number | null;
  tokens: number | null;
  /** The record's `sessionStart.total`: tool names plus server instructions. */
  sessionStart: number | null;
  /** True ("≥") when the record has no `serverInstructions` field: the figure is the names half alone, a floor. */
  sessionStartFloor: boolean;
  /** null: never measured (`not-yet-run`). */
  lastMeasured: IsoDate | null;
  /** The last two points of the comparable run (`plottableSeries`); null with fewer than two. */
  trend: LeaderboardTrend | null;
  isolation: 'host' | 'docker' | null;
  canonicalSha256: string | null;
  /** The record's note, printable and on one line; '' when none. */
  note: string;
  /**
   * Claude divergence (tools-delta/v1): what the tools add to an Anthropic request, on `model`.
   * Present only when the record carries it for the capture it holds (a stale block is left out).
   */
  claude?: { tokens: number; model: string };
}

export interface Leaderboard {
  method: typeof LEADERBOARD_METHOD;
  methodology: string;
  tokenizer: 'o200k_base';
  /** Every entry of the servers list. */
  servers: number;
  /** Entries with a number: measured or dynamic, ranked. */
  measured: number;
  rows: LeaderboardRow[];
}

/** Statuses in the order unranked rows are listed: the record statuses, then `not-yet-run`. */
export const STATUS_ORDER: readonly PublishedStatus[] = Object.freeze([...RECORD_STATUSES, 'not-yet-run']);

/**
 * The leaderboard of a results state: every server exactly once. Servers with a number (measured
 * or dynamic) come first, ranked by tokens (fewest first, ties by name); the rest follow, by status
 * in STATUS_ORDER, then by name. Names compare by code unit, so the order is the same on every machine.
 */
export function leaderboard(state: ResultsState): Leaderboard {
  const rows = state.servers.map((server) => rowFor(server, state));
  const ranked = rows.filter(hasNumber).sort((a, b) => a.tokens - b.tokens || compareNames(a.server, b.server));
  ranked.forEach((row, index) => {
    row.rank = index + 1;
  });
  const rest = rows
    .filter((row) => !hasNumber(row))
    .sort((a, b) => STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) || compareNames(a.server, b.server));
  return {
    method: LEADERBOARD_METHOD,
    methodology: METHODOLOGY,
    tokenizer: 'o200k_base',
    servers: rows.length,
    measured: ranked.length,
    rows: [...ranked, ...rest],
  };
}

/** `leaderboard.json`: two-space indent and a final newline. */
export function leaderboardJson(state: ResultsState): string {
  return `${JSON.stringify(leaderboard(state), null, 2)}\n`;
}

function rowFor(server: PublishedServer, state: ResultsState): LeaderboardRow {
  const record = server.measurement;
  const tokens = count(record?.totalTokens);
  const sessionStart = count(record?.sessionStart?.total);
  return {
    rank: null,
    server: server.name,
    status: server.status,
    band: tokens === null ? null : bandFor(tokens),
    tools: count(record?.toolCount),
    tokens,
    sessionStart,
    sessionStartFloor: sessionStart !== null && record !== null && !capturedInstructions(record),
    lastMeasured: server.lastMeasured,
    trend: trendFor(state, server.name),
    isolation: record?.isolation?.kind ?? null,
    canonicalSha256: record?.canonicalSha256 ?? null,
    note: printableText(typeof record?.note === 'string' ? record.note : '', 'note'),
    ...claudeOf(record),
  };
}

/** The claude column of a record, when its block belongs to the record's own capture. */
function claudeOf(record: Measurement | null | undefined): Pick<LeaderboardRow, 'claude'> {
  const block: unknown = record?.claude;
  if (typeof block !== 'object' || block === null) return {};
  const { claudeTokens, model, canonicalSha256 } = block as Record<string, unknown>;
  const tokens = count(claudeTokens);
  if (tokens === null || typeof model !== 'string' || canonicalSha256 !== record?.canonicalSha256) return {};
  return { claude: { tokens, model: printableText(model, 'note') } };
}

// A record made before session-start load existed has no serverInstructions field at all; null
// means the server was asked and sent none, which makes the figure whole, not a floor.
function capturedInstructions(record: Measurement): boolean {
  return Object.hasOwn(record, 'serverInstructions') && record.serverInstructions !== undefined;
}

function trendFor(state: ResultsState, server: string): LeaderboardTrend | null {
  const points = plottableSeries(state.history, server).points;
  const newest = points[points.length - 1];
  const before = points[points.length - 2];
  if (!newest || !before || newest.tokens === null || before.tokens === null) return null;
  const delta = newest.tokens - before.tokens;
  return { direction: delta > 0 ? 'up' : delta < 0 ? 'down' : 'flat', delta, from: before.date };
}

type RankedRow = LeaderboardRow & { tokens: number };

function hasNumber(row: LeaderboardRow): row is RankedRow {
  return (row.status === 'measured' || row.status === 'dynamic') && row.tokens !== null;
}

/** A count from a record, or null when it is missing or not a count. */
function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
