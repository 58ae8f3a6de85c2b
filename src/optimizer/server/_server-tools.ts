// What each tool of the optimizer's MCP server computes, as plain functions over a store: no
// protocol, no caps (the server adds those). Each returns the JSON value the tool sends.
import { normalizeRecords, originText } from '../_normalize.js';
import type { ContextOptimizer } from '../_optimizer.js';
import { compareRecency } from '../_recency.js';
import type { RecordStore } from '../_store.js';
import type {
  ContextResult,
  DecisionStatus,
  MergeEntry,
  NormalizedRecord,
  OmissionReason,
  OmittedEntry,
  SearchHit,
  SessionRecords,
} from '../_types.js';
import { parseSessionRecords } from '../_validate.js';

export interface ToolContext {
  readonly store: RecordStore;
  readonly optimizer: ContextOptimizer;
  /** Largest text field `ingest_records` accepts; the optimizer's default when absent. */
  readonly maxRecordChars?: number;
}

/** Entries listed whole in a `detail: 'summary'` build_context result, per growing list. */
export const SUMMARY_LIST_LENGTH = 20;
export const DEFAULT_SEARCH_LIMIT = 10;
export const DEFAULT_ERROR_LIMIT = 20;

export function ingestRecords(context: ToolContext, args: unknown): { added: number; total: number } {
  // Validated whole before the store sees it: a bad record anywhere stores nothing.
  const records = parseSessionRecords(args, validation(context));
  const { added } = context.store.add(records);
  return { added, total: context.store.count() };
}

export function searchContext(context: ToolContext, query: string, limit = DEFAULT_SEARCH_LIMIT): { records: number; hits: SearchHit[] } {
  const records = context.store.all();
  return { records: countRecords(records), hits: context.optimizer.search(records, query, limit) };
}

/** A stored record as the lookup tools list it: its id (as source tags name it), where it is, and its text. */
export interface RecordView {
  id: string;
  kind: NormalizedRecord['kind'];
  origin: string;
  label: string;
  timestamp?: string;
  path?: string;
  exitCode?: number;
  status?: string;
  text: string;
}

export interface DecisionView {
  id: string;
  status: DecisionStatus;
  text: string;
  timestamp?: string;
  priority: number;
  origin: string;
}

const DECISION_ORDER: readonly DecisionStatus[] = ['accepted', 'proposed', 'rejected'];

export function getDecisions(
  context: ToolContext,
  options: { status?: DecisionStatus; limit?: number } = {},
): { total: number; decisions: DecisionView[]; note?: string } {
  const decisions = storedRecords(context)
    .filter((record) => record.kind === 'decision' && (options.status === undefined || record.decisionStatus === options.status))
    .sort((a, b) => statusRank(a) - statusRank(b) || newestFirst(a, b));
  const shown = options.limit === undefined ? decisions : decisions.slice(0, options.limit);
  const result: { total: number; decisions: DecisionView[]; note?: string } = {
    total: decisions.length,
    decisions: shown.map((record) => {
      const view: DecisionView = { id: record.id, status: record.decisionStatus ?? 'proposed', text: record.text, priority: record.priority, origin: originText(record) };
      if (record.timestamp !== undefined) view.timestamp = record.timestamp;
      return view;
    }),
  };
  if (shown.length < decisions.length) result.note = `the first ${shown.length} of ${decisions.length} decisions; raise limit or filter by status for the rest`;
  return result;
}

/** A record that reports a failure: an error, a failed test, a tool run that exited non-zero. */
export function isFailure(record: NormalizedRecord): boolean {
  if (record.kind === 'error') return true;
  if (record.kind === 'testResult') return record.testStatus === 'failed';
  return record.kind === 'toolOutput' && record.exitCode !== undefined && record.exitCode !== 0;
}

export type RelevantErrors =
  | { ranking: 'newest'; total: number; errors: RecordView[]; note?: string }
  | { ranking: 'query'; query: string; total: number; hits: SearchHit[]; note?: string };

export function getRelevantErrors(context: ToolContext, options: { query?: string; limit?: number } = {}): RelevantErrors {
  const limit = options.limit ?? DEFAULT_ERROR_LIMIT;
  const records = context.store.all();
  const failures = normalizeRecords(records, validation(context)).records.filter(isFailure);
  const cut = (shown: number, of: number, noun: string): { note?: string } =>
    shown < of ? { note: `the first ${shown} of ${of} ${noun}; raise limit${options.query === undefined ? ' or pass a query to rank them' : ' or narrow the query'}` } : {};
  if (options.query === undefined) {
    const errors = failures.sort(newestFirst).slice(0, limit).map(recordView);
    return { ranking: 'newest', total: failures.length, errors, ...cut(errors.length, failures.length, 'failures, newest first') };
  }
  // Ranked over every stored record, so scores mean what they mean in search_context; then only failures kept.
  const failureIds = new Set(failures.map((record) => record.id));
  const matching = context.optimizer.search(records, options.query, Number.MAX_SAFE_INTEGER).filter((hit) => failureIds.has(hit.recordId));
  const hits = matching.slice(0, limit);
  return { ranking: 'query', query: options.query, total: matching.length, hits, ...cut(hits.length, matching.length, 'matching fragments') };
}

export function getFileHistory(context: ToolContext, path: string, limit?: number): { path: string; total: number; entries: RecordView[]; note?: string } {
  const wanted = comparablePath(path);
  const entries = storedRecords(context)
    .filter((record) => {
      if (record.kind === 'file' || record.kind === 'diff') return record.path !== undefined && samePath(comparablePath(record.path), wanted);
      return record.kind === 'error' && mentionsPath(record.text, wanted);
    })
    .sort(compareRecency);
  // A limit keeps the newest entries, still listed oldest first.
  const shown = limit === undefined || limit >= entries.length ? entries : entries.slice(entries.length - limit);
  const result: { path: string; total: number; entries: RecordView[]; note?: string } = { path, total: entries.length, entries: shown.map(recordView) };
  if (shown.length < entries.length) result.note = `the newest ${shown.length} of ${entries.length} entries; raise limit for older ones`;
  return result;
}

export type ContextDetail = 'summary' | 'full';

/** `buildContext`'s object plus, in summary mode, where its two growing lists were cut. */
export type BuildContextResult = ContextResult & {
  listed?: {
    omitted: { shown: number; total: number; byReason: Partial<Record<OmissionReason, number>> };
    merges: { shown: number; total: number };
  };
};

export function buildContextFromStore(context: ToolContext, task: string, tokenBudget: number | undefined, detail: ContextDetail = 'summary'): BuildContextResult {
  const input = tokenBudget === undefined ? { ...context.store.all(), task } : { ...context.store.all(), task, tokenBudget };
  const result = context.optimizer.buildContext(input);
  return detail === 'full' ? result : summarize(result);
}

/**
 * `omitted` and `report.dedupe.merges` grow with the session, not with the budget: the summary
 * keeps the first entries of each and says in `listed` how many there were and why.
 */
function summarize(result: ContextResult): BuildContextResult {
  const merges: readonly MergeEntry[] = result.report.dedupe.merges;
  if (result.omitted.length <= SUMMARY_LIST_LENGTH && merges.length <= SUMMARY_LIST_LENGTH) return result;
  const byReason: Partial<Record<OmissionReason, number>> = {};
  for (const entry of result.omitted) byReason[entry.reason] = (byReason[entry.reason] ?? 0) + 1;
  const omitted: OmittedEntry[] = result.omitted.slice(0, SUMMARY_LIST_LENGTH);
  return {
    ...result,
    omitted,
    report: { ...result.report, dedupe: { merges: merges.slice(0, SUMMARY_LIST_LENGTH) } },
    listed: {
      omitted: { shown: omitted.length, total: result.omitted.length, byReason },
      merges: { shown: Math.min(merges.length, SUMMARY_LIST_LENGTH), total: merges.length },
    },
  };
}

function validation(context: ToolContext): { maxRecordChars?: number } {
  return context.maxRecordChars === undefined ? {} : { maxRecordChars: context.maxRecordChars };
}

/** Every stored record normalized together, so ids are the ones build_context's source tags use. */
function storedRecords(context: ToolContext): NormalizedRecord[] {
  return normalizeRecords(context.store.all(), validation(context)).records;
}

function countRecords(records: SessionRecords): number {
  return Object.values(records).reduce((sum: number, list: unknown[] | undefined) => sum + (list?.length ?? 0), 0);
}

function statusRank(record: NormalizedRecord): number {
  return DECISION_ORDER.indexOf(record.decisionStatus ?? 'proposed');
}

function newestFirst(a: NormalizedRecord, b: NormalizedRecord): number {
  return compareRecency(b, a);
}

function recordView(record: NormalizedRecord): RecordView {
  // Text last: the identifying fields stay readable at the top of a long entry.
  return {
    id: record.id,
    kind: record.kind,
    origin: originText(record),
    label: record.label,
    ...(record.timestamp === undefined ? {} : { timestamp: record.timestamp }),
    ...(record.path === undefined ? {} : { path: record.path }),
    ...(record.exitCode === undefined ? {} : { exitCode: record.exitCode }),
    ...(record.testStatus === undefined ? {} : { status: record.testStatus }),
    text: record.text,
  };
}

/** Forward slashes, no leading `./`, no trailing slash: `.\src\a.ts` and `src/a.ts` compare equal. */
export function comparablePath(path: string): string {
  return path.trim().replace(/\\/g, '/').replace(/^(?:\.\/)+/, '').replace(/\/+$/, '');
}

/** Equal, or one is the other with more leading folders (`/repo/src/a.ts` and `src/a.ts`). */
export function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  const [longer, shorter] = a.length > b.length ? [a, b] : [b, a];
  return shorter !== '' && longer.endsWith(`/${shorter}`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether text (a message, a stack) names the file: its path, or its basename with a separator
 * before it (`at parse (C:\repo\src\parser.ts:3:9)`), not as part of a longer name (`parser.tsx`).
 */
export function mentionsPath(text: string, path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (base === '') return false;
  const end = '(?![\\w-]|\\.\\w)';
  const slashed = text.replace(/\\/g, '/');
  if (new RegExp(`/${escapeRegExp(base)}${end}`).test(slashed)) return true;
  return new RegExp(`(?<![\\w./-])${escapeRegExp(path)}${end}`).test(slashed);
}
