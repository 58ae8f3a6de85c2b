import { describe, expect, it } from 'vitest';
import { buildReport, questionTotals, renderReportMarkdown } from '../../src/experiment/receipt/_report.js';
import { RECEIPT_FORMAT } from '../../src/experiment/_types.js';
import type { Condition, ExperimentReceipt, QuestionRecord, QuestionStatus, Task, ToolCallRecord, TurnRecord } from '../../src/experiment/_types.js';

function tool(rawBytes: number, facingBytes: number, facingTokens: number): ToolCallRecord {
  return {
    toolUseId: 't',
    name: 'find_records',
    arguments: {},
    rpcId: 2,
    isError: false,
    rawContent: [],
    rawContentBytes: rawBytes,
    rawContentSha256: '',
    modelFacingText: '',
    modelFacingBytes: facingBytes,
    modelFacingSha256: '',
    modelFacingTokens: facingTokens,
  };
}

function turn(input: number, output: number, cacheRead: number, cacheWrite: number, tools: ToolCallRecord[] = []): TurnRecord {
  return {
    raw: { url: 'scripted:', request: '{}', response: '{}', status: 200 },
    rawRequestSha256: '',
    rawResponseSha256: '',
    content: [],
    stopReason: 'end_turn',
    rawStopReason: null,
    usage: { inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite },
    model: 'm',
    attempts: 1,
    tools,
  };
}

function task(id: string): Task {
  return { id, kind: 'aggregate', question: `q ${id}`, expectedAnswer: '5', evidenceIds: [], requiredCaveats: [] };
}

function question(taskId: string, condition: Condition, status: QuestionStatus, context: number, extra: Partial<QuestionRecord> = {}): QuestionRecord {
  const turns = [turn(context, 10, 0, 0, [tool(1000, 100, 25)])];
  return { taskId, kind: 'aggregate', condition, question: `q ${taskId}`, status, turns, totals: questionTotals(turns), ...extra };
}

describe('questionTotals', () => {
  it('sums context (input + cache read + cache write), each usage field, turns and every tool call', () => {
    const totals = questionTotals([turn(100, 20, 300, 40, [tool(5000, 200, 50), tool(1, 2, 3)]), turn(150, 30, 0, 0), turn(10, 5, 1, 2, [tool(10, 10, 4)])]);
    expect(totals).toEqual({
      contextTokens: 100 + 300 + 40 + 150 + 10 + 1 + 2,
      inputTokens: 260,
      outputTokens: 55,
      cacheReadTokens: 301,
      cacheWriteTokens: 42,
      turns: 3,
      toolCalls: 3,
      rawToolBytes: 5011,
      modelFacingBytes: 212,
      modelFacingTokens: 57,
    });
  });
});

describe('buildReport', () => {
  const tasks = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map(task);
  const lost = { code: 'ANSWER_MISMATCH', message: 'The answer "4" does not match the expected "5".' };
  const questions = [
    question('a', 'baseline', 'passed', 1000),
    question('a', 'optimized', 'passed', 400),
    question('b', 'baseline', 'passed', 3000),
    question('b', 'optimized', 'failed', 200, { failure: lost }),
    question('c', 'baseline', 'failed', 900, { failure: { code: 'STOP_max_tokens', message: 'cut' } }),
    question('c', 'optimized', 'passed', 300),
    question('d', 'baseline', 'failed', 900, { failure: { code: 'EVIDENCE_MISSING', message: 'no 12' } }),
    question('d', 'optimized', 'failed', 300, { failure: { code: 'TURN_LIMIT', message: 'no final answer within 8 model turns' } }),
    question('e', 'baseline', 'passed', 900),
    question('e', 'optimized', 'skipped', 0, { failure: { code: 'PRIOR_FAILURE', message: 'an earlier question failed' } }),
    question('f', 'optimized', 'passed', 10),
    question('g', 'baseline', 'passed', 900),
    question('g', 'optimized', 'failed', 100, { failure: { code: 'PROVIDER_ERROR', message: 'the Anthropic call failed: terminated' }, outcome: 'provider-failure' }),
    question('h', 'baseline', 'passed', 900),
    question('h', 'optimized', 'failed', 100, { failure: { code: 'STOP_max_tokens', message: 'no answer within limits' } }),
  ];

  it('gives one row per task in task order with the documented verdicts', () => {
    const report = buildReport(tasks, questions);
    expect(report.rows.map((row) => [row.taskId, row.verdict])).toEqual([
      ['a', 'compared'],
      ['b', 'cut-lost-answer'],
      ['c', 'baseline-failed'],
      ['d', 'both-failed'],
      ['e', 'not-compared'],
      ['f', 'not-compared'],
      ['g', 'not-compared'],
      ['h', 'cut-lost-answer'],
    ]);
    expect(report.rows.map((row) => [row.baseline.outcome, row.optimized.outcome])).toEqual([
      ['right', 'right'],
      ['right', 'wrong'],
      ['no-answer', 'right'],
      ['wrong', 'no-answer'],
      ['right', 'not-run'],
      ['not-run', 'right'],
      ['right', 'provider-failure'],
      ['right', 'no-answer'],
    ]);
    expect(report.rows[1]?.optimized.failure).toEqual(lost);
    expect(report.rows[5]?.baseline.status).toBe('skipped');
    expect(report.rows[6]?.notCompared).toEqual({ condition: 'optimized', outcome: 'provider-failure', code: 'PROVIDER_ERROR', message: 'the Anthropic call failed: terminated' });
    expect(report.rows[5]?.notCompared).toMatchObject({ condition: 'baseline', outcome: 'not-run', code: 'NOT_RUN' });
    expect(report.tasks).toBe(8);
    expect(report.notCompared).toBe(3);
    // A provider failure is no lost answer; no answer within the limits the baseline answered within is.
    expect(report.lostAnswers).toEqual(['b', 'h']);
    expect(report.allPassed).toBe(false);
  });

  it('sums only the compared rows, and gives the reduction as a fraction of the baseline', () => {
    const report = buildReport(tasks, questions);
    expect(report.compared).toBe(1);
    expect(report.totals.contextTokens).toEqual({ baseline: 1000, optimized: 400, reduction: 0.6 });
    expect(report.totals.rawToolBytes).toEqual({ baseline: 1000, optimized: 1000, reduction: 0 });
    expect(report.totals.cacheReadTokens).toEqual({ baseline: 0, optimized: 0, reduction: null });
  });

  it('compares nothing when no task passed in both conditions, and a cost increase is a negative reduction', () => {
    const none = buildReport([task('b')], questions);
    expect(none.compared).toBe(0);
    expect(none.totals.contextTokens).toEqual({ baseline: 0, optimized: 0, reduction: null });
    const dearer = buildReport([task('x')], [question('x', 'baseline', 'passed', 100), question('x', 'optimized', 'passed', 150)]);
    expect(dearer.totals.contextTokens.reduction).toBeCloseTo(-0.5);
    expect(dearer.allPassed).toBe(true);
    expect(buildReport([], []).allPassed).toBe(false);
  });
});

describe('renderReportMarkdown', () => {
  const tasks = ['lookup-1', 'aggregate-1', 'later_page-1'].map(task);
  const questions = [
    question('lookup-1', 'baseline', 'passed', 12_345),
    question('lookup-1', 'optimized', 'passed', 2_345),
    question('aggregate-1', 'baseline', 'passed', 9_000),
    question('aggregate-1', 'optimized', 'failed', 1_000, { failure: { code: 'ANSWER_MISMATCH', message: 'The answer "4" does not match | the expected "5".' } }),
    question('later_page-1', 'baseline', 'skipped', 0, { failure: { code: 'PRIOR_FAILURE', message: 'an earlier question failed' } }),
  ];
  const receipt: ExperimentReceipt = {
    format: RECEIPT_FORMAT,
    warning: 'private',
    status: 'completed',
    startedAt: '2026-12-02T12:00:00.000Z',
    updatedAt: '2026-12-02T12:05:00.000Z',
    stages: [],
    errors: [],
    model: { provider: 'scripted', model: 'demo', baseUrl: null, maxTokens: 1024, temperature: null, system: 's', systemSha256: '' },
    tasks,
    questions,
    probe: {
      status: 'passed',
      condition: 'optimized',
      tool: 'count_by_field',
      arguments: { field: 'state', value: 'open' },
      first: { rawContent: [], rawContentBytes: 1_234, modelFacingTokens: 143, cache: 'miss' },
      repeat: { rawContent: [], rawContentBytes: 1_233, modelFacingTokens: 143, cache: 'hit' },
      note: 'Direct calls on a fresh server.',
    },
    report: buildReport(tasks, questions),
  };
  const markdown = renderReportMarkdown(receipt);

  it('has a row per task and condition with thousands separators and the verdict', () => {
    expect(markdown).toContain('| lookup-1 | aggregate | baseline | answered right | 12,345 | 10 | 1 | 1,000 | 25 | compared |');
    expect(markdown).toContain('| aggregate-1 | aggregate | optimized | answered wrong (ANSWER_MISMATCH) | 1,000 |');
    expect(markdown).toContain('| later_page-1 | aggregate | baseline | not run (PRIOR_FAILURE) | 0 |');
  });

  it('gives the totals over n compared with the reduction in percent', () => {
    expect(markdown).toContain('n = 1');
    expect(markdown).toContain('| context tokens (input + cache) | 12,345 | 2,345 | 81.0% |');
  });

  it('says which answer the cut lost and why, lists failed and skipped questions, and the probe', () => {
    expect(markdown).toContain('- the cut lost the answer to aggregate-1: answered wrong: The answer "4" does not match | the expected "5".');
    expect(markdown).toContain('1 of 3 tasks were not compared (1 not run)');
    expect(markdown).toContain('- later_page-1: not run on the baseline run: PRIOR_FAILURE: an earlier question failed');
    expect(markdown).toContain('- aggregate-1 (optimized) failed: ANSWER_MISMATCH');
    expect(markdown).toContain('- later_page-1 (baseline) skipped: PRIOR_FAILURE: an earlier question failed');
    expect(markdown).toContain('- later_page-1 (optimized) skipped: No optimized question was recorded');
    expect(markdown).toContain('cache hit, 1,233 raw bytes, 143 model-facing tokens');
  });

  it('says when there is no report instead of inventing one', () => {
    const { report: _dropped, ...failed } = receipt;
    const text = renderReportMarkdown({ ...failed, status: 'failed', errors: [{ at: 't', stage: 'inputs', code: 'SOURCE_CHANGED', message: 'the snapshot changed' }] });
    expect(text).toContain('No report: the run is failed');
    expect(text).toContain('SOURCE_CHANGED: the snapshot changed');
  });
});
