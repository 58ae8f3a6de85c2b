import { originText } from './_normalize.js';
import { compareRecency } from './_recency.js';
import { renderBlock } from './_render.js';
import { failuresKey, newestByKey, withSignal } from './_score.js';
import type { ScoredFragment } from './_types.js';
import type { NormalizedRecord, OmittedEntry, TokenCounter } from './_types.js';

/** What has been selected so far, as far as overlap goes. */
export interface RedundancyIndex {
  /** Highest containment (0..1) of `text` in any fragment added so far. */
  similarity(text: string): number;
  add(text: string): void;
}

export interface SelectionOptions {
  budget: number;
  /** Rendered tokens already counted, by fragment id (each fragment is counted once). */
  countedTokens?: ReadonlyMap<string, number>;
  /** Tokens reserved for section headings and the omission line. */
  reservedTokens: number;
  minRelevance: number;
  counter: TokenCounter;
  /** A new, empty overlap index (one for ranking, one per greedy fill). */
  newRedundancyIndex: () => RedundancyIndex;
  /** At or above this containment in what is already selected, a fragment adds nothing. */
  redundantAt: number;
  /** Text the reader already has (the task): a fragment that only repeats it is redundant, mandatory or not. */
  alreadyKnown: string;
  /** `best-first`: mandatory fragments that do not fit are left out, best-ranked kept first (`OptimizerOptions.mandatoryOverBudget`). */
  mandatoryOverBudget?: 'include-all' | 'best-first';
}

/** Below this many tokens, per-token value stops growing: a tag and a header alone cost about 20. */
const MIN_RATE_TOKENS = 150;

interface Fill {
  picked: ScoredFragment[];
  dropped: OmittedEntry[];
  total: number;
}

export interface Selection {
  selected: ScoredFragment[];
  omitted: OmittedEntry[];
  /** Tokens of each selected fragment's rendered block, by fragment id. */
  tokens: Map<string, number>;
  /** What the mandatory fragments need, whether or not all were kept. */
  mandatoryTokens: number;
  /** Mandatory fragments left out because they did not fit (`best-first` only). */
  mandatoryOmitted: number;
}

/** Higher score first; then the newer record (`compareRecency`), then fragment position: never a coin toss. */
export function byRank(a: ScoredFragment, b: ScoredFragment): number {
  if (a.score !== b.score) return b.score - a.score;
  return tieBreak(a, b);
}

function tieBreak(a: ScoredFragment, b: ScoredFragment): number {
  return compareRecency(b.record, a.record) || a.fragment.index - b.fragment.index;
}

/**
 * For each set of failures, the newest fragment showing exactly that set: an older run that failed
 * the same way tells nothing the newer one does not (its exit code stays in the run history).
 */
function newestByFailures(scored: readonly ScoredFragment[]): Map<string, ScoredFragment> {
  return newestByKey(scored, (item) => {
    if (item.record.kind !== 'toolOutput' && item.record.kind !== 'testResult') return undefined;
    const key = failuresKey(item);
    return key === '' ? undefined : key;
  });
}

export function omittedEntry(item: ScoredFragment, reason: OmittedEntry['reason'], detail: string, tokens?: number): OmittedEntry {
  const entry: OmittedEntry = {
    fragmentId: item.fragment.id,
    recordId: item.record.id,
    origin: originText(item.record),
    reason,
    score: item.score,
    detail,
  };
  if (tokens !== undefined) entry.tokens = tokens;
  return entry;
}

/**
 * The agent's first message after each message of the user, per session, in the oldest-first order
 * `scored` is in: where it says what it took from the instruction ("Got it. Plan: store the send
 * time on the invoice; new migration only").
 */
function repliesToUser(scored: readonly ScoredFragment[]): Set<NormalizedRecord> {
  const replies = new Set<NormalizedRecord>();
  const awaitingReply = new Set<string | undefined>();
  for (const { record } of scored) {
    if (record.kind !== 'message') continue;
    if (record.role === 'user') awaitingReply.add(record.session);
    else if (record.role === 'assistant' && awaitingReply.delete(record.session)) replies.add(record);
  }
  return replies;
}

/**
 * Below the relevance floor, and none of: the user's own words, the agent's first reply to them, an
 * edit. What the user said in a session is an instruction whatever words it shares with the task
 * ("leave the cli spec for now", "you may add a migration now"); the reply is the plan the agent
 * took from it; an edit is the state of the work a hand-off continues ("finish it within the limits
 * I gave you" names none of them). These are never dropped as irrelevant; they still compete for
 * the budget by score.
 */
function isLowRelevance(item: ScoredFragment, minRelevance: number, replies: ReadonlySet<NormalizedRecord>): boolean {
  return item.relevance < minRelevance && item.record.role !== 'user' && item.record.kind !== 'diff' && !replies.has(item.record);
}

/**
 * Stage 5: mandatory fragments first, all of them, whatever the budget; then the rest greedily by
 * score per token. Returns what fits in `budget - reservedTokens`, each block counted once; `_fit.ts`
 * renders it and checks the joined text.
 */
export function selectFragments(scored: readonly ScoredFragment[], options: SelectionOptions): Selection {
  const { counter } = options;
  const redundancy = options.newRedundancyIndex();
  const tokens = new Map<string, number>(options.countedTokens ?? []);
  const selected: ScoredFragment[] = [];
  const omitted: OmittedEntry[] = [];
  const cost = (item: ScoredFragment): number => {
    let count = tokens.get(item.fragment.id);
    if (count === undefined) {
      count = counter.count(renderBlock(item));
      tokens.set(item.fragment.id, count);
    }
    return count;
  };

  redundancy.add(options.alreadyKnown);
  const mandatory: ScoredFragment[] = [];
  for (const item of scored.filter((candidate) => candidate.mandatoryReason !== undefined).sort(byRank)) {
    const similarity = redundancy.similarity(item.fragment.text);
    if (similarity >= options.redundantAt) {
      omitted.push(omittedEntry(item, 'redundant', `${Math.round(similarity * 100)}% of its text is already in the task`));
    } else mandatory.push(item);
  }
  const available = options.budget - options.reservedTokens;
  let used = 0;
  let mandatoryTokens = 0;
  let mandatoryOmitted = 0;
  for (const item of mandatory) {
    const count = cost(item);
    mandatoryTokens += count;
    if (options.mandatoryOverBudget === 'best-first' && used + count > available) {
      omitted.push(omittedEntry(item, 'over-budget', `mandatory (${item.mandatoryReason}), but the mandatory fragments alone are over the budget: ${count} tokens do not fit in the ${Math.max(0, available - used)} left`, count));
      mandatoryOmitted += 1;
      continue;
    }
    used += count;
    selected.push(item);
    redundancy.add(item.fragment.text);
  }

  const replies = repliesToUser(scored);
  const newestShowing = newestByFailures(scored);
  const candidates: ScoredFragment[] = [];
  for (const item of scored) {
    if (item.mandatoryReason !== undefined) continue;
    const newer = newestShowing.get(failuresKey(item));
    if (isLowRelevance(item, options.minRelevance, replies)) {
      omitted.push(omittedEntry(item, 'low-relevance', `relevance ${item.relevance} is below ${options.minRelevance}`));
    } else if (newer !== undefined && newer !== item) {
      omitted.push(omittedEntry(item, 'redundant', `a newer output, ${newer.fragment.id}, shows the same failures`));
    } else candidates.push(item);
  }
  // The redundancy penalty is against every higher-ranked fragment, selected or not, so that of two
  // near copies the better-ranked one (often the newer) is the one greedy selection meets first.
  const ranked = options.newRedundancyIndex();
  ranked.add(options.alreadyKnown);
  for (const item of mandatory) ranked.add(item.fragment.text);
  const penalized = candidates.sort(byRank).map((item) => {
    const adjusted = withSignal(item, 'redundancy', ranked.similarity(item.fragment.text));
    ranked.add(item.fragment.text);
    return adjusted;
  });
  // Greedy by score per token is the rule; small fragments win it too easily against one large
  // fragment that matters. So the same greedy also runs in plain score order, and the fill with the
  // higher total score is kept (the classic guard that bounds greedy knapsack's loss).
  const perToken = new Map(penalized.map((item) => [item, item.score / Math.max(MIN_RATE_TOKENS, cost(item))]));
  const byRate = [...penalized].sort((a, b) => {
    const ra = perToken.get(a) as number;
    const rb = perToken.get(b) as number;
    return ra !== rb ? rb - ra : byRank(a, b);
  });
  const fill = (order: readonly ScoredFragment[]): Fill => {
    const index = options.newRedundancyIndex();
    for (const item of selected) index.add(item.fragment.text);
    const picked: ScoredFragment[] = [];
    const dropped: OmittedEntry[] = [];
    let tokensUsed = used;
    let total = 0;
    for (const item of order) {
      const count = cost(item);
      if (tokensUsed + count > available) {
        dropped.push(omittedEntry(item, 'over-budget', `${count} tokens do not fit in the ${Math.max(0, available - tokensUsed)} left`, count));
        continue;
      }
      const similarity = index.similarity(item.fragment.text);
      if (similarity >= options.redundantAt) {
        dropped.push(omittedEntry(item, 'redundant', `${Math.round(similarity * 100)}% of its text is already in the context`, count));
        continue;
      }
      tokensUsed += count;
      total += item.score;
      picked.push(item);
      index.add(item.fragment.text);
    }
    return { picked, dropped, total };
  };
  const rateFill = fill(byRate);
  const scoreFill = fill(penalized);
  const best = scoreFill.total > rateFill.total ? scoreFill : rateFill;
  selected.push(...best.picked);
  omitted.push(...best.dropped);
  return { selected, omitted, tokens, mandatoryTokens, mandatoryOmitted };
}
