import { McpctxError } from '../errors/index.js';

/**
 * One budget shared by every step of an operation. Each wait takes what is left, so a server
 * that answers slowly (or a byte at a time) cannot stretch the operation past the budget.
 */
export class Deadline {
  readonly budgetMs: number;
  readonly label: string;
  private readonly endsAt: number;

  constructor(budgetMs: number, label = 'operation') {
    if (!Number.isFinite(budgetMs) || budgetMs <= 0) {
      throw new McpctxError('USAGE', `a deadline needs a positive number of milliseconds, got ${budgetMs}`);
    }
    this.budgetMs = budgetMs;
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
