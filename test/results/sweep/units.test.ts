import { describe, expect, it } from 'vitest';
import type { MeasureOptions, Measurement, RecordStatus } from '../../../src/measure/index.js';
import { MAX_BUDGET_MS } from '../../../src/mcp/index.js';
import { applyNotApplicable, checkHarness, findOnPath, measureWithRetries } from '../../../src/results/sweep/index.js';
import { record, server, state } from '../leaderboard/_state.js';

/** A measure function that answers each call with the next status, and remembers the budgets asked for. */
function scripted(statuses: RecordStatus[]): { measure: (options: MeasureOptions) => Promise<Measurement>; budgets: number[] } {
  const budgets: number[] = [];
  return {
    budgets,
    measure: async (options) => {
      budgets.push(options.timeoutMs ?? -1);
      const status = statuses[budgets.length - 1] ?? 'measured';
      return record(options.name, { status, note: `${status} note` });
    },
  };
}

describe('measureWithRetries', () => {
  it('retries a timeout once with the budget doubled and says so', async () => {
    const { measure, budgets } = scripted(['timeout', 'measured']);
    const result = await measureWithRetries({ name: 'a', launch: { command: 'x' }, timeoutMs: 30_000 }, measure);
    expect(budgets).toEqual([30_000, 60_000]);
    expect(result.measurement.status).toBe('measured');
    expect(result.measurement.note).toBe('measured on the retry with a doubled budget of 60,000 ms (first attempt: timeout at 30,000 ms); measured note');
  });

  it('names the widest budget tried when the retry times out too', async () => {
    const { measure } = scripted(['timeout', 'timeout']);
    const result = await measureWithRetries({ name: 'a', launch: { command: 'x' }, timeoutMs: 30_000 }, measure);
    expect(result.budgetsMs).toEqual([30_000, 60_000]);
    expect(result.measurement.note).toMatch(/^timeout at 30,000 ms and again on the retry at 60,000 ms; widest budget tried 60,000 ms/);
  });

  it('never doubles past MAX_BUDGET_MS', async () => {
    const { measure, budgets } = scripted(['timeout', 'measured']);
    const result = await measureWithRetries({ name: 'a', launch: { command: 'x' }, timeoutMs: MAX_BUDGET_MS - 1 }, measure);
    expect(budgets).toEqual([MAX_BUDGET_MS - 1, MAX_BUDGET_MS]);
    expect(result.measurement.note).toMatch(/raised to 86,400,000 ms, the most allowed/);
    const atMost = scripted(['timeout', 'measured']);
    const again = await measureWithRetries({ name: 'a', launch: { command: 'x' }, timeoutMs: MAX_BUDGET_MS }, atMost.measure);
    expect(atMost.budgets).toEqual([MAX_BUDGET_MS, MAX_BUDGET_MS]);
    expect(again.measurement.note).toMatch(/^measured on the retry at the same budget of 86,400,000 ms, the most allowed/);
  });

  it('retries a startup-failure once at the same budget', async () => {
    const { measure, budgets } = scripted(['startup-failure', 'startup-failure']);
    const result = await measureWithRetries({ name: 'a', launch: { command: 'x' }, timeoutMs: 5_000 }, measure);
    expect(budgets).toEqual([5_000, 5_000]);
    expect(result.measurement.note).toMatch(/^startup-failure on the first attempt and again on the retry/);
  });

  it('never retries protocol-mismatch, protocol-limit, redirect-refused, auth-required, measured or dynamic', async () => {
    for (const status of ['protocol-mismatch', 'protocol-limit', 'redirect-refused', 'auth-required', 'measured', 'dynamic'] as const) {
      const { measure, budgets } = scripted([status]);
      const result = await measureWithRetries({ name: 'a', launch: { command: 'x' } }, measure);
      expect(budgets).toHaveLength(1);
      expect(result.measurement.note).toBe(`${status} note`);
    }
  });
});

describe('applyNotApplicable', () => {
  const declared = { reason: 'needs a macOS host', expect: 'darwin only' };
  it('publishes not-applicable when the failure says the declared words, quoting them', () => {
    const failure = { ...record('x', { status: 'startup-failure', note: 'the server exited with code 1 during start' }), stderrTail: 'Error: Darwin only package\n' };
    const published = applyNotApplicable(failure, declared);
    expect(published.status).toBe('not-applicable');
    expect(published.note).toMatch(/^needs a macOS host; the failure says "Darwin only" \(startup-failure: the server exited/);
    expect(published.stderrTail).toBe(failure.stderrTail);
  });

  it('publishes the real failure when the words are not there, and a measured server as measured', () => {
    const failure = { ...record('x', { status: 'startup-failure', note: 'exited' }), stderrTail: 'segfault' };
    const published = applyNotApplicable(failure, declared);
    expect(published.status).toBe('startup-failure');
    expect(published.note).toMatch(/does not say "darwin only"/);
    expect(applyNotApplicable(record('x'), declared).status).toBe('measured');
  });
});

describe('checkHarness', () => {
  const measured = (name: string) => server(name, { tools: 3, tokens: 100 });
  const fresh = (statuses: Record<string, RecordStatus>) => new Map(Object.entries(statuses).map(([name, status]) => [name, record(name, { status })]));

  it('trips at 5 regressions that are at least half of those that could regress', () => {
    const previous = state(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map(measured));
    const now = fresh({ a: 'timeout', b: 'timeout', c: 'timeout', d: 'startup-failure', e: 'not-applicable', f: 'measured', g: 'measured', h: 'measured', i: 'measured', j: 'measured' });
    const report = checkHarness(previous, now);
    expect(report).toMatchObject({ checked: true, tripped: true, regressed: ['a', 'b', 'c', 'd', 'e'] });
    expect(report.couldRegress).toHaveLength(10);
    expect(report.note).toMatch(/a, b, c, d, e/);
  });

  it('does not trip below 5, nor below half', () => {
    const previous = state(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'].map(measured));
    expect(checkHarness(previous, fresh({ a: 'timeout', b: 'timeout', c: 'timeout', d: 'timeout', e: 'measured' })).tripped).toBe(false);
    const eleven = fresh(Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'].map((name, index) => [name, index < 5 ? 'timeout' : 'measured'])));
    expect(checkHarness(previous, eleven).tripped).toBe(false);
  });

  it('counts neither an empty catalog nor a server not swept this run as a real number', () => {
    const previous = state([server('empty', { tools: 0, tokens: 2 }), measured('unswept'), server('failed', { status: 'timeout' })]);
    const report = checkHarness(previous, fresh({ empty: 'timeout', failed: 'timeout' }));
    expect(report).toMatchObject({ checked: false, tripped: false });
    expect(report.note).toMatch(/could not be made: no server swept this run had a real number/);
    expect(checkHarness(null, fresh({ a: 'timeout' })).note).toMatch(/could not be made: there were no previous results/);
  });
});

describe('findOnPath', () => {
  it('finds executables on PATH only', () => {
    expect(findOnPath('node', process.env.PATH)).not.toBeNull();
    expect(findOnPath('docker', '/nonexistent')).toBeNull();
  });
});
