import type { ScoredFragment } from './_score.js';

export const CONSTRAINT_REASON = 'constraint';

function isNewer(a: ScoredFragment, b: ScoredFragment): boolean {
  const ta = a.record.time ?? -Infinity;
  const tb = b.record.time ?? -Infinity;
  return ta !== tb ? ta > tb : a.record.order > b.record.order;
}

/** The message around split-out sentences: its constraint value is carried by them, so it ranks on the rest. */
function withoutConstraint(item: ScoredFragment): ScoredFragment {
  const { mandatoryReason: _carried, ...rest } = item;
  const removed = item.signals.constraint.contribution;
  return {
    ...rest,
    signals: { ...item.signals, constraint: { ...item.signals.constraint, value: 0, contribution: 0 } },
    score: Math.round((item.score - removed) * 10_000) / 10_000 + 0,
    relevance: Math.round((item.relevance - removed) * 10_000) / 10_000 + 0,
  };
}

/**
 * A constraint binds through its sentence, not through the pages around it: a long user or system
 * message (one split into fragments) with a few "must not"s in it should not make all of itself
 * mandatory. In such a message each requirement sentence becomes its own mandatory fragment
 * (`<fragment id>.<k>`), the same sentence said twice counts once (the newest telling), and the
 * message itself competes like any other fragment. A short message stays whole: its rules are
 * often a list whose items carry no "must".
 */
export function splitConstraints(scored: readonly ScoredFragment[]): ScoredFragment[] {
  const fragmentsPerRecord = new Map<string, number>();
  for (const item of scored) fragmentsPerRecord.set(item.record.id, (fragmentsPerRecord.get(item.record.id) ?? 0) + 1);
  const isSplit = (item: ScoredFragment): boolean => item.mandatoryReason === CONSTRAINT_REASON && (fragmentsPerRecord.get(item.record.id) ?? 0) > 1;
  const newestBySentence = new Map<string, ScoredFragment>();
  const out: ScoredFragment[] = [];
  for (const item of scored) {
    if (!isSplit(item)) {
      out.push(item);
      continue;
    }
    const parent = withoutConstraint(item);
    out.push(parent);
    item.facts.requirements.forEach((sentence, k) => {
      const key = sentence.replace(/\s+/g, ' ').trim();
      const derived: ScoredFragment = {
        ...item,
        fragment: { ...item.fragment, id: `${item.fragment.id}.${k + 1}`, text: sentence },
        mandatoryReason: CONSTRAINT_REASON,
      };
      const current = newestBySentence.get(key);
      if (current === undefined || isNewer(derived, current)) newestBySentence.set(key, derived);
    });
  }
  const kept = new Set(newestBySentence.values());
  // Sentences go after their parents, in input order, so the result is as deterministic as the input.
  for (const item of scored) {
    if (!isSplit(item)) continue;
    item.facts.requirements.forEach((_, k) => {
      const id = `${item.fragment.id}.${k + 1}`;
      for (const candidate of kept) if (candidate.fragment.id === id) out.push(candidate);
    });
  }
  return out;
}
