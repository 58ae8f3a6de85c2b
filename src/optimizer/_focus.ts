import { basename, tokenizeWords } from './_extract.js';
import { renderBlock } from './_render.js';
import type { ScoredFragment } from './_types.js';
import type { RecordKind, TokenCounter } from './_types.js';

/** Fragments up to this many characters are shown whole: an excerpt would save too little. */
const FOCUS_ABOVE_CHARS = 600;
/** Lines shown around each line that bears on the task, as many as a unified diff shows. */
const CONTEXT_LINES = 3;
/** A line bears on the task when its weight is at least this share of the fragment's best line. */
const HIT_SHARE = 0.5;
/** A task word on more than this share of a fragment's lines (`src` on every line of a test run) singles none out. */
const COMMON_WORD_SHARE = 0.5;
/** An excerpt that would show more than this share of the lines saves too little: the fragment is shown whole. */
const SHOW_WHOLE_ABOVE = 0.6;
/** Tool output, test runs' output (a failing run's log is mandatory, its routine lines are not) and file views are read line by line; messages are prose, and diffs and errors are never cut. */
const FOCUSED_KINDS: ReadonlySet<RecordKind> = new Set(['toolOutput', 'file', 'testResult']);

function hiddenLinesMarker(count: number): string {
  return `[… ${count} line${count === 1 ? '' : 's'} not shown …]`;
}

/**
 * The lines never cut: those that show a failure (error signatures, failing tests, stack frames and
 * locations) and, in a file, the lines a failure's location names.
 */
function failureLines(item: ScoredFragment, lines: readonly string[]): boolean[] {
  const { errorSignatures, testFailures, frames } = item.facts;
  const marks = [...errorSignatures, ...testFailures].map((mark) => mark.trim()).filter((mark) => mark !== '');
  const named = new Set((item.namedLines ?? []).map((line) => line - item.fragment.firstLine));
  return lines.map((line, i) => {
    if (named.has(i)) return true;
    if (line.trim() === '') return false;
    if (marks.some((mark) => line.includes(mark))) return true;
    return frames.some((frame) => line.includes(basename(frame.file)) && line.includes(String(frame.line)));
  });
}

/**
 * How much each line bears on one set of focus words: their weights on it, leaving out words so
 * common in this fragment that they single out no line.
 */
function lineWeights(lines: readonly string[], lineWords: readonly (readonly string[])[], weights: ReadonlyMap<string, number>): number[] {
  const linesWith = new Map<string, number>();
  for (const list of lineWords) for (const word of list) if (weights.has(word)) linesWith.set(word, (linesWith.get(word) ?? 0) + 1);
  const common = COMMON_WORD_SHARE * lines.length;
  return lineWords.map((list) => list.reduce((sum, word) => ((linesWith.get(word) ?? 0) <= common ? sum + (weights.get(word) ?? 0) : sum), 0));
}

/**
 * Word weights that single out the lines of an excerpt. Each set picks its own best lines: the
 * task's words (by IDF), and the words of the accepted decisions the task carries (`_score.ts`).
 */
export type FocusWordSets = readonly ReadonlyMap<string, number>[];

/**
 * A large fragment of tool output or a file, cut to the lines that bear on the task (the best lines
 * of each focus word set, failures) with CONTEXT_LINES around each; every run of hidden lines is
 * replaced by a marker that says how many. Returns the fragment unchanged when nothing stands out
 * or too little would go. Its signals are those of the whole fragment: the excerpt is how it is
 * shown, not what it is.
 */
export function focusFragment(item: ScoredFragment, wordSets: FocusWordSets): ScoredFragment {
  const { fragment } = item;
  if (!FOCUSED_KINDS.has(item.record.kind) || fragment.text.length <= FOCUS_ABOVE_CHARS) return item;
  const lines = fragment.text.split('\n');
  const lineWords = lines.map((line) => tokenizeWords(line));
  const hits = wordSets.filter((weights) => weights.size > 0).map((weights) => {
    const perLine = lineWeights(lines, lineWords, weights);
    const best = Math.max(...perLine);
    return perLine.map((weight) => weight > 0 && weight >= HIT_SHARE * best);
  });
  const failing = failureLines(item, lines);
  const shown = new Array<boolean>(lines.length).fill(false);
  lines.forEach((_, i) => {
    if (!failing[i] && !hits.some((hit) => hit[i])) return;
    for (let j = Math.max(0, i - CONTEXT_LINES); j <= Math.min(lines.length - 1, i + CONTEXT_LINES); j++) shown[j] = true;
  });
  const shownLines = shown.filter(Boolean).length;
  if (shownLines === 0 || shownLines > SHOW_WHOLE_ABOVE * lines.length) return item;

  const out: string[] = [];
  let hidden = 0;
  lines.forEach((line, i) => {
    if (!shown[i]) {
      hidden += 1;
      return;
    }
    if (hidden > 0) out.push(hiddenLinesMarker(hidden));
    hidden = 0;
    out.push(line);
  });
  if (hidden > 0) out.push(hiddenLinesMarker(hidden));
  return { ...item, fragment: { ...fragment, text: out.join('\n'), excerpt: { shownLines, totalLines: lines.length } } };
}

export interface FocusOptions {
  counter: TokenCounter;
  /** Tokens the fragments may take (the budget less headings and the omission line). */
  available: number;
  minRelevance: number;
  /** The word sets that pick an excerpt's lines. */
  focusWords: FocusWordSets;
}

export interface Focused {
  candidates: ScoredFragment[];
  /** Rendered tokens of the fragments counted here and shown as they were, by fragment id. */
  tokens: Map<string, number>;
}

/**
 * Large fragments become excerpts only when the fragments that could be selected (mandatory, or
 * relevant enough) do not all fit: with room for everything, everything is shown whole.
 */
export function focusWhereOverBudget(scored: readonly ScoredFragment[], options: FocusOptions): Focused {
  const tokens = new Map<string, number>();
  let total = 0;
  for (const item of scored) {
    if (item.mandatoryReason === undefined && item.relevance < options.minRelevance) continue;
    const count = options.counter.count(renderBlock(item));
    tokens.set(item.fragment.id, count);
    total += count;
    // Not everything fits: the rest need not be counted here (selection counts what it weighs).
    if (total > options.available) break;
  }
  if (total <= options.available) return { candidates: [...scored], tokens };
  // A fragment that cannot be selected (optional and under minRelevance) is only listed as omitted: not worth an excerpt.
  const candidates = scored.map((item) => (item.mandatoryReason === undefined && item.relevance < options.minRelevance ? item : focusFragment(item, options.focusWords)));
  for (const item of candidates) if (item.fragment.excerpt !== undefined) tokens.delete(item.fragment.id);
  return { candidates, tokens };
}
