// What a run cost, --max-usd and --resume, against a loopback fake of the Anthropic Messages API:
// spend from the recorded usage at a dated, sourced price, recomputed by verify (a forged figure
// fails naming its path); a budget that stops a run before the call that could pass it; and a
// resumed run that keeps what finished and repeats no paid call.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRunCost, runExperiment, skippedGroups, verifyReceipt, verifyReceiptAndExports, type ExperimentReceipt } from '../../src/experiment/index.js';
import { loadExperimentConfig } from '../../src/experiment/index.js';
import { REQUEST_OVERHEAD_TOKENS, findPrice } from '../../src/pricing/index.js';
import { AnthropicFake, apiError, messageEvents, type FakeReply } from '../support/anthropic-fake.js';
import { copyDemo, type DemoCopy } from '../support/experiment-demo.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

const KEY_ENV = { COST_TEST_KEY: 'sk-ant-api03-cost-canary-0123456789abcdef' };
/** In the bundled table: USD 3 input, 15 output, 0.30 cache read, 3.75 cache write per million tokens. */
const SONNET = 'claude-sonnet-4-20250514';
const answer = (value: string, ids: string[]) => ({ type: 'text' as const, text: JSON.stringify({ answer: value, evidenceIds: ids, caveats: [] }) });

type Usage = Record<string, number>;
/** The four questions of the two lookup tasks, each a tool turn and an answer turn. */
function lookupReplies(first: Usage = { input_tokens: 900, output_tokens: 20 }): FakeReply[] {
  return [
    { events: messageEvents({ content: [{ type: 'tool_use', id: 'toolu_b1', name: 'list_records', input: {} }], stopReason: 'tool_use', usage: first }) },
    { events: messageEvents({ content: [answer('timgates42', ['3028'])], stopReason: 'end_turn', usage: { input_tokens: 4000, output_tokens: 30, cache_read_input_tokens: 1000 } }) },
    {
      events: messageEvents({
        content: [
          { type: 'tool_use', id: 'toolu_o1', name: 'find_records', input: { field: 'title', value: 'Commit verification support' } },
          { type: 'tool_use', id: 'toolu_o2', name: 'exact_record', input: { id: '3028' } },
        ],
        stopReason: 'tool_use',
        usage: { input_tokens: 1100, output_tokens: 40, cache_creation_input_tokens: 200 },
      }),
    },
    { events: messageEvents({ content: [answer('timgates42', ['3028'])], stopReason: 'end_turn', usage: { input_tokens: 1500, output_tokens: 30 } }) },
    { events: messageEvents({ content: [{ type: 'tool_use', id: 'toolu_b2', name: 'list_records', input: {} }], stopReason: 'tool_use', usage: { input_tokens: 900, output_tokens: 20 } }) },
    { events: messageEvents({ content: [answer('4', ['3014'])], stopReason: 'end_turn', usage: { input_tokens: 4000, output_tokens: 30 } }) },
    { events: messageEvents({ content: [{ type: 'tool_use', id: 'toolu_o3', name: 'find_records', input: { field: 'title', value: 'Repo.get_git_ref/create_git_ref inconsistent prefix' } }], stopReason: 'tool_use', usage: { input_tokens: 1000, output_tokens: 25 } }) },
    { events: messageEvents({ content: [answer('4', ['3014'])], stopReason: 'end_turn', usage: { input_tokens: 1200, output_tokens: 30 } }) },
  ];
}

function demo(model: string, prices?: unknown[]): DemoCopy {
  return copyDemo({
    tasks: (tasks) => tasks.filter((task) => task.kind === 'lookup'),
    config: (config) => {
      config.model = { provider: 'anthropic', model, maxTokens: 700, baseUrl: fake.baseUrl, keyEnv: 'COST_TEST_KEY' };
      config.probe = false;
      if (prices !== undefined) config.prices = prices;
    },
  });
}

const fake = new AnthropicFake();
const copies: DemoCopy[] = [];

beforeEach(async () => {
  fake.requests.length = 0;
  if (fake.baseUrl.endsWith(':0')) await fake.start();
});

afterEach(() => {
  // Replies a test scripted and did not use (a run the budget stopped) must not answer the next test's requests.
  (fake as unknown as { replies: unknown[] }).replies.length = 0;
});

afterAll(async () => {
  await fake.close();
  for (const copy of copies) rmSync(copy.dir, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
});

function usd(input: number, output: number, cacheRead = 0, cacheWrite = 0): number {
  return (input * 3 + output * 15 + cacheRead * 0.3 + cacheWrite * 3.75) / 1_000_000;
}

describe('what a run cost', () => {
  it('prices every turn from its usage at the table price, per question, condition and run, and verify recomputes each figure', async () => {
    const copy = demo(SONNET);
    copies.push(copy);
    fake.script(...lookupReplies());
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), env: KEY_ENV });
    const cost = run.receipt.cost;
    expect(run.receipt.status).toBe('completed');
    expect(cost?.price).toMatchObject({ provider: 'anthropic', model: SONNET, from: 'table', inputPerMTok: 3, outputPerMTok: 15, readOn: '2026-12-05', source: 'https://docs.anthropic.com/en/docs/about-claude/pricing' });
    expect(cost?.questions.map((question) => [question.taskId, question.condition, question.turnsUsd])).toEqual([
      ['lookup-author', 'baseline', [usd(900, 20), usd(4000, 30, 1000)]],
      ['lookup-author', 'optimized', [usd(1100, 40, 0, 200), usd(1500, 30)]],
      ['lookup-comments', 'baseline', [usd(900, 20), usd(4000, 30)]],
      ['lookup-comments', 'optimized', [usd(1000, 25), usd(1200, 30)]],
    ]);
    const baseline = usd(900, 20) + usd(4000, 30, 1000) + (usd(900, 20) + usd(4000, 30));
    expect(cost?.conditions.baseline).toBeCloseTo(baseline, 12);
    expect(cost?.totalUsd).toBeCloseTo(baseline + usd(1100, 40, 0, 200) + usd(1500, 30) + usd(1000, 25) + usd(1200, 30), 12);
    expect(verifyReceipt(run.receipt)).toMatchObject({ ok: true, problems: [] });
    const report = readFileSync(run.reportFile ?? '', 'utf8');
    expect(report).toContain('## Spend');
    expect(report).toContain(`anthropic \`${SONNET}\``);
    expect(report).toContain('read 2026-12-05 from https://docs.anthropic.com/en/docs/about-claude/pricing');
    // The Spend table as CSV beside it, unformatted; verify with the exports finds an edited cell.
    const csvFile = join(copy.dir, 'out', 'spend.csv');
    const csv = readFileSync(csvFile, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('scope,task,repetition,condition,turns,usd');
    expect(csv).toContain(`question,lookup-author,1,baseline,2,${usd(900, 20) + usd(4000, 30, 1000)}\r\n`);
    expect(csv).toContain(`run,,,,,${cost?.totalUsd}\r\n`);
    expect((await verifyReceiptAndExports(run.receipt, run.receiptFile)).ok).toBe(true);
    writeFileSync(csvFile, csv.replace(`run,,,,,${cost?.totalUsd}`, 'run,,,,,0.01'));
    expect((await verifyReceiptAndExports(run.receipt, run.receiptFile)).problems.some((problem) => problem.includes('spend.csv'))).toBe(true);

    // A forged figure, or a forged price with every figure made to agree, fails naming the path and both values.
    const forged = structuredClone(run.receipt);
    forged.cost!.questions[0]!.turnsUsd[0] = 0.000001;
    expect(verifyReceipt(forged).problems).toContain(`cost.questions[0].turnsUsd[0]: recorded 0.000001, recomputed ${usd(900, 20)}`);
    const cheaper = structuredClone(run.receipt);
    cheaper.cost = buildRunCost(cheaper, { ...cheaper.cost!.price!, inputPerMTok: 0.3 }, null);
    expect(verifyReceipt(cheaper).problems).toContain('cost.price.inputPerMTok: recorded 0.3, the bundled table (read 2026-12-05) says 3');
  }, 60_000);

  it('says unknown, never $0, for a model without a price or a turn without usage; the config\'s prices: give one', async () => {
    const copy = demo('claude-test-1');
    copies.push(copy);
    fake.script(...lookupReplies());
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), env: KEY_ENV });
    expect(run.receipt.cost).toMatchObject({ price: null, conditions: { baseline: null, optimized: null }, totalUsd: null });
    expect(run.receipt.cost?.questions[0]?.turnsUsd).toEqual([null, null]);
    expect(readFileSync(run.reportFile ?? '', 'utf8')).toContain('| **run** | **unknown** |');

    // One turn's usage unknown: that question, its condition and the run are unknown; the other condition stays priced.
    const price = findPrice('anthropic', SONNET);
    const missing = structuredClone(run.receipt);
    missing.questions[0]!.turns[1]!.usage = null;
    const cost = buildRunCost(missing, price, null);
    expect([cost.questions[0]?.turnsUsd[1], cost.questions[0]?.usd, cost.conditions.baseline, cost.totalUsd]).toEqual([null, null, null, null]);
    expect(cost.conditions.optimized).toBeCloseTo(usd(1100, 40, 0, 200) + usd(1500, 30) + usd(1000, 25) + usd(1200, 30), 12);

    const own = { provider: 'anthropic', model: 'claude-test-1', inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75, readOn: '2026-12-01', source: 'our contract' };
    const priced = demo('claude-test-1', [own]);
    copies.push(priced);
    const config = await loadExperimentConfig(priced.config);
    expect(findPrice('anthropic', 'claude-test-1', config.prices)).toEqual({ ...own, from: 'config' });
  }, 60_000);

  it('refuses a config price with a bad field, naming it', async () => {
    const copy = demo(SONNET, [{ provider: 'anthropic', model: SONNET, inputPerMTok: -1, outputPerMTok: 15, cacheReadPerMTok: 0.3, readOn: '2026-13-01', source: 'x' }]);
    copies.push(copy);
    const error = (await loadExperimentConfig(copy.config).then(() => undefined, (caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ code: 'INVALID_CONFIG' });
    expect(error.message).toContain('prices[0].inputPerMTok');
    expect(error.message).toContain('prices[0].cacheWritePerMTok');
    expect(error.message).toContain('prices[0].readOn');
  });
});

describe('--max-usd', () => {
  it('refuses to start with an unknown price rather than spend blindly: no request is sent', async () => {
    const copy = demo('claude-test-1');
    copies.push(copy);
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), env: KEY_ENV, maxUsd: 5 });
    expect(run.receipt.status).toBe('failed');
    expect(run.receipt.errors[0]).toMatchObject({ stage: 'inputs', code: 'USAGE' });
    expect(run.receipt.errors[0]?.message).toContain('--max-usd needs the price of anthropic "claude-test-1"');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('--max-usd, then --resume', () => {
  let copy: DemoCopy;
  let stopped: ExperimentReceipt;
  let stoppedDir: string;

  it('stops BEFORE the call that could pass the cap: the rest not run (BUDGET_STOP), the receipt verifies', async () => {
    copy = demo(SONNET);
    copies.push(copy);
    // The first call reads a million tokens ($3): the second call's worst case would pass $3.01.
    fake.script(...lookupReplies({ input_tokens: 1_000_000, output_tokens: 20 }));
    stoppedDir = join(copy.dir, 'stopped');
    const run = await runExperiment({ configFile: copy.config, outDir: stoppedDir, env: KEY_ENV, maxUsd: 3.01 });
    stopped = run.receipt;
    expect(fake.requests).toHaveLength(1);
    expect(stopped.status).toBe('failed');
    expect(stopped.errors.map((error) => error.code)).toEqual(['BUDGET_STOP']);
    expect(stopped.errors[0]?.message).toMatch(/^stopped before a model call: \$3\.000300 committed so far, and this call could cost up to \$0\.0\d+ \(at most \d+ tokens read, max_tokens 700 written\), past --max-usd \$3\.010000$/);
    expect(stopped.questions.map((question) => [question.status, question.outcome, question.failure?.code, question.turns.length])).toEqual([
      ['skipped', 'not-run', 'BUDGET_STOP', 1],
      ['skipped', 'not-run', 'BUDGET_STOP', 0],
      ['skipped', 'not-run', 'BUDGET_STOP', 0],
      ['skipped', 'not-run', 'BUDGET_STOP', 0],
    ]);
    expect(stopped.cost).toMatchObject({ maxUsd: 3.01, totalUsd: usd(1_000_000, 20) });
    // One cause, the question the budget stopped at heading what it skipped.
    expect(skippedGroups(stopped).map((group) => group.sentence)).toEqual([
      expect.stringMatching(/^4 questions (and the warm-cache probe )?skipped after the budget \(--max-usd\) stopped the run at \S+ \(baseline\): stopped before a model call: /),
    ]);
    expect(verifyReceipt(stopped)).toMatchObject({ ok: true, problems: [] });
  }, 60_000);

  it('refuses to resume when an input or a setting differs, naming which, before any call', async () => {
    const config = parse(readFileSync(copy.config, 'utf8')) as { model: Record<string, unknown> };
    config.model.maxTokens = 800;
    const changed = join(copy.dir, 'changed.yaml');
    writeFileSync(changed, stringify(config));
    const run = await runExperiment({ configFile: changed, outDir: join(copy.dir, 'refused'), env: KEY_ENV, resume: stoppedDir });
    expect(run.receipt.errors[0]?.code).toBe('RESUME_MISMATCH');
    expect(run.receipt.errors[0]?.message).toContain('model.maxTokens: stopped run 700, this run 800');
    expect(run.receipt.errors[0]?.message).toContain('config (sha256)');
    expect(fake.requests).toHaveLength(0);
    await expect(runExperiment({ configFile: copy.config, outDir: stoppedDir, env: KEY_ENV, resume: stoppedDir })).rejects.toMatchObject({ code: 'USAGE' });
    // A stopped receipt edited by hand (a paid turn's usage lowered) is not carried on: nothing of it enters a new run.
    const forgedDir = join(copy.dir, 'forged-stop');
    mkdirSync(forgedDir);
    const forged = JSON.parse(readFileSync(join(stoppedDir, 'receipt.json'), 'utf8')) as ExperimentReceipt;
    forged.questions[0]!.turns[0]!.usage!.inputTokens = 10;
    writeFileSync(join(forgedDir, 'receipt.json'), JSON.stringify(forged));
    await expect(runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'refused-forged'), env: KEY_ENV, resume: forgedDir })).rejects.toMatchObject({
      code: 'RESUME_MISMATCH',
      message: expect.stringMatching(/does not verify \(\d+ problem\(s\), the first: questions\[0\]\.turns\[0\]\.usage\.inputTokens: recorded 10, recomputed 1000000\)/),
    });
    expect(fake.requests).toHaveLength(0);
  }, 60_000);

  it('resumes into one receipt that verifies, replaying the paid turn instead of sending it again', async () => {
    // Every reply but the first: the stopped run paid for that one.
    fake.script(...lookupReplies().slice(1));
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'resumed'), env: KEY_ENV, resume: stoppedDir, maxUsd: 10 });
    const receipt = run.receipt;
    expect(fake.requests).toHaveLength(7);
    expect(receipt.status).toBe('completed');
    // (The last optimized answer skipped the detail call its path requires: a verdict, answered wrong.)
    expect(receipt.questions.map((question) => question.outcome)).toEqual(['right', 'right', 'right', 'wrong']);
    // The first turn is the stopped run's, byte for byte, counted once.
    expect(receipt.questions[0]?.turns[0]?.raw).toEqual(stopped.questions[0]?.turns[0]?.raw);
    expect(receipt.resume).toMatchObject({ from: join(stoppedDir, 'receipt.json'), kept: 0 });
    expect(receipt.resume?.replaced).toHaveLength(1);
    expect(receipt.cost?.replacedUsd).toBe(0);
    expect(receipt.cost?.questions[0]?.turnsUsd[0]).toBe(usd(1_000_000, 20));
    expect(receipt.questions[0]?.turns.map((turn) => turn.replayed)).toEqual([true, undefined]);
    expect(verifyReceipt(receipt)).toMatchObject({ ok: true, problems: [] });
    // Only a turn a replaced record holds may be marked replayed (and so keep the stopped run's times).
    const marked = structuredClone(receipt);
    marked.questions[1]!.turns[0]!.replayed = true;
    expect(verifyReceipt(marked).problems).toContain("questions[1].turns[0].replayed: recorded true, but no record in resume.replaced holds this turn's bytes at this place");

    // Resumed again: every question finished, so all are kept and nothing is sent; the record the first resume replaced stays.
    fake.requests.length = 0;
    const again = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'again'), env: KEY_ENV, resume: join(copy.dir, 'resumed') });
    expect(fake.requests).toHaveLength(0);
    expect(again.receipt.resume).toMatchObject({ kept: 4, replaced: receipt.resume?.replaced });
    expect(again.receipt.cost?.totalUsd).toBe(receipt.cost?.totalUsd);
    expect(verifyReceipt(again.receipt)).toMatchObject({ ok: true, problems: [] });
  }, 60_000);
});

describe('--resume after a provider failure', () => {
  it('keeps the finished question, asks the failed one again, and keeps the failed call\'s record: one receipt that verifies', async () => {
    const copy = demo(SONNET);
    copies.push(copy);
    const replies = lookupReplies();
    // lookup-author's optimized question: the API refuses its first call (400 is not retried).
    fake.script(replies[0]!, replies[1]!, { status: 400, json: apiError('invalid_request_error', 'the fake refuses this one') });
    const stoppedDir = join(copy.dir, 'stopped');
    const first = await runExperiment({ configFile: copy.config, outDir: stoppedDir, env: KEY_ENV });
    expect(first.receipt.questions.map((question) => question.outcome)).toEqual(['right', 'provider-failure', 'not-run', 'not-run']);
    expect(first.receipt.questions[1]?.failedCall?.raw.status).toBe(400);
    expect(fake.requests).toHaveLength(3);

    fake.requests.length = 0;
    fake.script(...replies.slice(2));
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'resumed'), env: KEY_ENV, resume: stoppedDir });
    const receipt = run.receipt;
    // Only the questions that had not finished are asked: the kept one sends nothing.
    expect(fake.requests).toHaveLength(6);
    expect(receipt.questions[0]).toEqual(first.receipt.questions[0]);
    expect(receipt.questions.map((question) => question.outcome)).toEqual(['right', 'right', 'right', 'wrong']);
    expect(receipt.resume).toMatchObject({ kept: 1 });
    expect(receipt.resume?.replaced.map((record) => [record.taskId, record.condition, record.failedCall?.code])).toEqual([['lookup-author', 'optimized', 'PROVIDER_ERROR']]);
    // An API error answer ran no model: it cost nothing, and says so.
    expect(receipt.cost?.replacedUsd).toBe(0);
    expect(verifyReceipt(receipt)).toMatchObject({ ok: true, problems: [] });

    // The replaced record is checked like a question: its bytes cannot be rewritten.
    const forged = structuredClone(receipt);
    forged.resume!.replaced[0]!.failedCall!.rawRequestSha256 = 'f'.repeat(64);
    expect(verifyReceipt(forged).problems.some((problem) => problem.startsWith('resume.replaced[0].failedCall.rawRequestSha256: recorded "ffff'))).toBe(true);
  }, 60_000);
});

describe('the budget\'s arithmetic', () => {
  it('holds a call whose usage came back unknown at its worst case: the budget never guesses low', async () => {
    const { Budget } = await import('../../src/experiment/_budget.js');
    const { countTokens } = await import('../../src/tokens/index.js');
    const price = findPrice('anthropic', SONNET)!;
    const request = { model: SONNET, system: 'be brief', messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hello' }] }], tools: [], maxTokens: 100 };
    const raw = { url: 'http://127.0.0.1/v1/messages', request: JSON.stringify({ model: SONNET, max_tokens: 100, messages: [] }), response: '', status: 200 };
    const turn = { raw, rawRequestSha256: '', rawResponseSha256: '', content: [], stopReason: 'end_turn' as const, rawStopReason: 'end_turn', usage: null, model: SONNET, attempts: 1, tools: [] };
    const record = { taskId: 't', kind: 'lookup' as const, condition: 'baseline' as const, question: 'q', status: 'running' as const, turns: [turn], totals: {} as never };
    // Unknown usage is held at the worst case: the body's UTF-8 bytes plus the overhead allowance as tokens read, at the dearer of input ($3) and cache write ($3.75), and max_tokens at $15.
    const bound = (body: string): number => ((Buffer.byteLength(body) + REQUEST_OVERHEAD_TOKENS) * 3.75 + 100 * 15) / 1_000_000;
    const unknownAt = bound(raw.request);
    const next = new Budget(1, price, 'anthropic', 100);
    const { sentRequestBody } = await import('../../src/providers/index.js');
    const nextBody = JSON.stringify(sentRequestBody('anthropic', request));
    const nextWorst = bound(nextBody);
    // The bound never guesses low: it is above what o200k tokens of the same body would give, whatever tokenizer the model has.
    expect(nextWorst).toBeGreaterThan(((countTokens(nextBody) + REQUEST_OVERHEAD_TOKENS) * 3.75 + 100 * 15) / 1_000_000);
    // Just enough for the unknown turn at its worst case and the next call's: allowed; a hair less: stopped.
    expect(() => new Budget(unknownAt + nextWorst + 1e-9, price, 'anthropic', 100).check(record, request, 0)).not.toThrow();
    expect(() => new Budget(unknownAt + nextWorst - 1e-9, price, 'anthropic', 100).check(record, request, 0)).toThrow(expect.objectContaining({ code: 'BUDGET_STOP' }));
    // The same turn with a reported usage of nothing commits nothing.
    expect(() => next.check({ ...record, turns: [{ ...turn, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } }] }, request, 0)).not.toThrow();
  });
});

describe('--max-usd and --resume with --repeat (offline, the scripted demo priced by its config)', () => {
  it('a run stopped half way and resumed costs what one uninterrupted run costs, each repetition kept in its place', async () => {
    const copy = copyDemo({
      config: (config) => {
        config.repeat = 2;
        config.probe = false;
        config.prices = [{ provider: 'scripted', model: 'scripted-demo', inputPerMTok: 1000, outputPerMTok: 2000, cacheReadPerMTok: 100, cacheWritePerMTok: 1250, readOn: '2026-12-05', source: 'a test price' }];
      },
    });
    copies.push(copy);
    const whole = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'whole') });
    const total = whole.receipt.cost!.totalUsd!;
    expect(whole.receipt.questions).toHaveLength(16);

    const stopped = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'stopped'), maxUsd: total / 2 });
    expect(stopped.receipt.errors.map((error) => error.code)).toEqual(['BUDGET_STOP']);
    expect(verifyReceipt(stopped.receipt)).toMatchObject({ ok: true, problems: [] });
    const finished = stopped.receipt.questions.filter((question) => question.outcome === 'right').length;
    expect(finished).toBeGreaterThan(0);
    expect(finished).toBeLessThan(16);

    const resumed = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'resumed'), resume: join(copy.dir, 'stopped'), maxUsd: total * 2 });
    expect(resumed.receipt.status).toBe('completed');
    expect(resumed.receipt.resume?.kept).toBe(finished);
    expect(resumed.receipt.questions.map((question) => [question.taskId, question.repetition, question.condition, question.outcome])).toEqual(
      whole.receipt.questions.map((question) => [question.taskId, question.repetition, question.condition, question.outcome]),
    );
    expect(resumed.receipt.cost?.totalUsd).toBeCloseTo(total, 12);
    expect(verifyReceipt(resumed.receipt)).toMatchObject({ ok: true, problems: [] });
  }, 120_000);
});
