// The whole experiment, offline: the bundled demo (the real records server in both modes, the
// scripted turns) run end to end, its receipt re-derived by verify, and the seed's failure paths.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runExperiment, verifyReceipt, type ExperimentReceipt } from '../../src/experiment/index.js';
import { scriptedProvider, type Provider } from '../../src/providers/index.js';
import { modelFacingFigures, modelFacingText, rawContentFigures } from '../../src/experiment/receipt/_model-facing.js';
import { framesSha256 } from '../../src/experiment/_server.js';
import { copyDemo, type DemoCopy } from '../support/experiment-demo.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const copies: DemoCopy[] = [];
function demo(options?: Parameters<typeof copyDemo>[0]): DemoCopy {
  const copy = copyDemo(options);
  copies.push(copy);
  return copy;
}

function readReceipt(file: string): ExperimentReceipt {
  return JSON.parse(readFileSync(file, 'utf8')) as ExperimentReceipt;
}

/** A provider that counts its calls and may act before answering. */
function spying(inner: Provider, before?: (call: number) => void): Provider & { calls: number } {
  const spy = {
    name: inner.name,
    baseUrl: inner.baseUrl,
    calls: 0,
    chat: async (request: Parameters<Provider['chat']>[0]) => {
      spy.calls += 1;
      before?.(spy.calls);
      return inner.chat(request);
    },
  };
  return spy;
}

afterAll(async () => {
  for (const copy of copies) rmSync(copy.dir, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
});

describe('the bundled experiment, offline', () => {
  let receipt: ExperimentReceipt;
  let receiptFile: string;
  const copy = demo();

  it('answers every question in both conditions, compares tokens, and writes a receipt that verify re-derives', async () => {
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out') });
    receipt = run.receipt;
    receiptFile = run.receiptFile;
    expect(receipt.errors).toEqual([]);
    expect(receipt.status).toBe('completed');
    expect(receipt.stages.map((stage) => `${stage.stage}:${stage.status}`)).toEqual([
      'start:ok',
      'inputs:ok',
      'validate:ok',
      'questions:ok',
      'probe:ok',
      'report:ok',
    ]);
    const report = receipt.report;
    expect(report?.allPassed).toBe(true);
    expect(report?.compared).toBe(4);
    expect(report?.rows.map((row) => row.verdict)).toEqual(['compared', 'compared', 'compared', 'compared']);
    // The optimized server sends far fewer tokens for the same answers.
    const context = report?.totals.contextTokens;
    expect(context?.optimized).toBeLessThan(context?.baseline ?? 0);
    expect(context?.reduction).toBeGreaterThan(0.2);
    // What the tools put in front of the model shrank most: the whole list against brief pages.
    expect(report?.totals.modelFacingTokens.reduction).toBeGreaterThan(0.8);
    // What the disk holds is what was returned, and it recomputes.
    expect(readReceipt(receiptFile)).toEqual(receipt);
    const verification = verifyReceipt(readReceipt(receiptFile));
    expect(verification.problems).toEqual([]);
    expect(verification.ok).toBe(true);
    expect(verification.checked.questions).toBe(8);
  });

  it('recorded the path each optimized answer took: the cursor followed, the count and its audit pages, brief search then detail', () => {
    const optimized = (taskId: string) => receipt.questions.find((question) => question.taskId === taskId && question.condition === 'optimized');
    const calls = (taskId: string) => optimized(taskId)?.turns.flatMap((turn) => turn.tools.map((call) => [call.name, call.arguments])) ?? [];
    const paging = calls('page-security-advisories');
    expect(paging).toHaveLength(2);
    expect((paging[1]?.[1] as { cursor?: unknown }).cursor).toEqual(expect.any(String));
    expect(calls('count-pull-requests').map(([name]) => name)).toEqual(['count_by_field', 'count_by_field']);
    expect(calls('lookup-author').map(([name]) => name)).toEqual(['find_records', 'exact_record']);
    // The cache disposition was dropped from what the model saw, and kept in the raw content.
    const first = optimized('lookup-author')?.turns[0]?.tools[0];
    expect(JSON.stringify(first?.rawContent)).toContain('\\"cache\\":\\"miss\\"');
    expect(first?.modelFacingText).not.toContain('"cache"');
    expect(receipt.probe?.status).toBe('passed');
    expect([receipt.probe?.first?.cache, receipt.probe?.repeat?.cache]).toEqual(['miss', 'hit']);
  });

  it('records env names only: no env value of a server reaches the receipt', () => {
    const text = readFileSync(receiptFile, 'utf8');
    const marker = Object.values(markedEnv())[0] ?? '';
    expect(receipt.questions[1]?.server?.launch.envNames).toContain('CURSOR_KEY');
    expect(text).not.toContain('mcpctx-experiment-demo-key');
    expect(text.length).toBeGreaterThan(1000);
    expect(marker.length).toBeGreaterThan(0);
  });

  it('fails verification when any figure or byte of the receipt is changed', () => {
    const tamper = (change: (receipt: ExperimentReceipt) => void): string[] => {
      const copy = readReceipt(receiptFile);
      change(copy);
      return verifyReceipt(copy).problems;
    };
    const optimized = (r: ExperimentReceipt) => r.questions.find((question) => question.condition === 'optimized');
    expect(tamper((r) => void (optimized(r)!.turns[0]!.usage!.inputTokens += 1))).not.toEqual([]);
    expect(tamper((r) => void (optimized(r)!.totals.contextTokens! -= 100))).not.toEqual([]);
    expect(tamper((r) => void (r.report!.totals.contextTokens.baseline! += 1))).not.toEqual([]);
    expect(tamper((r) => void (optimized(r)!.turns[0]!.tools[0]!.modelFacingTokens -= 1))).not.toEqual([]);
    expect(tamper((r) => void (r.questions[0]!.server!.frames[3]!.text += ' '))).not.toEqual([]);
    expect(tamper((r) => void (r.validation![2]!.independentCount = 8))).not.toEqual([]);
  });
  it('fails verification when a tool result is rewritten everywhere but in the request bytes the model was sent', () => {
    const forged = readReceipt(receiptFile);
    const question = forged.questions.find((candidate) => candidate.taskId === 'lookup-author' && candidate.condition === 'optimized')!;
    const call = question.turns[0]!.tools[0]!;
    const server = question.server!;
    // The server's answer, rewritten in its frame, the raw content and the model-facing text alike.
    const forge = (text: string): string => text.replaceAll('Commit verification support', 'Commit verification suppork');
    const frame = server.frames.find((candidate) => candidate.direction === 'received' && (JSON.parse(candidate.text) as { id?: unknown }).id === call.rpcId)!;
    frame.text = forge(frame.text);
    server.framesSha256 = framesSha256(server.frames);
    call.rawContent = JSON.parse(forge(JSON.stringify(call.rawContent)));
    Object.assign(call, { rawContentBytes: rawContentFigures(call.rawContent).bytes, rawContentSha256: rawContentFigures(call.rawContent).sha256 });
    call.modelFacingText = modelFacingText(call.rawContent, false, ['cache']).text;
    const facing = modelFacingFigures(call.modelFacingText);
    Object.assign(call, { modelFacingBytes: facing.bytes, modelFacingSha256: facing.sha256, modelFacingTokens: facing.tokens });
    const problems = verifyReceipt(forged).problems;
    expect(problems.some((problem) => /turns\[0\]\.tools\[0\]\.modelFacingText: recorded .*suppork.*, sent .*support/.test(problem))).toBe(true);
  });
});

describe('the seed\u2019s failure paths', () => {
  it('stops with SOURCE_CHANGED when the snapshot changes mid-run, and reports every later question as skipped', async () => {
    const copy = demo();
    const original = readFileSync(copy.snapshot, 'utf8');
    const provider = spying(scriptedProvider(copy.turns), (call) => {
      if (call === 3) writeFileSync(copy.snapshot, original.replace('"timgates42"', '"someone-else"'));
    });
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), provider });
    const { receipt } = run;
    expect(receipt.status).toBe('failed');
    expect(receipt.errors.map((error) => error.code)).toContain('SOURCE_CHANGED');
    expect(receipt.questions).toHaveLength(8);
    const statuses = receipt.questions.map((question) => question.status);
    expect(statuses.filter((status) => status === 'skipped').length).toBeGreaterThanOrEqual(5);
    expect(receipt.questions.find((question) => question.failure?.code === 'SOURCE_CHANGED')).toBeDefined();
    expect(receipt.report?.rows.some((row) => row.verdict === 'not-compared')).toBe(true);
    expect(receipt.probe?.status).toBe('skipped');
    expect(provider.calls).toBe(3);
    expect(verifyReceipt(readReceipt(run.receiptFile)).problems).toEqual([]);
  });

  it('refuses a task whose expected count disagrees with the snapshot before any model call, and records why', async () => {
    const copy = demo({
      tasks: (tasks) => tasks.map((task) => (task.kind === 'aggregate' ? { ...task, expectedAnswer: '10' } : task)),
    });
    const provider = spying(scriptedProvider(copy.turns));
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), provider });
    expect(provider.calls).toBe(0);
    const receipt = readReceipt(run.receiptFile);
    expect(receipt.status).toBe('failed');
    expect(receipt.stages.at(-1)).toMatchObject({ stage: 'validate', status: 'failed', error: { code: 'TASKS_REFUSED' } });
    const refused = receipt.validation?.find((task) => !task.ok);
    expect(refused?.taskId).toBe('count-pull-requests');
    expect(refused?.problems.join(' ')).toMatch(/10/);
    expect(refused?.problems.join(' ')).toMatch(/9/);
    // Nothing dropped: every task is in the receipt, skipped with the reason.
    expect(receipt.questions.map((question) => question.status)).toEqual(Array(8).fill('skipped'));
  });

  it('says the cut lost the answer, and compares no tokens for it, when the optimized condition answers wrong', async () => {
    const copy = demo();
    const clean = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'clean') });
    const lastTurn = clean.receipt.questions.find((question) => question.taskId === 'lookup-author' && question.condition === 'optimized')?.turns.at(-1);
    const script = JSON.parse(readFileSync(copy.turns, 'utf8')) as { turns: Record<string, { content: Array<{ text?: string }> }> };
    const key = lastTurn?.rawRequestSha256 ?? '';
    expect(script.turns[key]).toBeDefined();
    script.turns[key]!.content = [{ type: 'text', text: JSON.stringify({ answer: 'huwcbjones', evidenceIds: ['3028'], caveats: [] }) } as { text: string }];
    writeFileSync(copy.turns, JSON.stringify(script));
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'wrong') });
    const report = run.receipt.report;
    expect(run.receipt.status).toBe('completed');
    expect(report?.allPassed).toBe(false);
    expect(report?.lostAnswers).toEqual(['lookup-author']);
    const row = report?.rows.find((candidate) => candidate.taskId === 'lookup-author');
    expect(row?.verdict).toBe('cut-lost-answer');
    expect(row?.optimized.failure?.code).toBe('ANSWER_MISMATCH');
    expect(report?.compared).toBe(3);
    // The totals cover the three compared questions only.
    const compared = clean.receipt.report?.rows.filter((candidate) => candidate.taskId !== 'lookup-author') ?? [];
    expect(report?.totals.contextTokens.baseline).toBe(compared.reduce((sum, candidate) => sum + candidate.baseline.totals.contextTokens!, 0));
    expect(readFileSync(run.reportFile ?? '', 'utf8')).toMatch(/lost the answer to lookup-author/);
    expect(verifyReceipt(readReceipt(run.receiptFile)).problems).toEqual([]);
  });
});
