import type { NormalizedRecord, OmissionReason, RecordKind } from './_types.js';
import { compareRecency } from './_recency.js';
import type { ScoredFragment } from './_score.js';

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

/** Every heading the context can hold, for reserving their tokens before selection. */
export const ALL_SECTION_HEADINGS: readonly string[] = SECTIONS.map((section) => sectionHeading(section.title));

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

/**
 * Stage 6: the selected fragments in fixed-order sections, chronological within a section, every
 * fragment under its source tag; the ids, scores and reasons stay in the report, not in the text.
 */
export function renderContext(selected: readonly ScoredFragment[], omissions: ReadonlyMap<OmissionReason, number>): string {
  const parts: string[] = [];
  for (const section of SECTIONS) {
    const items = selected.filter(section.holds).sort(chronological);
    if (items.length === 0) continue;
    parts.push(`${sectionHeading(section.title)}${items.map(renderBlock).join('')}`);
  }
  const omitted = omissionLine(omissions);
  if (omitted !== '') parts.push(omitted);
  return parts.join('\n');
}

/** Reads the source tags back out of a rendered context (for checks that every tag resolves). */
export function parseSourceTags(context: string): { fragmentId: string; recordId: string; label: string }[] {
  const tags: { fragmentId: string; recordId: string; label: string }[] = [];
  for (const match of context.matchAll(/^\[source: ([^|\]\n]+) \| ([^|\]\n]+) \| ([^\n]*)\]$/gm)) {
    tags.push({ fragmentId: match[1] as string, recordId: match[2] as string, label: match[3] as string });
  }
  return tags;
}
