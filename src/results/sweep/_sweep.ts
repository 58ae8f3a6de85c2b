import { resolve } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import { addClaudeDivergence, loadServersFile, measureServer, type ClaudeTokenCounter, type ContainerIsolation, type Measurement, type ServerEntry } from '../../measure/index.js';
import type { IsoDate, PublishedStatus } from '../_model.js';
import { checkHarness, type GuardReport } from './_guard.js';
import { containerSettings, dockerLaunch, findOnPath } from './_docker.js';
import { mergeShards, type ShardCoverage } from '../_merge.js';
import { EMPTY_RESULTS, applySweep } from '../_state.js';
import { readResultsState, replaceResults, resultsFiles, type SweepEntry, type SweepRecord } from '../_store.js';
import { applyNotApplicable } from './_not-applicable.js';
import { isoWeekNumber, planSweep, type RotationChoice, type ShardSpec, type SkipReason } from './_plan.js';
import { measureWithRetries, type MeasureFunction } from './_retry.js';

export const DEFAULT_CONCURRENCY = 2;
export const MAX_CONCURRENCY = 64;

export interface SweepOptions {
  /** The servers file (YAML or JSON), as `measure --servers` reads it. */
  serversFile: string;
  /** The results folder: read as the previous state, rewritten as the new one. */
  outDir: string;
  shard?: ShardSpec;
  rotationWeeks?: number;
  /** With rotationWeeks: servers measured every week outside the rotation (the reference server: a drift check of the harness). */
  always?: readonly string[];
  only?: readonly string[];
  /** Servers measured at once; default 2, 1..64. The results do not depend on it. */
  concurrency?: number;
  isolation?: 'host' | 'docker';
  /** With isolation docker: image, network and limits, each defaulting to DEFAULT_CONTAINER's. */
  container?: Partial<ContainerIsolation>;
  /** The sweep's clock: its UTC date is the sweep date. Default: now. */
  now?: () => Date;
  /** Called as each server ends, in the order they end. */
  onProgress?: (progress: SweepProgress) => void;
  /** Where header values and the stored OAuth logins of url entries are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Tests: the measurement function (default measureServer) and the PATH searched for docker. */
  measure?: MeasureFunction;
  path?: string;
  /** Also measure the Claude divergence (tools-delta/v1) of every server measured, with this counter (count_tokens). */
  claude?: { model: string; count: ClaudeTokenCounter };
}

export interface SweepProgress {
  /** How many servers have ended, this one included. */
  done: number;
  total: number;
  name: string;
  status: PublishedStatus;
  totalTokens: number | null;
  elapsedMs: number;
}

/** One entry of the servers file as this run left it. */
export interface SweptServer {
  name: string;
  status: PublishedStatus;
  swept: boolean;
  /** Why it was not measured this run; null when it was. */
  skippedBy: SkipReason | null;
  /** Budgets of the measurements made this run, in order: two when it was retried, none when not swept. */
  budgetsMs: number[];
  toolCount: number | null;
  totalTokens: number | null;
  note: string;
  /** Wall time of this entry's measurements this run (retry included); 0 when not swept. */
  elapsedMs: number;
  /** With `claude`: why count_tokens failed for this server (its record has no claude block). */
  claudeError?: string;
}

export interface SweepReport {
  date: IsoDate;
  outDir: string;
  /** False when the harness guard tripped: every file of `outDir` is as it was. */
  written: boolean;
  /** Files of the results folder written (0 when nothing was). */
  files: number;
  isolation: 'host' | 'docker';
  /** The container every stdio entry ran in; null with isolation host. */
  container: ContainerIsolation | null;
  concurrency: number;
  shard: ShardSpec | null;
  rotation: RotationChoice | null;
  only: string[] | null;
  servers: SweptServer[];
  guard: GuardReport;
}

/**
 * One sweep: reads the servers file and the previous results, measures the entries this run
 * selects (shard, rotation, --only), retries what a busy machine can cause, applies declared
 * not-applicable entries, checks the harness, and replaces the results folder, or, when the
 * harness guard trips, writes nothing at all. Results are in the servers file's order whatever the
 * concurrency.
 */
export async function sweep(options: SweepOptions): Promise<SweepReport> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    throw new McpctxError('USAGE', `--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, got ${String(concurrency)}`);
  }
  const isolation = options.isolation ?? 'host';
  // Checked whatever the isolation, so a bad limit is refused before a sweep that would use it.
  const settings = containerSettings(options.container);
  const container = isolation === 'docker' ? settings : null;
  if (container !== null) {
    if (findOnPath('docker', options.path ?? process.env.PATH) === null) {
      throw new McpctxError('USAGE', '--isolation docker needs the docker command on PATH, and none was found; install docker or use --isolation host');
    }
  }
  const file = await loadServersFile(options.serversFile);
  const date = isoDateOf((options.now ?? (() => new Date()))());
  const outDir = resolve(options.outDir);
  const plan = planSweep(file.servers, { date, shard: options.shard, rotationWeeks: options.rotationWeeks, always: options.always, only: options.only });
  const previous = await readResultsState(outDir);

  const measure = options.measure ?? measureServer;
  const chosen = plan.entries.filter((planned) => planned.swept);
  let done = 0;
  const outcomes = await mapLimited(chosen, concurrency, async ({ entry }) => {
    const started = performance.now();
    // A remote entry is reached over the network from this host: never wrapped, recorded as host.
    const boxed = container !== null && 'command' in entry.launch ? container : null;
    const job: ServerEntry = boxed !== null ? { ...entry, launch: dockerLaunch(entry.launch, boxed), isolationKind: 'docker' } : entry;
    const { notApplicable, ...entryOptions } = job;
    const measureOptions = options.env === undefined ? entryOptions : { ...entryOptions, env: options.env };
    const retried = await measureWithRetries(measureOptions, measure);
    const measured = applyNotApplicable(retried.measurement, notApplicable);
    // The limits go into the record, so a reader knows how it was measured (and the launch args show the same flags).
    const measurement: Measurement = boxed !== null ? { ...measured, isolation: { ...measured.isolation, container: boxed } } : measured;
    let claudeError: string | undefined;
    if (options.claude !== undefined) {
      // A failed count leaves the record without the block; the failure is reported, never the record lost.
      await addClaudeDivergence(measurement, options.claude.model, options.claude.count).catch((error: unknown) => {
        claudeError = error instanceof Error ? error.message : String(error);
      });
    }
    const elapsedMs = Math.round(performance.now() - started);
    done += 1;
    options.onProgress?.({ done, total: chosen.length, name: entry.name, status: measurement.status, totalTokens: measurement.totalTokens, elapsedMs });
    return { measurement, budgetsMs: retried.budgetsMs, elapsedMs, claudeError };
  });
  const byName = new Map(chosen.map((planned, index) => [planned.entry.name, outcomes[index] as (typeof outcomes)[number]]));
  const fresh = new Map<string, Measurement>([...byName].map(([name, outcome]) => [name, outcome.measurement]));

  const guard = checkHarness(previous, fresh);
  const names = file.servers.map((entry) => entry.name);
  const state = applySweep(previous ?? EMPTY_RESULTS, names, fresh, date);
  const record: SweepRecord = {
    method: 'sweep/v1',
    date,
    // Which slice this is, so `sweep merge` can tell a shard that never arrived.
    ...(options.shard === undefined ? {} : { shard: { index: options.shard.index, count: options.shard.count } }),
    // A rotation slice says so, so the site can tell a reader why most records are older.
    ...(plan.rotation === null ? {} : { rotation: plan.rotation }),
    servers: plan.entries.map((planned, index): SweepEntry => {
      const server = state.servers[index];
      const status = server?.status ?? 'not-yet-run';
      const note = planned.swept ? (fresh.get(planned.entry.name)?.note ?? '') : keptNote(planned.skippedBy, server?.lastMeasured ?? null, plan.rotation);
      return { name: planned.entry.name, status, swept: planned.swept, note };
    }),
  };
  const servers = plan.entries.map((planned, index): SweptServer => {
    const outcome = byName.get(planned.entry.name);
    const published = state.servers[index]?.measurement ?? null;
    const entry = record.servers[index] as SweepEntry;
    return {
      name: entry.name,
      status: entry.status,
      swept: entry.swept,
      skippedBy: planned.skippedBy,
      budgetsMs: outcome?.budgetsMs ?? [],
      toolCount: published?.toolCount ?? null,
      totalTokens: published?.totalTokens ?? null,
      note: entry.note,
      elapsedMs: outcome?.elapsedMs ?? 0,
      ...(outcome?.claudeError === undefined ? {} : { claudeError: outcome.claudeError }),
    };
  });
  const report: SweepReport = {
    date,
    outDir,
    written: false,
    files: 0,
    isolation,
    container,
    concurrency,
    shard: options.shard ?? null,
    rotation: plan.rotation,
    only: options.only === undefined ? null : [...options.only],
    servers,
    guard,
  };
  // A tripped guard writes nothing: replaceResults is never called, so every file stays as it was.
  if (guard.tripped) return report;
  const files = resultsFiles(state, record);
  await replaceResults(outDir, files);
  return { ...report, written: true, files: files.size };
}

export interface PreviewOptions {
  serversFile: string;
  /** The day whose selection is previewed (`YYYY-MM-DD`); a real sweep always uses the day it runs. */
  date: IsoDate;
  shard?: ShardSpec;
  rotationWeeks?: number;
  always?: readonly string[];
  only?: readonly string[];
}

/** A sweep's selection for one day, by name only: no launch, so no env value, is in it. */
export interface SweepPreview {
  date: IsoDate;
  rotation: RotationChoice | null;
  entries: Array<{ name: string; swept: boolean; skippedBy: SkipReason | null }>;
}

/** What a sweep on `date` would measure, and why each other entry would be skipped; nothing is measured or written. */
export async function previewSweep(options: PreviewOptions): Promise<SweepPreview> {
  isoWeekNumber(options.date); // refuses a malformed date even when no rotation would read it
  const file = await loadServersFile(options.serversFile);
  const plan = planSweep(file.servers, { date: options.date, shard: options.shard, rotationWeeks: options.rotationWeeks, always: options.always, only: options.only });
  return { date: options.date, rotation: plan.rotation, entries: plan.entries.map(({ entry, swept, skippedBy }) => ({ name: entry.name, swept, skippedBy })) };
}

export interface MergeOptions {
  /** Results folders each written by one shard of the same sweep. */
  shardDirs: readonly string[];
  outDir: string;
  /** Write the merge even when shards of the sweep are missing (their servers keep what the previous results held). Default false. */
  partial?: boolean;
}

export interface MergeReport {
  date: IsoDate;
  outDir: string;
  /** False when shards are missing and `partial` was not given: nothing was written. */
  written: boolean;
  files: number;
  /** Which shards were given and which are missing (`I/N`); `count` null when the folders do not record it. */
  shards: ShardCoverage;
  servers: SweepEntry[];
}

/**
 * Combines shard outputs into exactly the files one unsharded sweep would have written. When the
 * shards record `--shard I/N` and some of the N are missing, nothing is written (`written: false`,
 * the missing ones named) unless `partial`: their servers would be published as not swept.
 */
export async function mergeSweep(options: MergeOptions): Promise<MergeReport> {
  const merged = await mergeShards(options.shardDirs.map((dir) => resolve(dir)));
  const outDir = resolve(options.outDir);
  const report = { date: merged.sweep.date, outDir, shards: merged.coverage, servers: merged.sweep.servers };
  if (merged.coverage.missing.length > 0 && options.partial !== true) return { ...report, written: false, files: 0 };
  const files = resultsFiles(merged.state, merged.sweep);
  await replaceResults(outDir, files);
  return { ...report, written: true, files: files.size };
}

/**
 * The note of an entry this run did not measure. It never names the shard: an entry that no shard
 * measured is skipped for the same reason (rotation or --only) by every shard, so merged shards
 * and one unsharded run write the same note.
 */
function keptNote(reason: SkipReason | null, lastMeasured: IsoDate | null, rotation: RotationChoice | null): string {
  const why =
    reason === 'only'
      ? 'not named by --only'
      : reason === 'rotation' && rotation !== null
        ? `not in this week's rotation group (ISO week ${rotation.isoWeek}, group ${rotation.group + 1} of ${rotation.weeks})`
        : 'in another shard';
  return lastMeasured === null ? `not swept yet: ${why}` : `not swept this run (${why}); the record of ${lastMeasured} is kept`;
}

/** `YYYY-MM-DD` of an instant, in UTC. */
export function isoDateOf(instant: Date): IsoDate {
  if (Number.isNaN(instant.getTime())) throw new McpctxError('USAGE', 'the sweep clock gave an invalid date');
  return instant.toISOString().slice(0, 10);
}

/** Runs `work` over `items` with at most `limit` at once; results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, () => worker()));
  return results;
}

