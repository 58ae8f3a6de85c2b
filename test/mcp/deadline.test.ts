import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { Deadline, MAX_BUDGET_MS, checkBudgetMs } from '../../src/mcp/index.js';
import { measureServer } from '../../src/measure/index.js';
import { runCliCaptured } from '../support/cli-run.js';

describe('operation budgets', () => {
  it('accept 1 ms to 24 h', () => {
    expect(checkBudgetMs(1)).toBe(1);
    expect(checkBudgetMs(MAX_BUDGET_MS)).toBe(86_400_000);
    expect(new Deadline(MAX_BUDGET_MS).remainingMs()).toBeGreaterThan(MAX_BUDGET_MS - 60_000);
  });

  // Above 2^31-1 ms Node fires a timer at once: such a budget would time out immediately.
  it.each([[0], [-5], [0.5], [MAX_BUDGET_MS + 1], [2 ** 31], [Number.NaN], [Number.POSITIVE_INFINITY]])('refuse %s ms with USAGE', (ms) => {
    let caught: unknown;
    try {
      new Deadline(ms, 'measurement');
    } catch (error) {
      caught = error;
    }
    expect(isMcpctxError(caught, 'USAGE')).toBe(true);
    expect((caught as Error).message).toMatch(/from 1 to 86400000 \(24 h\)/);
  });

  it('are checked by measureServer before any server starts', async () => {
    const call = measureServer({ name: 'x', launch: { command: '/nonexistent/never-run' }, timeoutMs: 2 ** 31 });
    await expect(call).rejects.toMatchObject({ code: 'USAGE' });
  });

  it.each([['measure'], ['inspect-result']])('--timeout of %s refuses 0 and more than 24 h with exit 2', async (command) => {
    const extra = command === 'inspect-result' ? ['--tool', 'x'] : [];
    for (const value of ['0', '86400001', '2147483648', '1e3']) {
      const run = await runCliCaptured([command, ...extra, '--timeout', value, '--', '/nonexistent/never-run']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/from 1 to 86400000 \(24 h\)/);
    }
  });
});
