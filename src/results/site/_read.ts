import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import { MEASUREMENT_FILE, safeSegment } from '../../measure/index.js';
import type { HistoryRow, ResultsState } from '../_model.js';
import { SWEEP_FILE, readResultsState, readSweepRecord, type SweepRecord } from '../_store.js';
import { HISTORY_FILE, parseHistoryCsv } from '../history/index.js';
import type { Leaderboard, LeaderboardRow } from '../leaderboard/index.js';
import { parseResultsJson as parseJson, readResultsText as readText } from '../_read-file.js';
import { checkLeaderboard, checkMeasurement, type SiteMeasurement } from './_check.js';

export const LEADERBOARD_FILE = 'leaderboard.json';
export const BADGES_FOLDER = 'badges';
/** Markup that would run when a copied badge is opened on its own; a badge never needs it. */
const ACTIVE_SVG = /<script|<foreignObject|javascript:|\son[a-z]+\s*=|<!ENTITY|xlink:href\s*=\s*["']?(?!#)|\shref\s*=\s*["']?(?!#)/i;

/** One server of the leaderboard with the files the site shows of it. */
export interface SiteServer {
  row: LeaderboardRow;
  /** `safeSegment(server)`: its folder in results/, its page and badge names in the site. */
  segment: string;
  /** Null for a server never swept (`not-yet-run`), which has no file. */
  measurement: SiteMeasurement | null;
  /** The file's bytes, copied into the site beside the page. */
  measurementText: string | null;
  /** The badge's SVG; null when results/ holds none for it. */
  badge: string | null;
}

export interface SiteInput {
  leaderboard: Leaderboard;
  history: HistoryRow[];
  servers: SiteServer[];
  /** The last sweep: its date heads every page. */
  sweep: SweepRecord;
  /** The folder as the sweep reads it: what the regressions page is derived from. */
  state: ResultsState;
  /** The bytes of leaderboard.json and history.csv, offered as downloads unchanged. */
  leaderboardText: string;
  historyText: string;
}

/** Reads and checks everything the site shows from a results folder. */
export async function readResults(resultsDir: string): Promise<SiteInput> {
  const folder = await stat(resultsDir).catch(() => undefined);
  if (!folder?.isDirectory()) {
    throw new McpctxError('USAGE', `${resultsDir} is not a folder of results; pass the folder mcpctx sweep --out wrote`, { file: resultsDir });
  }
  const leaderboardFile = join(resultsDir, LEADERBOARD_FILE);
  const leaderboardText = await readText(leaderboardFile, true);
  const leaderboard = checkLeaderboard(parseJson(leaderboardText, leaderboardFile), leaderboardFile);
  const historyFile = join(resultsDir, HISTORY_FILE);
  const historyText = await readText(historyFile, true);
  const history = parseHistoryCsv(historyText, historyFile);

  const bySegment = new Map<string, string>();
  const servers: SiteServer[] = [];
  for (const row of leaderboard.rows) {
    const segment = safeSegment(row.server);
    const other = bySegment.get(segment);
    if (other !== undefined) {
      throw new McpctxError('INVALID_RESULTS', `${leaderboardFile}: servers ${JSON.stringify(other)} and ${JSON.stringify(row.server)} share the folder ${segment}; rename one in the servers file`, {
        file: leaderboardFile,
      });
    }
    bySegment.set(segment, row.server);
    servers.push(await readServer(resultsDir, row, segment));
  }
  // After the site's own checks, so a damaged leaderboard or record is named as the site reads it.
  const sweep = await readSweepRecord(resultsDir);
  const state = await readResultsState(resultsDir);
  if (sweep === null || state === null) {
    throw new McpctxError('INVALID_RESULTS', `${join(resultsDir, SWEEP_FILE)} is missing; rebuild results/ with mcpctx sweep`, { file: join(resultsDir, SWEEP_FILE) });
  }
  return { leaderboard, history, servers, sweep, state, leaderboardText, historyText };
}

async function readServer(resultsDir: string, row: LeaderboardRow, segment: string): Promise<SiteServer> {
  const file = join(resultsDir, segment, MEASUREMENT_FILE);
  // A server never swept has no record; a file left in its folder is not its current one.
  const measurementText = row.status === 'not-yet-run' ? '' : await readText(file, true);
  const measurement = measurementText === '' ? null : checkMeasurement(parseJson(measurementText, file), file, row.server);
  if (measurement !== null && measurement.status !== row.status) {
    throw new McpctxError('INVALID_RESULTS', `${file}: status ${measurement.status} disagrees with the leaderboard's ${row.status}; rebuild results/ with mcpctx sweep`, { file });
  }
  const badgeFile = join(resultsDir, BADGES_FOLDER, `${segment}.svg`);
  const badge = await readText(badgeFile, false);
  if (badge !== '' && (!/^\s*(<\?xml[^>]*\?>\s*)?<svg[\s>]/.test(badge) || ACTIVE_SVG.test(badge))) {
    throw new McpctxError('INVALID_RESULTS', `${badgeFile}: not a plain SVG badge (scripts, links and entities are refused); rebuild it with mcpctx sweep`, { file: badgeFile });
  }
  return { row, segment, measurement, measurementText: measurementText === '' ? null : measurementText, badge: badge === '' ? null : badge };
}
