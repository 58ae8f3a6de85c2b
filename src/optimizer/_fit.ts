/**
 * Stage 7: render the selection and check the one number that is promised, the token count of the
 * rendered text, once.
 *
 * Selection already made the blocks fit: it counted each block once and reserved the headings, the
 * blank lines and the longest omission line (`renderingReserve`). Under o200k that sum is the
 * count of the text except where a blank line between sections merges with the newline before it,
 * which can only make the text cheaper; a counter of the caller's own may not be additive at all.
 * So the joined text is counted once, and only if it is over the budget are optional fragments taken
 * out, weakest value per token first, enough of them to cover the excess in one go; this repeats
 * at most MAX_REPAIRS times (each pass removes at least one fragment), never once per fragment.
 */
import { layoutContext } from './_render.js';
import { omittedEntry } from './_select.js';
import { byRank, type Selection } from './_select.js';
import type { ScoredFragment } from './_types.js';
import type { OmissionReason, OmittedEntry, TokenCounter } from './_types.js';

/** Passes of the final check that may remove fragments; the first one is nearly always the last. */
const MAX_REPAIRS = 3;

export interface Fitted {
  context: string;
  /** The kept fragments in the order their blocks appear in `context`. */
  blocks: ScoredFragment[];
  /** Every omission: the merges, selection's, and any the final check made. */
  omitted: OmittedEntry[];
  /** Tokens of `context`, counted on the joined text. */
  renderedTokens: number;
  /** Mandatory fragments the final check took out (`best-first` only). */
  mandatoryRemoved: number;
}

function omissionCounts(omitted: readonly OmittedEntry[]): Map<OmissionReason, number> {
  const counts = new Map<OmissionReason, number>();
  for (const entry of omitted) counts.set(entry.reason, (counts.get(entry.reason) ?? 0) + 1);
  return counts;
}

/**
 * Optional fragments from the lowest score per token up (ties: the lower-ranked first); then, when
 * the budget is a hard limit (`best-first`), the mandatory ones from the lowest-ranked up.
 */
function weakestFirst(selected: readonly ScoredFragment[], tokens: ReadonlyMap<string, number>, mandatoryToo: boolean): ScoredFragment[] {
  const rate = (item: ScoredFragment): number => item.score / Math.max(1, tokens.get(item.fragment.id) ?? 1);
  const optional = selected.filter((item) => item.mandatoryReason === undefined).sort((a, b) => rate(a) - rate(b) || byRank(b, a));
  return mandatoryToo ? [...optional, ...selected.filter((item) => item.mandatoryReason !== undefined).sort((a, b) => byRank(b, a))] : optional;
}

export function fitRendered(selection: Selection, mergeOmissions: readonly OmittedEntry[], budget: number, counter: TokenCounter, mandatoryOverBudget: 'include-all' | 'best-first' = 'include-all'): Fitted {
  const omitted = [...mergeOmissions, ...selection.omitted];
  let selected = selection.selected;
  let rendered = layoutContext(selected, omissionCounts(omitted));
  let renderedTokens = counter.count(rendered.text);
  let mandatoryRemoved = 0;
  for (let pass = 0; pass < MAX_REPAIRS && renderedTokens > budget; pass++) {
    const excess = renderedTokens - budget;
    const removed = new Set<ScoredFragment>();
    let freed = 0;
    for (const item of weakestFirst(selected, selection.tokens, mandatoryOverBudget === 'best-first')) {
      if (freed >= excess) break;
      removed.add(item);
      freed += selection.tokens.get(item.fragment.id) ?? 0;
    }
    if (removed.size === 0) break; // only mandatory content is left (include-all): the caller reports the conflict
    selected = selected.filter((item) => !removed.has(item));
    for (const item of removed) {
      if (item.mandatoryReason !== undefined) mandatoryRemoved += 1;
      omitted.push(omittedEntry(item, 'over-budget', 'removed so that the rendered context fits the budget', selection.tokens.get(item.fragment.id)));
    }
    rendered = layoutContext(selected, omissionCounts(omitted));
    renderedTokens = counter.count(rendered.text);
  }
  return { context: rendered.text, blocks: rendered.blocks, omitted, renderedTokens, mandatoryRemoved };
}
