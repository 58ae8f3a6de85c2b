import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { McpctxError } from '../errors/index.js';
import { MEASUREMENT_FILE, RECORD_STATUSES, measurementJson, safeSegment, type Measurement } from '../measure/index.js';
import { MAX_JSON_DEPTH, isPlainObject, nestsDeeperThan } from '../json/index.js';
import type { IsoDate, PublishedServer, PublishedStatus, ResultsState } from './_model.js';
import { parseResultsJson, readResultsText } from './_read-file.js';
import { neverSwept } from './_state.js';
import {
  CAPTURE_INDEX_FILE,
  HISTORY_FILE,
  REGRESSIONS_FILE,
  REGRESSIONS_JSON_FILE,
  TOOL_VECTORS_FILE,
  captureIndexJson,
  emptyToolVectors,
  historyCsv,
  parseHistoryCsv,
  parseToolVectors,
  regressionsJson,
  regressionsMarkdown,
  toolVectorsJson,
} from './history/index.js';
import {
  BADGES_DIR,
  LEADERBOARD_JSON_FILE,
  LEADERBOARD_MD_FILE,
  TOOL_SHAPE_FILE,
  badgeFileName,
  badgeSvg,
  leaderboardJson,
  leaderboardMarkdown,
  toolShapeJson,
} from './leaderboard/index.js';
import { MAX_ROTATION_WEEKS, MAX_SHARDS, type RotationChoice } from './sweep/_plan.js';

export const SWEEP_FILE = 'sweep.json';
export const SWEEP_METHOD = 'sweep/v1';

/** How one listed server came out of the last sweep. */
export interface SweepEntry {
  name: string;
  /** What is published for it after the sweep (its kept record's status when it was not swept). */
  status: PublishedStatus;
  /** True when this sweep (or, merged, one of its shards) measured it. */
  swept: boolean;
  /**
   * Why, in one line: the retry it survived, or why it was not swept. A note must not depend on the
   * shard that ran it, beyond the shard's own slice, so merged shards write what one run would.
   */
  note: string;
}

/** `sweep.json`: the last sweep's list, in the servers file's order. Its date is the one every record of it carries. */
export interface SweepRecord {
  method: typeof SWEEP_METHOD;
  date: IsoDate;
  /** The slice a `--shard I/N` run swept (1-based), so a merge can name a shard it lacks; absent from an unsharded or merged record. */
  shard?: SweepShard;
  /** A `--rotation` run: the week's group and the names measured every week; every shard of it records the same, and so does their merge. */
  rotation?: RotationChoice;
  servers: SweepEntry[];
}

/** One shard of a sweep: the `I/N` of `--shard`. */
export interface SweepShard {
  index: number;
  count: number;
}

/** The top-level files a sweep writes; with badges/*.svg and <server>/{measurement,tool-vectors}.json, what replaceResults owns. */
const TOP_LEVEL_FILES = [SWEEP_FILE, HISTORY_FILE, LEADERBOARD_JSON_FILE, LEADERBOARD_MD_FILE, REGRESSIONS_FILE, REGRESSIONS_JSON_FILE, CAPTURE_INDEX_FILE, TOOL_SHAPE_FILE];
const SERVER_FILES = [MEASUREMENT_FILE, TOOL_VECTORS_FILE];
const PUBLISHED_STATUSES: readonly string[] = [...RECORD_STATUSES, 'not-yet-run'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function sweepRecordJson(record: SweepRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/**
 * Every file of results/ for a state, as relative POSIX path -> exact text. Pure: the same state
 * and record give the same bytes, however they were swept.
 */
export function resultsFiles(state: ResultsState, sweep: SweepRecord): Map<string, string> {
  const files = new Map<string, string>();
  files.set(SWEEP_FILE, sweepRecordJson(sweep));
  files.set(HISTORY_FILE, historyCsv(state.history));
  files.set(LEADERBOARD_JSON_FILE, leaderboardJson(state));
  files.set(LEADERBOARD_MD_FILE, leaderboardMarkdown(state));
  files.set(REGRESSIONS_FILE, regressionsMarkdown(state));
  files.set(REGRESSIONS_JSON_FILE, regressionsJson(state));
  files.set(CAPTURE_INDEX_FILE, captureIndexJson(state));
  files.set(TOOL_SHAPE_FILE, toolShapeJson(state));
  const folders = new Map<string, string>();
  for (const server of state.servers) {
    const segment = safeSegment(server.name);
    const other = folders.get(segment);
    if (other !== undefined) {
      throw new McpctxError('INVALID_CONFIG', `servers ${JSON.stringify(other)} and ${JSON.stringify(server.name)} would share the folder ${segment}; rename one in the servers file`);
    }
    folders.set(segment, server.name);
    files.set(`${BADGES_DIR}/${badgeFileName(server.name)}`, badgeSvg(server));
    if (server.measurement === null) continue;
    files.set(`${segment}/${MEASUREMENT_FILE}`, measurementJson(server.measurement));
    files.set(`${segment}/${TOOL_VECTORS_FILE}`, toolVectorsJson(server.vectors));
  }
  return files;
}

/**
 * The sweep record of a results folder; null when the folder is missing or no sweep wrote it.
 * A folder with a leaderboard but no record is refused: it is not what a sweep left.
 */
export async function readSweepRecord(dir: string): Promise<SweepRecord | null> {
  const folder = await stat(dir).catch(() => undefined);
  if (folder === undefined) return null;
  if (!folder.isDirectory()) throw new McpctxError('USAGE', `${dir} is not a folder`, { file: dir });
  const file = join(dir, SWEEP_FILE);
  const text = await readResultsText(file, false);
  if (text === '') {
    const leaderboard = await readResultsText(join(dir, LEADERBOARD_JSON_FILE), false);
    if (leaderboard !== '') throw new McpctxError('INVALID_RESULTS', `${dir} holds a leaderboard but no ${SWEEP_FILE}: not a folder mcpctx sweep wrote`, { file });
    return null;
  }
  return checkSweepRecord(parseResultsJson(text, file), file);
}

/** The state a results folder holds; null when the folder is missing or holds no sweep's results. */
export async function readResultsState(dir: string): Promise<ResultsState | null> {
  const record = await readSweepRecord(dir);
  if (record === null) return null;
  const historyFile = join(dir, HISTORY_FILE);
  const history = parseHistoryCsv(await readResultsText(historyFile, true), historyFile);
  // The sweep that made a record appended its history row the same day: the newest row is its date.
  const newestRow = new Map<string, IsoDate>();
  for (const row of history) if ((newestRow.get(row.server) ?? '') < row.date) newestRow.set(row.server, row.date);
  const servers: PublishedServer[] = [];
  for (const entry of record.servers) {
    const segment = safeSegment(entry.name);
    // A server never swept has no record; a file left in its folder is not its current one.
    if (entry.status === 'not-yet-run') {
      servers.push(neverSwept(entry.name));
      continue;
    }
    const measurementFile = join(dir, segment, MEASUREMENT_FILE);
    const text = await readResultsText(measurementFile, true);
    const measurement = checkMeasurement(parseResultsJson(text, measurementFile), measurementFile, entry);
    const vectorsFile = join(dir, segment, TOOL_VECTORS_FILE);
    const vectorsText = await readResultsText(vectorsFile, false);
    const vectors = vectorsText === '' ? emptyToolVectors(entry.name) : parseToolVectors(vectorsText, vectorsFile);
    if (vectors.server !== entry.name) throw invalid(vectorsFile, `holds the vectors of ${JSON.stringify(vectors.server)}, not ${JSON.stringify(entry.name)}`);
    const lastMeasured = newestRow.get(entry.name);
    if (lastMeasured === undefined) throw invalid(historyFile, `has no row for ${JSON.stringify(entry.name)}, which has a record`);
    servers.push({ name: entry.name, status: measurement.status, measurement, lastMeasured, vectors });
  }
  return { servers, history };
}

/**
 * Writes `files` into `dir` (each through a temporary file and a rename) and removes the files of
 * earlier results the new set no longer has; files it does not own are never touched. If anything
 * fails, every file that was there before is put back byte for byte and the new ones are removed.
 */
export async function replaceResults(dir: string, files: ReadonlyMap<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const before = await ownedFiles(dir);
  const snapshot = new Map<string, Buffer>();
  for (const path of before) snapshot.set(path, await readFile(join(dir, path)));
  try {
    for (const [path, text] of files) await writeAtomically(join(dir, path), text);
    for (const path of before) if (!files.has(path)) await rm(join(dir, path), { force: true });
    await removeEmptyFolders(dir, before);
  } catch (error) {
    for (const path of files.keys()) if (!snapshot.has(path)) await rm(join(dir, path), { force: true }).catch(() => undefined);
    for (const [path, bytes] of snapshot) await writeAtomically(join(dir, path), bytes);
    throw error instanceof McpctxError ? error : new McpctxError('IO', `cannot write results to ${dir}: ${(error as Error).message}; the previous files were restored`, { file: dir });
  }
}

/** Relative paths of the files in `dir` a sweep wrote, sorted. */
async function ownedFiles(dir: string): Promise<string[]> {
  const owned: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile() && TOP_LEVEL_FILES.includes(entry.name)) owned.push(entry.name);
    if (!entry.isDirectory()) continue;
    const inner = await readdir(join(dir, entry.name), { withFileTypes: true });
    for (const file of inner) {
      if (!file.isFile()) continue;
      const ours = entry.name === BADGES_DIR ? file.name.endsWith('.svg') : SERVER_FILES.includes(file.name);
      if (ours) owned.push(`${entry.name}/${file.name}`);
    }
  }
  return owned.sort();
}

async function removeEmptyFolders(dir: string, paths: readonly string[]): Promise<void> {
  const folders = new Set(paths.filter((path) => path.includes('/')).map((path) => path.slice(0, path.indexOf('/'))));
  // rmdir refuses a folder that still holds anything: only emptied folders go.
  for (const folder of folders) await rmdir(join(dir, folder)).catch(() => undefined);
}

async function writeAtomically(file: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, content);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

function checkSweepRecord(value: unknown, file: string): SweepRecord {
  if (!isPlainObject(value) || value.method !== SWEEP_METHOD) throw invalid(file, `is not a ${SWEEP_METHOD} record`);
  if (typeof value.date !== 'string' || !DATE.test(value.date)) throw invalid(file, 'date must be YYYY-MM-DD');
  if (!Array.isArray(value.servers)) throw invalid(file, 'servers must be a list');
  const names = new Set<string>();
  const servers = value.servers.map((item, index): SweepEntry => {
    const where = `servers[${index}]`;
    if (!isPlainObject(item)) throw invalid(file, `${where} must be an object`);
    const { name, status, swept, note } = item;
    if (typeof name !== 'string' || name === '') throw invalid(file, `${where}.name must be a non-empty string`);
    if (names.has(name)) throw invalid(file, `${where}.name repeats ${JSON.stringify(name)}`);
    names.add(name);
    if (typeof status !== 'string' || !PUBLISHED_STATUSES.includes(status)) throw invalid(file, `${where}.status must be one of ${PUBLISHED_STATUSES.join(', ')}`);
    if (typeof swept !== 'boolean') throw invalid(file, `${where}.swept must be true or false`);
    if (typeof note !== 'string') throw invalid(file, `${where}.note must be a string`);
    return { name, status: status as PublishedStatus, swept, note };
  });
  const shard = value.shard === undefined ? undefined : checkShard(value.shard, file);
  const rotation = value.rotation === undefined ? undefined : checkRotation(value.rotation, names, file);
  return { method: SWEEP_METHOD, date: value.date, ...(shard === undefined ? {} : { shard }), ...(rotation === undefined ? {} : { rotation }), servers };
}

function checkRotation(value: unknown, names: ReadonlySet<string>, file: string): RotationChoice {
  const { weeks, isoWeek, group, always } = isPlainObject(value) ? value : {};
  const whole = (n: unknown, low: number, high: number): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= low && n <= high;
  if (!whole(weeks, 1, MAX_ROTATION_WEEKS) || !whole(isoWeek, 1, 53) || !whole(group, 0, weeks - 1) || group !== isoWeek % weeks) {
    throw invalid(file, `rotation must be {weeks, isoWeek, group, always} with 1 <= weeks <= ${MAX_ROTATION_WEEKS} and group = isoWeek mod weeks`);
  }
  if (!Array.isArray(always) || !always.every((name): name is string => typeof name === 'string' && names.has(name))) {
    throw invalid(file, 'rotation.always must be a list of names the sweep lists');
  }
  return { weeks, isoWeek, group, always: [...always] };
}

function checkShard(value: unknown, file: string): SweepShard {
  const { index, count } = isPlainObject(value) ? value : {};
  if (typeof index !== 'number' || typeof count !== 'number' || !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || index < 1 || index > count || count > MAX_SHARDS) {
    throw invalid(file, `shard must be {index, count} with 1 <= index <= count <= ${MAX_SHARDS}`);
  }
  return { index, count };
}

/**
 * A record is re-written as read, so only what the sweep relies on is checked: whose it is, its
 * status, and that the figures it ranks by are numbers or null.
 */
function checkMeasurement(value: unknown, file: string, entry: SweepEntry): Measurement {
  if (!isPlainObject(value) || typeof value.methodology !== 'string') throw invalid(file, 'is not a measurement record');
  // It is written out again: a value nested past the bound would overflow the stack there.
  if (nestsDeeperThan(value)) throw invalid(file, `nests deeper than ${MAX_JSON_DEPTH} levels`);
  if (value.name !== entry.name) throw invalid(file, `is a record of ${JSON.stringify(value.name)}, not ${JSON.stringify(entry.name)}`);
  if (value.status !== entry.status) throw invalid(file, `has status ${JSON.stringify(value.status)} where ${SWEEP_FILE} says ${entry.status}`);
  for (const key of ['totalTokens', 'toolCount'] as const) {
    const figure = value[key];
    if (figure !== null && !(Number.isSafeInteger(figure) && (figure as number) >= 0)) throw invalid(file, `${key} must be a whole number or null`);
  }
  if (value.canonicalSha256 !== null && typeof value.canonicalSha256 !== 'string') throw invalid(file, 'canonicalSha256 must be a string or null');
  if (value.perTool !== null && !Array.isArray(value.perTool)) throw invalid(file, 'perTool must be a list or null');
  if (!isPlainObject(value.isolation)) throw invalid(file, 'isolation must be an object');
  return value as unknown as Measurement;
}

function invalid(file: string, message: string): McpctxError {
  return new McpctxError('INVALID_RESULTS', `${file}: ${message}; rebuild results/ with mcpctx sweep`, { file });
}
