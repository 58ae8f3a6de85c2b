// ContextOptimizer.prepare + buildContextFrom: the task-independent half kept for many builds gives
// byte for byte what buildContext gives for the same records and task, whatever was built before.
import { describe, expect, it } from 'vitest';
import { generateSession } from '../../bench/optimizer/_generate.js';
import { loadScenarios, SCENARIO_DIR } from '../../bench/optimizer/_scenarios.js';
import { ContextOptimizer, PreparedRecords, type OptimizerInput, type SessionRecords } from '../../src/optimizer/index.js';

function recordsOf(input: OptimizerInput): SessionRecords {
  const { task: _task, tokenBudget: _budget, session: _session, ...records } = input;
  return records;
}

function refusalCode(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe('ContextOptimizer.prepare and buildContextFrom', () => {
  it('give the bytes of buildContext for several tasks and budgets over one preparation', () => {
    const input = generateSession(400);
    const optimizer = new ContextOptimizer();
    const prepared = optimizer.prepare(recordsOf(input));
    expect(prepared).toBeInstanceOf(PreparedRecords);
    expect(prepared.recordCount).toBe(400);
    const requests = [
      { task: input.task, tokenBudget: 3_000 },
      { task: 'fix the failing test in the parser and keep the public API', tokenBudget: 12_000 },
      { task: input.task, tokenBudget: 500, session: 'other' },
      { task: input.task },
    ];
    for (const request of requests) {
      const fresh = JSON.stringify(new ContextOptimizer().buildContext({ ...recordsOf(input), ...request }));
      expect(JSON.stringify(optimizer.buildContextFrom(prepared, request))).toBe(fresh);
    }
  });

  it('give the bytes of buildContext on every tuned scenario', () => {
    const optimizer = new ContextOptimizer();
    for (const scenario of loadScenarios(SCENARIO_DIR).slice(0, 12)) {
      const prepared = optimizer.prepare(scenario.records);
      // A build for another task first: nothing of it may stay in the prepared records.
      optimizer.buildContextFrom(prepared, { task: 'unrelated words about nothing here', tokenBudget: 200 });
      for (const tokenBudget of [800, 4_000]) {
        const expected = JSON.stringify(optimizer.buildContext({ ...scenario.records, task: scenario.task, tokenBudget }));
        expect(JSON.stringify(optimizer.buildContextFrom(prepared, { task: scenario.task, tokenBudget })), scenario.name).toBe(expected);
      }
    }
  });

  it('prepared again with an earlier preparation of part of the records, builds the same bytes', () => {
    const input = generateSession(300);
    const records = recordsOf(input);
    const part: SessionRecords = {};
    const whole: SessionRecords = {};
    for (const [array, list] of Object.entries(records) as Array<[keyof SessionRecords, unknown[]]>) {
      (part as Record<string, unknown[]>)[array] = list.slice(0, Math.floor(list.length / 2));
      (whole as Record<string, unknown[]>)[array] = list;
    }
    const optimizer = new ContextOptimizer();
    const earlier = optimizer.prepare(part);
    const request = { task: input.task, tokenBudget: 4_000 };
    const again = optimizer.prepare(whole, earlier);
    expect(JSON.stringify(optimizer.buildContextFrom(again, request))).toBe(JSON.stringify(optimizer.buildContext({ ...whole, ...request })));
    // The earlier preparation still builds what it built.
    expect(JSON.stringify(optimizer.buildContextFrom(earlier, request))).toBe(JSON.stringify(optimizer.buildContext({ ...part, ...request })));
  });

  it('prepared again after near copies arrive, merges them as buildContext does', () => {
    const log = (n: number): string =>
      Array.from({ length: 40 }, (_, i) => `step ${i} compiled module parser-${i} in ${i === 7 ? n : 12} ms with cache warm and lint clean`).join('\n');
    const error = (line: number): string => `TypeError: cannot read properties of undefined (reading 'tokens')\n    at parseExpression (src/parser.ts:${line}:7)\n    at parse (src/parser.ts:88:3) while reading the expression list of the empty input`;
    const part: SessionRecords = {
      toolOutputs: [{ command: 'npm run build', output: log(30), exitCode: 0, timestamp: '2026-01-01T10:00:00Z' }],
      errors: [{ message: error(41), timestamp: '2026-01-01T10:01:00Z' }],
    };
    const whole: SessionRecords = {
      toolOutputs: [...(part.toolOutputs ?? []), { command: 'npm run build', output: log(31), exitCode: 0, timestamp: '2026-01-01T11:00:00Z' }],
      errors: [...(part.errors ?? []), { message: error(42), timestamp: '2026-01-01T11:01:00Z' }],
    };
    const optimizer = new ContextOptimizer();
    const request = { task: 'fix the parseExpression TypeError in src/parser.ts', tokenBudget: 2_000 };
    const expected = optimizer.buildContext({ ...whole, ...request });
    expect(expected.report.dedupe.merges.filter((merge) => merge.reason === 'near-duplicate').length).toBeGreaterThan(0);
    const again = optimizer.prepare(whole, optimizer.prepare(part));
    expect(JSON.stringify(optimizer.buildContextFrom(again, request))).toBe(JSON.stringify(expected));
  });

  it('refuses records prepared with other settings, and a bad task, budget or session', () => {
    const records = recordsOf(generateSession(20));
    const prepared = new ContextOptimizer().prepare(records);
    expect(refusalCode(() => new ContextOptimizer({ counter: 'chars/4' }).buildContextFrom(prepared, { task: 'x' }))).toBe('INVALID_ARGUMENT');
    expect(refusalCode(() => new ContextOptimizer({ nearDuplicateThreshold: 0.5 }).buildContextFrom(prepared, { task: 'x' }))).toBe('INVALID_ARGUMENT');
    const optimizer = new ContextOptimizer();
    expect(refusalCode(() => optimizer.buildContextFrom(prepared, { task: ' ' }))).toBe('INVALID_ARGUMENT');
    expect(refusalCode(() => optimizer.buildContextFrom(prepared, { task: 'x', tokenBudget: 0 }))).toBe('INVALID_ARGUMENT');
    expect(refusalCode(() => optimizer.buildContextFrom(prepared, { task: 'x', session: '' }))).toBe('INVALID_ARGUMENT');
    expect(refusalCode(() => optimizer.buildContextFrom({} as PreparedRecords, { task: 'x' }))).toBe('INVALID_ARGUMENT');
    expect(refusalCode(() => optimizer.prepare({ messages: [{ role: 'user' }] } as unknown as SessionRecords))).toBe('INVALID_RECORDS');
  });
});
