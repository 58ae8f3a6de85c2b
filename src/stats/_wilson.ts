/** The 0.975 quantile of the standard normal distribution: a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;

/**
 * The Wilson score interval of a proportion (successes of n), 95% by default: unlike the normal
 * approximation it stays inside [0, 1] and is not zero-width at 0 or n, which matters at the few
 * dozen questions or requests a condition has. Null for n = 0.
 */
export function wilsonInterval(successes: number, n: number, z: number = Z_95): { low: number; high: number } | null {
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
