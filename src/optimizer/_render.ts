import type { NormalizedRecord, OmissionReason, RecordKind, TokenCounter } from './_types.js';
import { compareRecency } from './_recency.js';
import type { ScoredFragment } from './_types.js';

interface SectionSpec {
  title: string;
  holds: (item: ScoredFragment) => boolean;
}

function isConstraintMessage(item: ScoredFragment): boolean {
  return item.record.kind === 'message' && item.mandatoryReason === 'constraint';
}

function ofKind(kind: RecordKind): (item: ScoredFragment) => boolean {
  return (item) => item.record.kind === kind && !isConstraintMessage(item);
}

/** Fixed order: what binds the work first, then what is broken, then the material. */
const SECTIONS: readonly SectionSpec[] = [
  { title: 'Constraints', holds: isConstraintMessage },
  { title: 'Decisions', holds: ofKind('decision') },
  { title: 'Errors', holds: ofKind('error') },
  { title: 'Test results', holds: ofKind('testResult') },
  { title: 'Tool outputs', holds: ofKind('toolOutput') },
  { title: 'Diffs', holds: ofKind('diff') },
  { title: 'Files', holds: ofKind('file') },
  { title: 'Conversation', holds: ofKind('message') },
];

export function sourceTag(fragmentId: string, record: Pick<NormalizedRecord, 'id' | 'label'>): string {
  return `[source: ${fragmentId} | ${record.id} | ${record.label}]`;
}

/** The history line names the latest few earlier runs; older ones are counted, so the line stays one line. */
const HISTORY_SHOWN = 5;

function historyLine(record: NormalizedRecord): string {
  const { history } = record;
  const shown = history.slice(-HISTORY_SHOWN);
  const older = history.length - shown.length;
  const olderNote = older > 0 ? `${older} older, then ` : '';
  if (record.kind === 'file') {
    const times = shown.map((snapshot) => snapshot.timestamp ?? 'undated');
    return `earlier snapshots (${history.length}), superseded by this one: ${olderNote}${times.join('; ')}`;
  }
  const runs = shown.map((run) => {
    const outcome = run.exitCode !== undefined ? `exit ${run.exitCode}` : run.status ?? 'no exit code';
    return run.timestamp === undefined ? outcome : `${outcome} at ${run.timestamp}`;
  });
  return `earlier runs (${history.length}): ${olderNote}${runs.join('; ')}`;
}

/** What a person needs to read a record's first fragment that is not in its text: exit code, status, earlier runs. */
function recordHeader(record: NormalizedRecord): string[] {
  const lines: string[] = [];
  if (record.kind === 'toolOutput' && record.exitCode !== undefined) lines.push(`exit code ${record.exitCode}`);
  if (record.kind === 'testResult') lines.push(`status: ${record.testStatus ?? 'unknown'}`);
  if (record.history.length > 0) lines.push(historyLine(record));
  return lines;
}

/** One fragment as it appears in the context: its tag, the record's header on the first fragment, the text. */
export function renderBlock(item: Pick<ScoredFragment, 'fragment' | 'record'>): string {
  const lines = [sourceTag(item.fragment.id, item.record)];
  if (item.fragment.index === 1) lines.push(...recordHeader(item.record));
  lines.push(item.fragment.text);
  return `${lines.join('\n')}\n`;
}

export function sectionHeading(title: string): string {
  return `## ${title}\n`;
}

export function omissionLine(counts: ReadonlyMap<OmissionReason, number>): string {
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  if (total === 0) return '';
  const parts = [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([reason, n]) => `${reason} ${n}`);
  return `[omitted: ${total} fragment${total === 1 ? '' : 's'} (${parts.join(', ')}); the report lists each with its reason]\n`;
}

/** Oldest first (`compareRecency`), a record's fragments in their order. */
function chronological(a: ScoredFragment, b: ScoredFragment): number {
  return compareRecency(a.record, b.record) || a.fragment.index - b.fragment.index;
}

/** What separates two sections (and the last section from the omission line): a blank line. */
const SECTION_SEPARATOR = '\n';

/** The rendered context and the fragments in it, in the order their blocks appear. */
export interface RenderedContext {
  text: string;
  /** The selected fragments in rendering order: the sources of the result, no parsing of `text` needed. */
  blocks: ScoredFragment[];
}

/**
 * Stage 6: the selected fragments in fixed-order sections, chronological within a section, every
 * fragment under its source tag; the ids, scores and reasons stay in the report, not in the text.
 */
export function layoutContext(selected: readonly ScoredFragment[], omissions: ReadonlyMap<OmissionReason, number>): RenderedContext {
  const parts: string[] = [];
  const blocks: ScoredFragment[] = [];
  for (const section of SECTIONS) {
    const items = selected.filter(section.holds).sort(chronological);
    if (items.length === 0) continue;
    blocks.push(...items);
    parts.push(`${sectionHeading(section.title)}${items.map(renderBlock).join('')}`);
  }
  const omitted = omissionLine(omissions);
  if (omitted !== '') parts.push(omitted);
  return { text: parts.join(SECTION_SEPARATOR), blocks };
}

export function renderContext(selected: readonly ScoredFragment[], omissions: ReadonlyMap<OmissionReason, number>): string {
  return layoutContext(selected, omissions).text;
}

/**
 * Tokens the context spends outside the fragments' blocks, at most: every section heading, the
 * blank line before every section but the first and before the omission line, and the omission
 * line itself with every reason present and each count at `maxOmitted` (the most fragments and
 * records there are to omit), the longest line this session can produce.
 *
 * Why the blocks and these parts add up: every block ends with a newline and every block, heading
 * and the omission line begins with `[` or `#`, and o200k's pre-tokenizer never joins a newline to
 * a following `[` or `#` (only to more whitespace or a `/`), so the count of the joined text is the
 * sum of the counts of the parts. The one exception is the blank line between sections: its newline
 * can merge with the newline that ends the section before (`)\n\n`), which is why the separators
 * are counted here on their own and the caller checks the joined text once at the end.
 */
export function renderingReserve(counter: TokenCounter, maxOmitted: number): number {
  const headings = SECTIONS.reduce((sum, section) => sum + counter.count(sectionHeading(section.title)), 0);
  const separators = SECTIONS.length * counter.count(SECTION_SEPARATOR);
  const omission = counter.count(omissionLine(new Map(OMISSION_REASONS.map((reason) => [reason, Math.max(1, maxOmitted)]))));
  return headings + separators + omission;
}

export const OMISSION_REASONS: readonly OmissionReason[] = ['exact-duplicate', 'repeated-run', 'near-duplicate', 'low-relevance', 'redundant', 'over-budget'];

/** Reads the source tags back out of a rendered context (for checks that every tag resolves). */
export function parseSourceTags(context: string): { fragmentId: string; recordId: string; label: string }[] {
  const tags: { fragmentId: string; recordId: string; label: string }[] = [];
  for (const match of context.matchAll(/^\[source: ([^|\]\n]+) \| ([^|\]\n]+) \| ([^\n]*)\]$/gm)) {
    tags.push({ fragmentId: match[1] as string, recordId: match[2] as string, label: match[3] as string });
  }
  return tags;
}
