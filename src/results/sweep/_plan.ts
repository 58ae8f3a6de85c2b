import { McpctxError } from '../../errors/index.js';
import type { ServerEntry } from '../../measure/index.js';
import { sha256Hex } from '../../tokens/index.js';
import type { IsoDate } from '../_model.js';

/** A slice of the list for one job of a CI matrix: `index` is 1-based, `index <= count`. */
export interface ShardSpec {
  index: number;
  count: number;
}

/** Why an entry is not measured in this run. `only` and `rotation` name the whole run; `shard` one job of it. */
export type SkipReason = 'only' | 'rotation' | 'shard';

export interface PlannedEntry {
  entry: ServerEntry;
  swept: boolean;
  /** null when swept; otherwise the first reason that applies, in the order only, rotation, shard. */
  skippedBy: SkipReason | null;
}

export interface RotationChoice {
  weeks: number;
  /** ISO 8601 week number of the sweep date. */
  isoWeek: number;
  /** The group measured this run: isoWeek mod weeks. */
  group: number;
  /** Entries measured every week whatever their group (the reference server, a drift check of the harness), in the file's order. */
  always: string[];
}

export interface SweepPlan {
  entries: PlannedEntry[];
  rotation: RotationChoice | null;
}

export interface PlanOptions {
  date: IsoDate;
  shard?: ShardSpec;
  rotationWeeks?: number;
  /** With rotationWeeks: names measured every week, outside the rotation (still within --only and the shard). */
  always?: readonly string[];
  only?: readonly string[];
}

/** Most shards and rotation weeks accepted: far beyond any CI matrix or rotation anyone runs. */
export const MAX_SHARDS = 256;
export const MAX_ROTATION_WEEKS = 53;

/**
 * Which entries this run measures. Shards and rotation groups are stable functions of a name alone
 * (not of its place in the list), so adding or reordering entries never moves another one. The two
 * use different salts: with one hash, shard k of 3 and rotation group k of 3 would be the same set.
 * The three filters combine as an intersection.
 */
export function planSweep(entries: readonly ServerEntry[], options: PlanOptions): SweepPlan {
  const { shard, rotationWeeks, only } = options;
  if (shard !== undefined) checkShard(shard);
  if (rotationWeeks !== undefined && (!Number.isSafeInteger(rotationWeeks) || rotationWeeks < 1 || rotationWeeks > MAX_ROTATION_WEEKS)) {
    throw new McpctxError('USAGE', `--rotation must be a whole number of weeks from 1 to ${MAX_ROTATION_WEEKS}, got ${String(rotationWeeks)}`);
  }
  const names = entries.map((entry) => entry.name);
  if (only !== undefined) checkNames('--only', only, names);
  if (options.always !== undefined) {
    if (rotationWeeks === undefined) throw new McpctxError('USAGE', '--always names servers measured outside the rotation; give --rotation WEEKS with it');
    checkNames('--always', options.always, names);
  }
  const always = new Set(options.always ?? []);
  const rotation = rotationWeeks === undefined ? null : rotationFor(options.date, rotationWeeks, names.filter((name) => always.has(name)));
  const wanted = only === undefined ? undefined : new Set(only);
  return {
    rotation,
    entries: entries.map((entry): PlannedEntry => {
      let skippedBy: SkipReason | null = null;
      if (wanted !== undefined && !wanted.has(entry.name)) skippedBy = 'only';
      else if (rotation !== null && !always.has(entry.name) && rotationGroup(entry.name, rotation.weeks) !== rotation.group) skippedBy = 'rotation';
      else if (shard !== undefined && shardOf(entry.name, shard.count) !== shard.index) skippedBy = 'shard';
      return { entry, swept: skippedBy === null, skippedBy };
    }),
  };
}

function checkNames(option: string, given: readonly string[], names: readonly string[]): void {
  const unknown = given.filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new McpctxError('USAGE', `${option} names ${unknown.map((name) => JSON.stringify(name)).join(', ')}, not in the servers file; its names are: ${names.join(', ')}`, { unknown, names });
  }
}

/** `I/N` as a shard, 1-based; anything else is a usage error. */
export function parseShard(text: string): ShardSpec {
  const match = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  if (!match) throw new McpctxError('USAGE', `--shard must be I/N (1-based, e.g. 2/3), got ${JSON.stringify(text)}`);
  const shard = { index: Number(match[1]), count: Number(match[2]) };
  checkShard(shard);
  return shard;
}

function checkShard({ index, count }: ShardSpec): void {
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_SHARDS || !Number.isSafeInteger(index) || index < 1 || index > count) {
    throw new McpctxError('USAGE', `--shard I/N needs 1 <= I <= N <= ${MAX_SHARDS}, got ${index}/${count}`);
  }
}

/** The shard (1-based) a name belongs to among `count`. */
export function shardOf(name: string, count: number): number {
  return (stableNumber(`shard\0${name}`) % count) + 1;
}

/** The rotation group (0-based) a name belongs to among `weeks`. */
export function rotationGroup(name: string, weeks: number): number {
  return stableNumber(`rotation\0${name}`) % weeks;
}

/** The rotation group the date alone picks: a week the sweep does not run, its group waits for the next cycle. */
export function rotationFor(date: IsoDate, weeks: number, always: readonly string[] = []): RotationChoice {
  const isoWeek = isoWeekNumber(date);
  return { weeks, isoWeek, group: isoWeek % weeks, always: [...always] };
}

/** 48 bits of sha256: the same on every machine and in every order, and exact as a JS number. */
function stableNumber(text: string): number {
  return Number.parseInt(sha256Hex(text).slice(0, 12), 16);
}

/** ISO 8601 week number (1..53) of a `YYYY-MM-DD` date: weeks start on Monday, week 1 holds the year's first Thursday. */
export function isoWeekNumber(date: IsoDate): number {
  const day = new Date(`${date}T00:00:00Z`);
  // The round trip refuses what Date would silently roll over (2026-02-31 as March 3).
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== date) {
    throw new McpctxError('USAGE', `not a date (YYYY-MM-DD): ${JSON.stringify(date)}`);
  }
  const weekday = day.getUTCDay() === 0 ? 7 : day.getUTCDay();
  // The Thursday of the same week decides the year the week belongs to.
  const thursday = new Date(day.getTime() + (4 - weekday) * 86_400_000);
  const yearStart = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  return Math.floor((thursday.getTime() - yearStart) / 86_400_000 / 7) + 1;
}
