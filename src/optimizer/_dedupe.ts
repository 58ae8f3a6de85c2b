/**
 * Stage 2: deduplication. Exact duplicates, then repeated runs of one command or test, then near
 * duplicates; each folds older records into the latest one and reports the merge.
 */
import { originText } from './_normalize.js';
import { McpctxError } from '../errors/index.js';
import { compareRecency } from './_recency.js';
import { containment, countWords, LshIndex, MinHasher, wordShingles, type ShingleSet } from './_shingles.js';
import type { MergeEntry, NormalizedRecord, RunHistoryEntry } from './_types.js';
import { describeValue } from '../json/index.js';

export interface DedupeOptions {
  /** Trigram containment of the older record in the newer at which they merge, 0 < t ≤ 1. Default 0.9. */
  nearDuplicateThreshold?: number;
  /**
   * What near-duplicate detection read from each text before (`NearDuplicateReadings`): read from
   * here when there, and filled, so that deduplicating the same texts again skips the reading.
   */
  readings?: NearDuplicateReadings;
}

/** A text's shingles and MinHash signature, a pure function of the text (and whether it is an error's). */
export interface NearDuplicateReading {
  comparable: { shingles: ShingleSet; withoutErrorType?: ShingleSet };
  signature: Uint32Array;
}

/** Readings by text: one map for errors' (masked) texts, one for the rest. */
export interface NearDuplicateReadings {
  errors: Map<string, NearDuplicateReading>;
  others: Map<string, NearDuplicateReading>;
}

export interface DedupeStats {
  exactDuplicates: number;
  repeatedRuns: number;
  nearDuplicates: number;
  /** Record pairs the LSH index proposed for exact verification. */
  candidatePairs: number;
  /** `containment` calls made verifying them. */
  comparisons: number;
}

export interface DedupeResult {
  /** The survivors, in input order; a survivor that gained history is a new object. */
  records: NormalizedRecord[];
  /** Every merge, in the order it was made. */
  merges: MergeEntry[];
  stats: DedupeStats;
}

export const DEFAULT_NEAR_DUPLICATE_THRESHOLD = 0.9;
/** Below this many words trigram containment means little: such texts merge only when equal. */
const MIN_WORDS_FOR_SIMILARITY = 8;
/** Candidates verified per record, best estimated first: bounds the work on repetitive input. */
const MAX_VERIFIED_CANDIDATES = 8;

/** A history line, tagged with where it sorts: by the recency rank of the record it came with. */
interface TaggedEntry {
  entry: RunHistoryEntry;
  rank: number;
  /** Negative for history the record already carried (which precedes it), 0 for the record's own run. */
  step: number;
}

/** What near-duplicate verification compares for one record. */
interface Comparable {
  shingles: ShingleSet;
  /** Errors only: the shingles with the leading error type removed. */
  withoutErrorType?: ShingleSet;
}

export function dedupeRecords(records: readonly NormalizedRecord[], options: DedupeOptions = {}): DedupeResult {
  const threshold = options.nearDuplicateThreshold ?? DEFAULT_NEAR_DUPLICATE_THRESHOLD;
  if (typeof threshold !== 'number' || !(threshold > 0 && threshold <= 1)) {
    throw new McpctxError('INVALID_ARGUMENT', `nearDuplicateThreshold must be a number in (0, 1], got ${describeValue(threshold)}`, {
      option: 'nearDuplicateThreshold',
      value: threshold,
    });
  }
  const run = new DedupeRun(records, threshold, options.readings);
  run.mergeExactDuplicates();
  run.mergeRepeatedRuns();
  run.mergeNearDuplicates();
  return run.result();
}

class DedupeRun {
  private readonly alive: boolean[];
  /** Each record's history lines; undefined while it has none (most records never do). */
  private readonly history: Array<TaggedEntry[] | undefined>;
  private readonly historyChanged: boolean[];
  /** rank[i]: position of record i from oldest (0) to latest. */
  private readonly rank: number[];
  /** Record indices, latest first: the order every stage processes in. */
  private readonly latestFirst: number[];
  private readonly merges: MergeEntry[] = [];
  private readonly stats: DedupeStats = {
    exactDuplicates: 0,
    repeatedRuns: 0,
    nearDuplicates: 0,
    candidatePairs: 0,
    comparisons: 0,
  };

  constructor(
    private readonly records: readonly NormalizedRecord[],
    private readonly threshold: number,
    private readonly readings?: NearDuplicateReadings,
  ) {
    const oldestFirst = recencyOrder(records);
    this.rank = new Array<number>(records.length);
    oldestFirst.forEach((index, position) => (this.rank[index] = position));
    this.latestFirst = oldestFirst.reverse();
    this.alive = new Array<boolean>(records.length).fill(true);
    this.historyChanged = new Array<boolean>(records.length).fill(false);
    this.history = records.map((record, index) =>
      record.history.length === 0
        ? undefined
        : record.history.map((entry, position) => ({ entry, rank: this.rank[index]!, step: position - record.history.length })),
    );
  }

  mergeExactDuplicates(): void {
    const keeperByHash = new Map<string, number>();
    for (const index of this.latestFirst) {
      const record = this.records[index]!;
      const keeper = keeperByHash.get(record.contentHash);
      if (keeper === undefined) {
        keeperByHash.set(record.contentHash, index);
        continue;
      }
      const kept = this.records[keeper]!;
      // An identical earlier run is still an earlier run: its line belongs in the history.
      const isEarlierRun = record.runKey !== undefined && record.runKey === kept.runKey;
      this.merge(index, keeper, {
        reason: 'exact-duplicate',
        detail: `same content as ${kept.id} (${originText(kept)})`,
        addOwnRun: isEarlierRun,
      });
      this.stats.exactDuplicates++;
    }
  }

  mergeRepeatedRuns(): void {
    const keeperByRunKey = new Map<string, number>();
    for (const index of this.latestFirst) {
      const record = this.records[index]!;
      if (!this.alive[index] || record.runKey === undefined) continue;
      const keeper = keeperByRunKey.get(record.runKey);
      if (keeper === undefined) {
        keeperByRunKey.set(record.runKey, index);
        continue;
      }
      this.merge(index, keeper, { reason: 'repeated-run', detail: repeatedRunDetail(record), addOwnRun: true });
      this.stats.repeatedRuns++;
    }
  }

  mergeNearDuplicates(): void {
    const hasher = new MinHasher();
    const indexByGroup = new Map<string, LshIndex>();
    const shortKeeperByText = new Map<string, number>();
    const comparableOf = new Array<Comparable | undefined>(this.records.length);

    // Records are compared only within their group, so a record alone in its group can neither
    // merge nor take a merge: it needs no shingles, signature or index. (Every file snapshot left
    // after the repeated-run merge is alone: one per path.) The loop below visits exactly the
    // records counted here.
    const groupOf = new Array<string | undefined>(this.records.length);
    const groupSize = new Map<string, number>();
    for (const index of this.latestFirst) {
      const record = this.records[index]!;
      if (!this.alive[index] || record.kind === 'testResult') continue;
      const group = comparisonGroup(record);
      groupOf[index] = group;
      groupSize.set(group, (groupSize.get(group) ?? 0) + 1);
    }

    for (const index of this.latestFirst) {
      const record = this.records[index]!;
      const group = groupOf[index];
      if (group === undefined || groupSize.get(group) === 1) continue;
      const text = record.kind === 'error' ? maskSourcePositions(record.text) : record.text;
      const withoutType = record.kind === 'error' ? stripErrorType(text) : undefined;

      if (countWords(withoutType ?? text, MIN_WORDS_FOR_SIMILARITY) < MIN_WORDS_FOR_SIMILARITY) {
        const key = `${group}\u0000${normalizeWhitespace(text)}`;
        const keeper = shortKeeperByText.get(key);
        if (keeper === undefined) shortKeeperByText.set(key, index);
        else this.mergeNear(index, keeper, 1, true);
        continue;
      }

      const { comparable, signature } = this.reading(text, withoutType, hasher);
      const indexed = comparable.withoutErrorType ?? comparable.shingles;
      let lsh = indexByGroup.get(group);
      if (lsh === undefined) indexByGroup.set(group, (lsh = new LshIndex()));

      const best = this.bestVerifiedCandidate(comparable, lsh.candidates(signature, MAX_VERIFIED_CANDIDATES), comparableOf);
      if (best !== undefined && best.similarity >= this.threshold) {
        this.mergeNear(index, best.index, best.similarity, false);
        continue;
      }
      if (indexed.length > 0) {
        lsh.add(String(index), signature);
        comparableOf[index] = comparable;
      }
    }
  }

  private reading(text: string, withoutType: string | undefined, hasher: MinHasher): NearDuplicateReading {
    const known = withoutType === undefined ? this.readings?.others : this.readings?.errors;
    const cached = known?.get(text);
    if (cached !== undefined) return cached;
    const comparable: Comparable = { shingles: wordShingles(text) };
    if (withoutType !== undefined) comparable.withoutErrorType = wordShingles(withoutType);
    const reading = { comparable, signature: hasher.signature(comparable.withoutErrorType ?? comparable.shingles) };
    known?.set(text, reading);
    return reading;
  }

  result(): DedupeResult {
    const survivors: NormalizedRecord[] = [];
    this.records.forEach((record, index) => {
      if (!this.alive[index]) return;
      survivors.push(this.historyChanged[index] ? { ...record, history: finalHistory(this.history[index] ?? []) } : record);
    });
    return { records: survivors, merges: this.merges, stats: this.stats };
  }

  /** Highest containment, then the latest; candidates are all later than the record (indexed earlier). */
  private bestVerifiedCandidate(
    comparable: Comparable,
    candidates: readonly string[],
    comparableOf: ReadonlyArray<Comparable | undefined>,
  ): { index: number; similarity: number } | undefined {
    let best: { index: number; similarity: number } | undefined;
    for (const key of candidates) {
      const candidateIndex = Number(key);
      const other = comparableOf[candidateIndex]!;
      this.stats.candidatePairs++;
      const similarity = this.verify(comparable, other);
      if (
        best === undefined ||
        similarity > best.similarity ||
        (similarity === best.similarity && this.rank[candidateIndex]! > this.rank[best.index]!)
      ) {
        best = { index: candidateIndex, similarity };
      }
    }
    return best;
  }

  /** Containment of the older in the newer; for errors the text without its error type must hold too. */
  private verify(older: Comparable, newer: Comparable): number {
    this.stats.comparisons++;
    const whole = containment(older.shingles, newer.shingles);
    if (older.withoutErrorType === undefined || newer.withoutErrorType === undefined) return whole;
    this.stats.comparisons++;
    return Math.min(whole, containment(older.withoutErrorType, newer.withoutErrorType));
  }

  private mergeNear(index: number, keeper: number, similarity: number, equalText: boolean): void {
    const kept = this.records[keeper]!;
    const rounded = Math.round(similarity * 10_000) / 10_000;
    const percent = Math.round(similarity * 10_000) / 100;
    this.merge(index, keeper, {
      reason: 'near-duplicate',
      similarity: rounded,
      detail: equalText
        ? `same text up to whitespace as ${kept.id} (${originText(kept)})`
        : `${percent}% of its word trigrams appear in ${kept.id} (${originText(kept)})`,
      addOwnRun: false,
    });
    this.stats.nearDuplicates++;
  }

  /** Folds record `index` into `keeper`: it leaves the survivors, its history goes along. */
  private merge(
    index: number,
    keeper: number,
    how: { reason: MergeEntry['reason']; detail: string; similarity?: number; addOwnRun: boolean },
  ): void {
    const record = this.records[index]!;
    const kept = this.records[keeper]!.id;
    this.merges.push(
      how.similarity === undefined
        ? { kept, merged: record.id, reason: how.reason, detail: how.detail }
        : { kept, merged: record.id, reason: how.reason, similarity: how.similarity, detail: how.detail },
    );

    this.alive[index] = false;
    const carried = this.history[index] ?? [];
    if (how.addOwnRun) carried.push({ entry: runEntry(record), rank: this.rank[index]!, step: 0 });
    if (carried.length > 0) {
      const keeperHistory = this.history[keeper];
      if (keeperHistory === undefined) this.history[keeper] = carried;
      else for (const line of carried) keeperHistory.push(line);
      this.historyChanged[keeper] = true;
    }
  }
}

/** Record indices from oldest to latest (`compareRecency`; the array position only for records of equal `order`). */
function recencyOrder(records: readonly NormalizedRecord[]): number[] {
  const indices = records.map((_, index) => index);
  // `prepareRecords` hands the records over in this order already. The comparison is a total order,
  // so when every record is no older than the one before it the sort would return the indices as
  // they are: one comparison per record instead of a sort.
  let ordered = true;
  for (let index = 1; index < records.length && ordered; index++) ordered = compareRecency(records[index]!, records[index - 1]!) >= 0;
  return ordered ? indices : indices.sort((a, b) => compareRecency(records[a]!, records[b]!) || a - b);
}

/** Near duplicates are only looked for among records that could stand for each other, of one session. */
function comparisonGroup(record: NormalizedRecord): string {
  return record.session === undefined ? kindGroup(record) : `${kindGroup(record)}\u0000session ${record.session}`;
}

function kindGroup(record: NormalizedRecord): string {
  switch (record.kind) {
    case 'file':
    case 'diff':
      return `${record.kind}\u0000${record.path ?? ''}`;
    case 'message':
      return `message\u0000${record.role ?? ''}`;
    case 'decision':
      return `decision\u0000${record.decisionStatus ?? ''}`;
    default:
      return record.kind;
  }
}

/**
 * A leading error type (`TypeError:`, `Uncaught RangeError:`, `AssertionError [ERR_ASSERTION]:`,
 * `error TS2345:`): two errors sharing only this must not look alike.
 */
const LEADING_ERROR_TYPE = /^\s*(?:Uncaught\s+)?(?:error\s+TS\d+|[A-Za-z_$][\w$.]*(?:\s*\[[^\]\n]*\])?)\s*:/;

function stripErrorType(text: string): string {
  return text.replace(LEADING_ERROR_TYPE, '');
}

/**
 * A run of `:<digits>` groups ending a frame location. Written to run in linear time on any text: it
 * starts only at a colon that begins a run (not one after `:<digits>`; the colon is checked first,
 * so the look back over digits happens at colons only), and the lookahead captures the whole run,
 * which `\1` then consumes without backtracking (a plain `(?::\d+)+` retried every shorter run at
 * every colon: hours on a 4 MiB `:1:1:1…`). It matches exactly what the plain form matched.
 */
const SOURCE_POSITION = /(?=:\d)(?<!:\d+)(?=((?::\d+)+))\1(?=[)\s,]|$)/gm;

/**
 * Line and column numbers in stack frames (`a.ts:12:5`, `line 12`) become `#`: an edit above the
 * failing line shifts every frame, and that is still the same error.
 */
export function maskSourcePositions(text: string): string {
  return text.replace(SOURCE_POSITION, ':#').replace(/\bline \d+/g, 'line #');
}

function normalizeWhitespace(text: string): string {
  return text.trim().split(/\s+/).join(' ');
}

function runEntry(record: NormalizedRecord): RunHistoryEntry {
  const entry: RunHistoryEntry = { recordId: record.id };
  if (record.timestamp !== undefined) entry.timestamp = record.timestamp;
  if (record.exitCode !== undefined) entry.exitCode = record.exitCode;
  if (record.testStatus !== undefined) entry.status = record.testStatus;
  return entry;
}

function repeatedRunDetail(record: NormalizedRecord): string {
  const command = record.command ?? record.tool;
  const subject =
    record.kind === 'testResult' && record.testName !== undefined
      ? `same test \`${record.testName}\``
      : record.kind === 'toolOutput' && command !== undefined
        ? `same command \`${command}\``
        : record.kind === 'file' && record.path !== undefined
          ? `same file \`${record.path}\`, superseded by a newer snapshot`
          : `same run key \`${record.runKey ?? ''}\``;
  const outcome =
    record.exitCode !== undefined ? ` (exit ${record.exitCode})` : record.testStatus !== undefined ? ` (${record.testStatus})` : '';
  return `${subject}, earlier run${outcome}`;
}

/** Oldest first; a record's earlier history precedes it; one line per record. */
function finalHistory(tagged: readonly TaggedEntry[]): RunHistoryEntry[] {
  const sorted = [...tagged].sort((a, b) => a.rank - b.rank || a.step - b.step);
  const seen = new Set<string>();
  const history: RunHistoryEntry[] = [];
  for (const { entry } of sorted) {
    if (seen.has(entry.recordId)) continue;
    seen.add(entry.recordId);
    history.push(entry);
  }
  return history;
}
