/** Up to this many discordant pairs the binomial terms are summed as plain numbers: 2^-n is still a normal double. */
const LINEAR_MAX_N = 1000;

/**
 * McNemar's exact test, two-sided: of the n = b + c discordant pairs (b: only the first side
 * right, c: only the second), how likely a split at least as uneven as this one is when either
 * side is equally likely to be the one right: 2 · P(X ≤ min(b, c)) for X ~ Binomial(n, 1/2),
 * capped at 1. 1 when no pair is discordant (nothing tells the sides apart).
 *
 * The terms C(n, i) / 2^n are built one from the last (· (n − i) / (i + 1)), so no factorial
 * overflows; up to 1,000 pairs they start at 2^-n exactly (small cases are exact), past that
 * they are summed in log space, which stays finite for any n.
 */
export function mcnemarExact(b: number, c: number): number {
  if (!Number.isSafeInteger(b) || !Number.isSafeInteger(c) || b < 0 || c < 0) throw new RangeError(`discordant counts must be non-negative integers, got ${b} and ${c}`);
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  let tail: number;
  if (n <= LINEAR_MAX_N) {
    let term = 2 ** -n;
    tail = term;
    for (let i = 0; i < k; i++) {
      term = (term * (n - i)) / (i + 1);
      tail += term;
    }
  } else {
    // log of each term, then log-sum-exp around the largest (the last: terms grow up to n/2).
    const logs: number[] = [-n * Math.LN2];
    for (let i = 0; i < k; i++) logs.push(logs[i]! + Math.log(n - i) - Math.log(i + 1));
    const top = logs[logs.length - 1]!;
    tail = Math.exp(top) * logs.reduce((sum, log) => sum + Math.exp(log - top), 0);
  }
  return Math.min(1, 2 * tail);
}
