export type Band = 'brightgreen' | 'green' | 'yellow' | 'orange' | 'red';

/** The colour band of a catalog total, as shown on badges and tables. */
export function bandFor(totalTokens: number): Band {
  if (totalTokens < 1_000) return 'brightgreen';
  if (totalTokens < 5_000) return 'green';
  if (totalTokens < 15_000) return 'yellow';
  if (totalTokens < 30_000) return 'orange';
  return 'red';
}
