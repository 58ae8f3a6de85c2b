import { McpctxError } from '../errors/index.js';
import type { HistoryRow, PublishedServer, ResultsState } from './_model.js';
import { readResultsState, readSweepRecord, type SweepEntry, type SweepRecord } from './_store.js';
import { compareRows } from './history/index.js';

/** One shard's output as read back. */
interface ShardOutput {
  dir: string;
  record: SweepRecord;
  state: ResultsState;
}

/**
 * Combines the outputs of the shards of one sweep into the state and record one unsharded run
 * would have written. Every shard started from the same previous results and a server's published
 * entry depends only on its own history, so each server is taken whole (record, vectors, history
 * rows) from the shard that swept it, and from the first shard when none did. Shards of different
 * dates or lists, or two shards sweeping one server, are refused.
 */
export async function mergeShards(dirs: readonly string[]): Promise<{ state: ResultsState; sweep: SweepRecord; coverage: ShardCoverage }> {
  if (dirs.length === 0) throw new McpctxError('USAGE', 'sweep merge needs at least one shard folder');
  const shards: ShardOutput[] = [];
  for (const dir of dirs) {
    const record = await readSweepRecord(dir);
    const state = await readResultsState(dir);
    if (record === null || state === null) throw new McpctxError('USAGE', `${dir} holds no sweep results (no sweep.json); pass folders mcpctx sweep --shard wrote`, { file: dir });
    shards.push({ dir, record, state });
  }
  const first = shards[0] as ShardOutput;
  const names = first.record.servers.map((entry) => entry.name);
  for (const shard of shards.slice(1)) checkSameSweep(first, shard, names);
  const coverage = shardCoverage(shards);

  const owners = new Map<string, ShardOutput>();
  for (const shard of shards) {
    for (const entry of shard.record.servers) {
      if (!entry.swept) continue;
      const owner = owners.get(entry.name);
      if (owner !== undefined) throw new McpctxError('USAGE', `${JSON.stringify(entry.name)} was swept by two shards (${owner.dir} and ${shard.dir}); each shard of one sweep must take its own slice`);
      owners.set(entry.name, shard);
    }
  }
  const ownerOf = (name: string): ShardOutput => owners.get(name) ?? first;
  const servers = names.map((name) => findServer(ownerOf(name), name));
  const entries = names.map((name) => findEntry(ownerOf(name), name));
  // Rows of servers no shard swept (or no longer listed) are the same in every shard: the first's.
  const history: HistoryRow[] = shards.flatMap((shard) => shard.state.history.filter((row) => ownerOf(row.server) === shard)).sort(compareRows);
  const rotation = first.record.rotation;
  return { state: { servers, history }, sweep: { method: first.record.method, date: first.record.date, ...(rotation === undefined ? {} : { rotation }), servers: entries }, coverage };
}

/** Which shards of the sweep a merge was given, by the `--shard I/N` each recorded. */
export interface ShardCoverage {
  /** N of `--shard I/N`; null when the folders do not say (written before mcpctx recorded it). */
  count: number | null;
  /** The shards given, as `I/N`, in order of I. */
  present: string[];
  /** The shards of the sweep not given, as `I/N`, in order of I: their servers were swept by no one. */
  missing: string[];
}

/** The shards given and missing; refuses folders of different shard counts, one shard given twice, or sharded and unsharded folders mixed. */
function shardCoverage(shards: readonly ShardOutput[]): ShardCoverage {
  const sliced = shards.filter((shard) => shard.record.shard !== undefined);
  if (sliced.length === 0) return { count: null, present: [], missing: [] };
  const unsliced = shards.find((shard) => shard.record.shard === undefined);
  if (unsliced !== undefined) {
    throw new McpctxError('USAGE', `${unsliced.dir} was not written by a --shard run, and ${(sliced[0] as ShardOutput).dir} was: merge only the shards of one sweep`);
  }
  const count = (sliced[0] as ShardOutput).record.shard?.count ?? 0;
  const byIndex = new Map<number, string>();
  for (const { dir, record } of sliced) {
    const { index, count: its } = record.shard ?? { index: 0, count: 0 };
    if (its !== count) throw new McpctxError('USAGE', `${dir} is shard ${index}/${its} and ${(sliced[0] as ShardOutput).dir} one of ${count}: shards of one sweep share N`);
    const other = byIndex.get(index);
    if (other !== undefined) throw new McpctxError('USAGE', `${other} and ${dir} are both shard ${index}/${count}; give each shard once`);
    byIndex.set(index, dir);
  }
  const present: string[] = [];
  const missing: string[] = [];
  // count is at most MAX_SHARDS: readSweepRecord refuses more.
  for (let index = 1; index <= count; index += 1) (byIndex.has(index) ? present : missing).push(`${index}/${count}`);
  return { count, present, missing };
}

function checkSameSweep(first: ShardOutput, shard: ShardOutput, names: readonly string[]): void {
  if (shard.record.date !== first.record.date) {
    throw new McpctxError('USAGE', `${shard.dir} was swept on ${shard.record.date} and ${first.dir} on ${first.record.date}: shards of one sweep share its date`);
  }
  // Shards of one rotation sweep pick the same group (the same date) and the same reference servers.
  if (JSON.stringify(shard.record.rotation ?? null) !== JSON.stringify(first.record.rotation ?? null)) {
    throw new McpctxError('USAGE', `${shard.dir} and ${first.dir} were swept with different --rotation or --always: merge only the shards of one sweep`);
  }
  const other = shard.record.servers.map((entry) => entry.name);
  if (other.length !== names.length || other.some((name, index) => name !== names[index])) {
    throw new McpctxError('USAGE', `${shard.dir} and ${first.dir} list different servers: shards of one sweep come from the same servers file`);
  }
}

function findServer(shard: ShardOutput, name: string): PublishedServer {
  const server = shard.state.servers.find((candidate) => candidate.name === name);
  if (server === undefined) throw new McpctxError('INVALID_RESULTS', `${shard.dir}: no entry for ${JSON.stringify(name)}`);
  return server;
}

function findEntry(shard: ShardOutput, name: string): SweepEntry {
  const entry = shard.record.servers.find((candidate) => candidate.name === name);
  if (entry === undefined) throw new McpctxError('INVALID_RESULTS', `${shard.dir}: no sweep entry for ${JSON.stringify(name)}`);
  return entry;
}
