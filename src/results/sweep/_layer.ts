// TEMPORARY STAND-IN for the lead's results layer (src/results/_state.ts, _store.ts, _merge.ts),
// coded to the signatures of the brief so the sweep runs and is tested before that layer lands on
// main. When it lands, this file becomes re-exports of those modules and nothing else changes.
import { readFile, readdir, rm, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import { MEASUREMENT_FILE, measurementJson, safeSegment, type Measurement } from '../../measure/index.js';
import type { IsoDate, PublishedServer, PublishedStatus, ResultsState } from '../_model.js';
import {
  CAPTURE_INDEX_FILE,
  HISTORY_FILE,
  REGRESSIONS_FILE,
  TOOL_VECTORS_FILE,
  appendHistory,
  captureIndexJson,
  emptyToolVectors,
  historyCsv,
  historyRowFor,
  parseHistoryCsv,
  parseToolVectors,
  recordToolVector,
  regressionsMarkdown,
  toolVectorsJson,
} from '../history/index.js';
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
} from '../leaderboard/index.js';

export const EMPTY_RESULTS: ResultsState = Object.freeze({ servers: [], history: [] }) as ResultsState;

export function applySweep(previous: ResultsState, names: readonly string[], fresh: ReadonlyMap<string, Measurement>, date: IsoDate): ResultsState {
  const before = new Map(previous.servers.map((server) => [server.name, server]));
  const servers = names.map((name): PublishedServer => {
    const measurement = fresh.get(name);
    const held = before.get(name);
    if (measurement === undefined) {
      return held ?? { name, status: 'not-yet-run', measurement: null, lastMeasured: null, vectors: emptyToolVectors(name) };
    }
    return {
      name,
      status: measurement.status,
      measurement,
      lastMeasured: date,
      vectors: recordToolVector(held?.vectors ?? emptyToolVectors(name), measurement, date),
    };
  });
  const added = names.flatMap((name) => {
    const measurement = fresh.get(name);
    return measurement === undefined ? [] : [historyRowFor(measurement, date)];
  });
  return { servers, history: appendHistory(previous.history, added) };
}

export const SWEEP_FILE = 'sweep.json';
export interface SweepEntry {
  name: string;
  status: PublishedStatus;
  swept: boolean;
  note: string;
}
export interface SweepRecord {
  method: 'sweep/v1';
  date: IsoDate;
  servers: SweepEntry[];
}

export function resultsFiles(state: ResultsState, sweep: SweepRecord): Map<string, string> {
  const files = new Map<string, string>();
  for (const server of state.servers) {
    const segment = safeSegment(server.name);
    if (server.measurement !== null) files.set(`${segment}/${MEASUREMENT_FILE}`, measurementJson(server.measurement));
    files.set(`${segment}/${TOOL_VECTORS_FILE}`, toolVectorsJson(server.vectors));
    files.set(`${BADGES_DIR}/${badgeFileName(server.name)}`, badgeSvg(server));
  }
  files.set(HISTORY_FILE, historyCsv(state.history));
  files.set(LEADERBOARD_MD_FILE, leaderboardMarkdown(state));
  files.set(LEADERBOARD_JSON_FILE, leaderboardJson(state));
  files.set(REGRESSIONS_FILE, regressionsMarkdown(state));
  files.set(CAPTURE_INDEX_FILE, captureIndexJson(state));
  files.set(TOOL_SHAPE_FILE, toolShapeJson(state));
  files.set(SWEEP_FILE, `${JSON.stringify(sweep, null, 2)}\n`);
  return files;
}

async function readOptional(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw new McpctxError('IO', `cannot read ${file}: ${(error as Error).message}`, { file });
  }
}

export async function readSweepRecord(dir: string): Promise<SweepRecord | null> {
  const text = await readOptional(join(dir, SWEEP_FILE));
  return text === null ? null : (JSON.parse(text) as SweepRecord);
}

export async function readResultsState(dir: string): Promise<ResultsState | null> {
  const sweep = await readSweepRecord(dir);
  if (sweep === null) return null;
  const historyText = await readOptional(join(dir, HISTORY_FILE));
  const history = historyText === null ? [] : parseHistoryCsv(historyText, join(dir, HISTORY_FILE));
  const servers: PublishedServer[] = [];
  for (const entry of sweep.servers) {
    const segment = safeSegment(entry.name);
    const vectorsText = await readOptional(join(dir, segment, TOOL_VECTORS_FILE));
    const vectors = vectorsText === null ? emptyToolVectors(entry.name) : parseToolVectors(vectorsText, join(dir, segment, TOOL_VECTORS_FILE));
    if (entry.status === 'not-yet-run') {
      servers.push({ name: entry.name, status: 'not-yet-run', measurement: null, lastMeasured: null, vectors });
      continue;
    }
    const text = await readOptional(join(dir, segment, MEASUREMENT_FILE));
    const measurement = text === null ? null : (JSON.parse(text) as Measurement);
    const rows = history.filter((row) => row.server === entry.name);
    servers.push({ name: entry.name, status: measurement?.status ?? 'not-yet-run', measurement, lastMeasured: rows[rows.length - 1]?.date ?? null, vectors });
  }
  return { servers, history };
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(join(dir, prefix), { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await listFiles(dir, path)));
    else files.push(path);
  }
  return files;
}

export async function replaceResults(dir: string, files: ReadonlyMap<string, string>): Promise<void> {
  const before = new Map<string, Buffer>();
  for (const path of await listFiles(dir)) before.set(path, await readFile(join(dir, path)));
  try {
    for (const [path, text] of files) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text, 'utf8');
    }
    for (const path of before.keys()) {
      const ours = path.endsWith(`/${MEASUREMENT_FILE}`) || path.endsWith(`/${TOOL_VECTORS_FILE}`) || path.startsWith(`${BADGES_DIR}/`);
      if (ours && !files.has(path)) await rm(join(dir, path), { force: true });
    }
  } catch (error) {
    for (const [path, bytes] of before) await writeFile(join(dir, path), bytes);
    throw new McpctxError('IO', `cannot write results into ${dir}: ${(error as Error).message}`, { dir });
  }
}

export async function mergeShards(dirs: readonly string[]): Promise<{ state: ResultsState; sweep: SweepRecord }> {
  const shards = [];
  for (const dir of dirs) {
    const sweep = await readSweepRecord(dir);
    const state = await readResultsState(dir);
    if (sweep === null || state === null) throw new McpctxError('USAGE', `${dir} holds no sweep results`);
    shards.push({ sweep, state });
  }
  const first = shards[0];
  if (first === undefined) throw new McpctxError('USAGE', 'no shard folders given');
  const names = first.sweep.servers.map((entry) => entry.name);
  const entries: SweepEntry[] = [];
  const servers: PublishedServer[] = [];
  for (const index of names.keys()) {
    const owner = shards.find((shard) => shard.sweep.servers[index]?.swept) ?? first;
    entries.push(owner.sweep.servers[index] as SweepEntry);
    servers.push(owner.state.servers[index] as PublishedServer);
  }
  const history = appendHistory([], shards.flatMap((shard) => shard.state.history));
  return { state: { servers, history }, sweep: { method: 'sweep/v1', date: first.sweep.date, servers: entries } };
}
