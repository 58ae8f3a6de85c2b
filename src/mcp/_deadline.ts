import { McpctxError } from '../errors/index.js';

/** Longest budget accepted: 24 hours. Node fires a timer of more than 2^31-1 ms at once, so no longer budget could be kept. */
export const MAX_BUDGET_MS = 24 * 60 * 60 * 1000;

/**
 * Checks an operation budget: a number of milliseconds from 1 to 24 h. Throws USAGE otherwise,
 * naming `what` (`--timeout`, `timeoutMs`).
 */
export function checkBudgetMs(budgetMs: unknown, what = 'timeout'): number {
  if (typeof budgetMs !== 'number' || !Number.isFinite(budgetMs) || budgetMs < 1 || budgetMs > MAX_BUDGET_MS) {
    throw new McpctxError(
      'USAGE',
      `${what} must be a number of milliseconds from 1 to ${MAX_BUDGET_MS} (24 h), got ${typeof budgetMs === 'number' ? budgetMs : JSON.stringify(budgetMs) ?? typeof budgetMs}`,
      { what, budgetMs, maxBudgetMs: MAX_BUDGET_MS },
    );
  }
  return budgetMs;
}

/**
 * One budget shared by every step of an operation. Each wait takes what is left, so a server
 * that answers slowly (or a byte at a time) cannot stretch the operation past the budget.
 */
export class Deadline {
  readonly budgetMs: number;
  readonly label: string;
  private readonly endsAt: number;

  constructor(budgetMs: number, label = 'operation') {
    this.budgetMs = checkBudgetMs(budgetMs, `the ${label} budget`);
    this.label = label;
    this.endsAt = performance.now() + budgetMs;
  }

  remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  get expired(): boolean {
    return this.remainingMs() <= 0;
  }

  error(waitingFor: string): McpctxError {
    return new McpctxError(
      'DEADLINE',
      `${this.label} exceeded its ${this.budgetMs} ms budget while waiting for ${waitingFor}`,
      { budgetMs: this.budgetMs, label: this.label, waitingFor },
    );
  }
}
