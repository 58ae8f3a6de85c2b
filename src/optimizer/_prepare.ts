/**
 * Stages 1-4 as one step both `buildContext` and `search` take: normalize, put the records in the one
 * recency order, deduplicate, split into fragments, score (with constraint sentences split out).
 * From here on records go oldest first (`compareRecency`), not in input order: every list the result
 * holds is then in an order the input's arrangement of dated records cannot change.
 */
import { splitConstraints } from './_constraints.js';
import { dedupeRecords } from './_dedupe.js';
import { extractTaskTerms } from './_extract.js';
import { fragmentRecord } from './_fragments.js';
import { normalizeValidated, originText } from './_normalize.js';
import { compareRecency } from './_recency.js';
import { scoreFragments, type ScoredFragment } from './_score.js';
import type { DemotedEntry, MandatoryScope } from './_scope.js';
import type { MergeEntry, NormalizedRecord, OmittedEntry, ScoringWeights, SessionRecords, TaskTerms } from './_types.js';

export interface PrepareSettings {
  weights: ScoringWeights;
  nearDuplicateThreshold: number;
}

/** What stages 1-4 hand to focus, selection and the report. */
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
  taskWordWeights: ReadonlyMap<string, number>;
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

/** Stages 1-4 on validated records (`parseSessionRecords`). */
export function prepareSession(records: SessionRecords, task: string, settings: PrepareSettings, session?: string): PreparedSession {
  const normalized = normalizeValidated(records);
  const oldestFirst = [...normalized.records].sort(compareRecency);
  const { records: kept, merges } = dedupeRecords(oldestFirst, { nearDuplicateThreshold: settings.nearDuplicateThreshold });
  const taskTerms = extractTaskTerms(task);
  const items = kept.flatMap((record) => fragmentRecord(record).map((fragment) => ({ fragment, record })));
  const scoring = scoreFragments(items, taskTerms, settings.weights, session === undefined ? {} : { session });
  const prepared: PreparedSession = {
    recordCount: normalized.records.length,
    normalizeReport: {
      records: normalized.records.length,
      collapsedLines: normalized.collapsedLines,
      replacedInvalidUtf16: normalized.replacedInvalidUtf16,
    },
    merges,
    mergeOmissions: mergeOmissions(merges, normalized.records),
    taskTerms,
    scored: splitConstraints(scoring.scored),
    related: scoring.related,
    taskWordWeights: scoring.taskWordWeights,
    scope: scoring.scope,
    demoted: scoring.demoted,
    setAside: scoring.setAside,
  };
  if (session !== undefined) prepared.session = session;
  return prepared;
}
