/**
 * The name a mistyped word was most likely meant to be: the closest of `names` by edit distance
 * (insertions, deletions, substitutions and swaps of two neighbours each count one), case and
 * separators set aside, within one edit for words of up to five letters and two for longer ones.
 * Undefined when none is that close: a different word, not a typo.
 */
export function nearestName(word: string, names: readonly string[]): string | undefined {
  const typed = simplified(word);
  const allowed = typed.length <= 5 ? 1 : 2;
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(typed, simplified(name), allowed);
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function simplified(word: string): string {
  return word.toLowerCase().replace(/[\s_.-]+/g, '');
}

/** Optimal string alignment distance, given up (returning `limit + 1`) once it must exceed `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (before[j - 2] ?? 0) + 1);
      current.push(value);
      rowBest = Math.min(rowBest, value);
    }
    if (rowBest > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}
