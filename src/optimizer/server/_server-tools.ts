// What each tool of the optimizer's MCP server computes, as plain functions over a store: no
// protocol, no caps (the server adds those). Each returns the JSON value the tool sends.
import { originText } from '../_normalize.js';
import { normalizePath } from '../_paths.js';
import { compareRecency } from '../_recency.js';
import type { BudgetConflict, ContextResult, ContextStats, DecisionStatus, NormalizedRecord, OmissionReason, RecordKind } from '../_types.js';
import { parseSessionRecords } from '../_validate.js';
import type { FragmentMatch } from './_search.js';
import type { ContextBuilder } from './_builder.js';
import type { PreparedSession } from './_prepared.js';

export interface ToolContext {
  /** The records held in memory (read from the store once), normalized and indexed for search. */
  readonly session: PreparedSession;
  /** Where build_context runs: off the main thread. */
  readonly builder: ContextBuilder;
  /** Largest text field `ingest_records` accepts; the optimizer's default when absent. */
  readonly maxRecordChars?: number;
}

export const DEFAULT_SEARCH_LIMIT = 10;
export const DEFAULT_ERROR_LIMIT = 20;

export function ingestRecords(context: ToolContext, args: unknown): { added: number; total: number } {
  // Validated whole before the store sees it: a bad record anywhere stores nothing.
  const records = parseSessionRecords(args, validation(context));
  const { added, stored } = context.session.ingest(records);
  context.builder.ingested(stored);
  return { added, total: context.session.count() };
}

/** A fragment found for a query: where it comes from, its BM25 score, whether it holds the query's phrase, and its text. */
export interface SearchHit {
  fragmentId: string;
  recordId: string;
  kind: RecordKind;
  origin: string;
  label: string;
  timestamp?: string;
  score: number;
  phrase: boolean;
  text: string;
}

export async function searchContext(context: ToolContext, query: string, limit = DEFAULT_SEARCH_LIMIT): Promise<{ records: number; total: number; hits: SearchHit[] }> {
  const matches = (await context.session.index()).search(query);
  return { records: context.session.count(), total: matches.length, hits: matches.slice(0, limit).map(searchHit) };
}

function searchHit(match: FragmentMatch): SearchHit {
  const { fragment, record } = match;
  return {
    fragmentId: fragment.id,
    recordId: record.id,
    kind: record.kind,
    origin: originText(record),
    label: record.label,
    ...(record.timestamp === undefined ? {} : { timestamp: record.timestamp }),
    score: Math.round(match.score * 1000) / 1000,
    phrase: match.phrase,
    text: fragment.text,
  };
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

export async function getRelevantErrors(context: ToolContext, options: { query?: string; limit?: number } = {}): Promise<RelevantErrors> {
  const limit = options.limit ?? DEFAULT_ERROR_LIMIT;
  const failures = context.session.records().filter(isFailure);
  const cut = (shown: number, of: number, noun: string): { note?: string } =>
    shown < of ? { note: `the first ${shown} of ${of} ${noun}; raise limit${options.query === undefined ? ' or pass a query to rank them' : ' or narrow the query'}` } : {};
  if (options.query === undefined) {
    const errors = failures.sort(newestFirst).slice(0, limit).map(recordView);
    return { ranking: 'newest', total: failures.length, errors, ...cut(errors.length, failures.length, 'failures, newest first') };
  }
  // Ranked over every stored fragment, so scores mean what they mean in search_context; then only failures kept.
  const matching = (await context.session.index()).search(options.query, isFailure);
  const hits = matching.slice(0, limit).map(searchHit);
  return { ranking: 'query', query: options.query, total: matching.length, hits, ...cut(hits.length, matching.length, 'matching fragments') };
}

export function getFileHistory(context: ToolContext, path: string, limit?: number): { path: string; total: number; entries: RecordView[]; note?: string } {
  const wanted = normalizePath(path);
  const entries = storedRecords(context)
    .filter((record) => {
      if (record.kind === 'file' || record.kind === 'diff') return record.path !== undefined && samePath(normalizePath(record.path), wanted);
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

/** The columns of a summary's `sources.rows`, in order. */
export const SOURCE_COLUMNS = ['fragmentId', 'tokens', 'score', 'mandatory'] as const;
/** `mandatory` is an index into the summary's `sources.mandatoryReasons`, or null for a fragment kept on its score. */
export type SourceRow = [fragmentId: string, tokens: number, score: number, mandatory: number | null];

/**
 * build_context at detail "summary", sent as two text blocks (the context as plain text, then the
 * rest as JSON): the context once, and per source only what the context does
 * not already say (one row each, in the context's order; `mandatory` is why it had to be kept, as
 * an index into `mandatoryReasons`, or null). The record id and label are in the fragment's [source: ...] tag in the context, and the
 * record id is the fragment id before its `#`: repeating them cost about 12 tokens a source, which
 * put a 20,000-token context's answer at 1.30x. Score breakdowns, every omission and merge, and
 * the report are detail "full".
 */
export interface ContextSummary {
  context: string;
  /** Absent when listing them would put the answer over the cap: the context's source tags still name each fragment. */
  sources?: { columns: typeof SOURCE_COLUMNS; mandatoryReasons: string[]; rows: SourceRow[] };
  omitted: { total: number; byReason: Partial<Record<OmissionReason, number>> };
  merges: number;
  stats: ContextStats;
  conflict?: BudgetConflict;
  /** Set when the server changed what was asked (a smaller budget, no source list) to stay under its cap. */
  note?: string;
}

export function summarizeContext(result: ContextResult): ContextSummary {
  const byReason: Partial<Record<OmissionReason, number>> = {};
  for (const entry of result.omitted) byReason[entry.reason] = (byReason[entry.reason] ?? 0) + 1;
  // Reasons are few and repeat on every mandatory row: named once, referred to by position.
  const mandatoryReasons: string[] = [];
  const reasonIndex = (reason: string): number => {
    const known = mandatoryReasons.indexOf(reason);
    return known >= 0 ? known : mandatoryReasons.push(reason) - 1;
  };
  const rows = result.sources.map(
    (source): SourceRow => [
      source.fragmentId,
      source.tokens,
      Math.round(source.score * 10) / 10,
      source.mandatory || source.mandatoryReason !== undefined ? reasonIndex(source.mandatoryReason ?? 'mandatory') : null,
    ],
  );
  const summary: ContextSummary = {
    context: result.context,
    sources: { columns: SOURCE_COLUMNS, mandatoryReasons, rows },
    omitted: { total: result.omitted.length, byReason },
    merges: result.report.dedupe.merges.length,
    stats: result.stats,
  };
  if (result.report.selection.conflict !== undefined) summary.conflict = result.report.selection.conflict;
  return summary;
}

function validation(context: ToolContext): { maxRecordChars?: number } {
  return context.maxRecordChars === undefined ? {} : { maxRecordChars: context.maxRecordChars };
}

/** Every stored record normalized together, so ids are the ones build_context's source tags use. */
function storedRecords(context: ToolContext): NormalizedRecord[] {
  return [...context.session.records()];
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
