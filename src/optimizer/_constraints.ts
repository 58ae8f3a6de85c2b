import { newestByKey, withSignal } from './_score.js';
import type { ScoredFragment } from './_types.js';

export const CONSTRAINT_REASON = 'constraint';

/** The message around split-out sentences: its constraint value is carried by them, so it ranks on the rest. */
function withoutConstraint(item: ScoredFragment): ScoredFragment {
  const { mandatoryReason: _carried, ...rest } = withSignal(item, 'constraint', 0);
  return rest;
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
  const out: ScoredFragment[] = [];
  const sentences: ScoredFragment[] = [];
  for (const item of scored) {
    if (!isSplit(item)) {
      out.push(item);
      continue;
    }
    out.push(withoutConstraint(item));
    item.facts.requirements.forEach((sentence, k) => {
      sentences.push({
        ...item,
        fragment: { ...item.fragment, id: `${item.fragment.id}.${k + 1}`, text: sentence },
        mandatoryReason: CONSTRAINT_REASON,
      });
    });
  }
  const kept = new Set(newestByKey(sentences, (item) => item.fragment.text.replace(/\s+/g, ' ').trim()).values());
  // Sentences go after all fragments, in the order of the fragments they came from.
  out.push(...sentences.filter((item) => kept.has(item)));
  return out;
}
