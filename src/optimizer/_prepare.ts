/**
 * Stages 2-6 in two halves. `prepareRecords` is everything that does not depend on the task:
 * normalize, put the records in the one recency order, deduplicate, split into fragments, read each
 * fragment's facts and words. `scoreSession` adds the task: scores (with constraint sentences split
 * out). A caller that builds many contexts over the same records (the MCP server) prepares once.
 * From here on records go oldest first (`compareRecency`), not in input order: every list the result
 * holds is then in an order the input's arrangement of dated records cannot change.
 */
import { splitConstraints } from './_constraints.js';
import { countDistinct } from './_counter.js';
import { dedupeRecords, type NearDuplicateReadings } from './_dedupe.js';
import { extractFacts, extractTaskTerms, tokenizeWords } from './_extract.js';
import type { FocusWordSets } from './_focus.js';
import { fragmentRecord } from './_fragments.js';
import { normalizeValidated, originText, rawBodies } from './_normalize.js';
import { compareRecency } from './_recency.js';
import { scoreFragments } from './_score.js';
import type { ScoredFragment } from './_types.js';
import type { DemotedEntry, Extraction, Fragment, MandatoryScope, MergeEntry, NormalizedRecord, OmittedEntry, ScoringWeights, SessionRecords, TaskTerms, TokenCounter } from './_types.js';

export interface PrepareSettings {
  weights: ScoringWeights;
  nearDuplicateThreshold: number;
}

/** A fragment with what its text says whatever the task: its facts, and where its words occur (`WordPostings`). */
export interface PreparedFragment {
  fragment: Fragment;
  record: NormalizedRecord;
  facts: Extraction;
}

/**
 * For each word (as `tokenizeWords` spells it), the positions of the fragments holding it, ascending:
 * the task's few words are looked up here instead of re-reading every fragment for each task.
 */
export type WordPostings = ReadonlyMap<string, readonly number[]>;

/** The task-independent half (stages 2-6 without scores): computed once per set of records. */
export interface PreparedRecordsData {
  /** Records in the input (before deduplication). */
  recordCount: number;
  normalizeReport: { records: number; collapsedLines: number; replacedInvalidUtf16: number };
  merges: MergeEntry[];
  /** One omitted entry per merged record, in merge order. */
  mergeOmissions: OmittedEntry[];
  /** The records kept after deduplication that have fragments, oldest first. */
  records: NormalizedRecord[];
  fragments: PreparedFragment[];
  words: WordPostings;
  /** Kept only for records prepared to be prepared again (`keepReadings`): deduplication's readings of each text. */
  readings?: NearDuplicateReadings;
}

/** What stages 2-6 hand to focus, selection and the report. */
export interface PreparedSession {
  /** Records in the input (before deduplication). */
  recordCount: number;
  normalizeReport: { records: number; collapsedLines: number; replacedInvalidUtf16: number };
  merges: MergeEntry[];
  /** One omitted entry per merged record, in merge order. */
  mergeOmissions: OmittedEntry[];
  taskTerms: TaskTerms;
  /**
   * The task's session (`OptimizerInput.session`), when the caller named one. Carried here so that
   * the stage that scopes mandatory content to the task reads it from the prepared session.
   */
  session?: string;
  /** Every fragment with its signals, in the oldest-first record order, constraint sentences last. */
  scored: ScoredFragment[];
  related: Array<{ stem: string; hops: number }>;
  /** The word sets that pick an excerpt's lines: the task's words by IDF, the accepted decisions' words. */
  focusWords: FocusWordSets;
  /** What mandatory content was scoped to, and what was demoted from it (`_scope.ts`). */
  scope: MandatoryScope;
  demoted: DemotedEntry[];
  /** Words the user's messages set aside (`_negative.ts`). */
  setAside: string[];
}

function mergeOmissions(merges: readonly MergeEntry[], records: readonly NormalizedRecord[]): OmittedEntry[] {
  const byId = new Map(records.map((record) => [record.id, record]));
  return merges.map((merge) => {
    const record = byId.get(merge.merged);
    return {
      recordId: merge.merged,
      origin: record === undefined ? '' : originText(record),
      reason: merge.reason,
      keptAs: merge.kept,
      detail: merge.detail,
    };
  });
}

/**
 * The task-independent half on validated records (`parseSessionRecords`). `onlyWords`: keep the
 * postings of these words only (a single build knows its task's words; the rest would only take memory).
 */
export function prepareRecords(
  records: SessionRecords,
  nearDuplicateThreshold: number,
  onlyWords?: ReadonlySet<string>,
  previous?: PreparedRecordsData,
  keepReadings = false,
): PreparedRecordsData {
  const known = previous === undefined ? undefined : factsByText(previous);
  // Only readings of texts still present are kept: a fresh map, filled from the previous one.
  const readings: NearDuplicateReadings | undefined = keepReadings ? { errors: new Map(), others: new Map() } : undefined;
  const before = previous?.readings;
  const lookup: NearDuplicateReadings | undefined =
    readings === undefined || before === undefined ? readings : { errors: chained(readings.errors, before.errors), others: chained(readings.others, before.others) };
  const normalized = normalizeValidated(records);
  const oldestFirst = [...normalized.records].sort(compareRecency);
  const { records: kept, merges } = dedupeRecords(oldestFirst, lookup === undefined ? { nearDuplicateThreshold } : { nearDuplicateThreshold, readings: lookup });
  const fragments: PreparedFragment[] = [];
  const postings = new Map<string, number[]>();
  const withFragments: NormalizedRecord[] = [];
  for (const record of kept) {
    const pieces = fragmentRecord(record);
    if (pieces.length > 0) withFragments.push(record);
    const context = { kind: record.kind, exitCode: record.exitCode, testStatus: record.testStatus, path: record.path };
    for (const fragment of pieces) {
      const position = fragments.length;
      fragments.push({ fragment, record, facts: knownFacts(known, fragment.text, context) ?? extractFacts(fragment.text, context) });
      for (const word of tokenizeWords(fragment.text)) {
        if (onlyWords !== undefined && !onlyWords.has(word)) continue;
        const list = postings.get(word);
        if (list === undefined) postings.set(word, [position]);
        else list.push(position);
      }
    }
  }
  const data: PreparedRecordsData = {
    recordCount: normalized.records.length,
    normalizeReport: {
      records: normalized.records.length,
      collapsedLines: normalized.collapsedLines,
      replacedInvalidUtf16: normalized.replacedInvalidUtf16,
    },
    merges,
    mergeOmissions: mergeOmissions(merges, normalized.records),
    records: withFragments,
    fragments,
    words: postings,
  };
  if (readings !== undefined) data.readings = readings;
  return data;
}

/** A map that reads `fallback` where it has nothing, copying what it finds there into itself. */
function chained<V>(own: Map<string, V>, fallback: ReadonlyMap<string, V>): Map<string, V> {
  return new (class extends Map<string, V> {
    override get(key: string): V | undefined {
      const value = own.get(key) ?? fallback.get(key);
      if (value !== undefined) own.set(key, value);
      return value;
    }
    override set(key: string, value: V): this {
      own.set(key, value);
      return this;
    }
  })();
}

type FactsContext = Pick<NormalizedRecord, 'kind' | 'exitCode' | 'testStatus' | 'path'>;

/** What earlier prepared records read from each fragment text: extraction is a pure function of text and context. */
function factsByText(previous: PreparedRecordsData): Map<string, PreparedFragment[]> {
  const byText = new Map<string, PreparedFragment[]>();
  for (const item of previous.fragments) {
    const list = byText.get(item.fragment.text);
    if (list === undefined) byText.set(item.fragment.text, [item]);
    else list.push(item);
  }
  return byText;
}

function knownFacts(known: Map<string, PreparedFragment[]> | undefined, text: string, context: FactsContext): Extraction | undefined {
  const same = known
    ?.get(text)
    ?.find(({ record }) => record.kind === context.kind && record.exitCode === context.exitCode && record.testStatus === context.testStatus && record.path === context.path);
  return same?.facts;
}

/** The tokens the records cost as given: each distinct body counted once. */
export function tokensOfRecords(records: SessionRecords, counter: TokenCounter, counts?: Map<string, number>): number {
  return countDistinct(rawBodies(records), counter, counts);
}

/**
 * The task's half: every prepared fragment scored for `task`. `shareLists`: the prepared records are
 * built from this once, so the result keeps their merge lists; otherwise it gets copies (a result
 * must not share a list with records prepared for the next build).
 */
export function scoreSession(prepared: PreparedRecordsData, task: string, weights: ScoringWeights, { session, shareLists = false }: { session?: string | undefined; shareLists?: boolean } = {}): PreparedSession {
  const taskTerms = extractTaskTerms(task);
  const scoring = scoreFragments(prepared, taskTerms, weights, session === undefined ? {} : { session });
  const result: PreparedSession = {
    recordCount: prepared.recordCount,
    normalizeReport: { ...prepared.normalizeReport },
    merges: shareLists ? prepared.merges : prepared.merges.map((merge) => ({ ...merge })),
    mergeOmissions: shareLists ? prepared.mergeOmissions : prepared.mergeOmissions.map((omission) => ({ ...omission })),
    taskTerms,
    scored: splitConstraints(scoring.scored),
    related: scoring.related,
    focusWords: [scoring.taskWordWeights, scoring.decisionWords],
    scope: scoring.scope,
    demoted: scoring.demoted,
    setAside: scoring.setAside,
  };
  if (session !== undefined) result.session = session;
  return result;
}
