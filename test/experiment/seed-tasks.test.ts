// Seed 000's own tasks.json, as the seed writes it (test/fixtures/experiment-seed-tasks): its
// later_page entry names no pageField/pageValue, so the run must accept it, check what it can (the
// evidence ids exist, the optimized answer follows a cursor) and say what it cannot: where the
// evidence sits. Said, never passed.
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runExperiment, verifyReceipt, type ExperimentReceipt, type ExperimentRun, type Task } from '../../src/experiment/index.js';
import { parseTasks } from '../../src/experiment/config/index.js';
import { renderExperimentRun } from '../../src/cli/_experiment-render.js';
import { copyDemo, type DemoCopy } from '../support/experiment-demo.js';
import { answerTurn, conversationOf, policyProvider, toolUse } from '../support/policy-provider.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/experiment-seed-tasks');
const SEED_TASKS = JSON.parse(readFileSync(join(FIXTURE, 'tasks.json'), 'utf8')) as Array<Record<string, unknown>>;
const UNCHECKED = 'evidence position not checked: the task names no pageField/pageValue; inspect by hand';

const copies: DemoCopy[] = [];
afterAll(async () => {
  for (const copy of copies) rmSync(copy.dir, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
});

/** The bundled demo's servers and config over the seed's snapshot, allowlist and tasks. */
function seedCopy(): DemoCopy {
  const copy = copyDemo({
    tasks: () => SEED_TASKS,
    config: (config) => {
      config.probe = { condition: 'optimized', tool: 'count_by_field', arguments: { field: 'status', value: 'open' }, cacheKey: 'cache' };
    },
  });
  copies.push(copy);
  copyFileSync(join(FIXTURE, 'snapshot.json'), copy.snapshot);
  copyFileSync(join(FIXTURE, 'fields.json'), join(copy.dir, 'fields.json'));
  return copy;
}

/** A careful model's path per task and condition, answering with the key (the machinery is under test, not a model). */
const seedModel = policyProvider((request) => {
  const { question, results, offered } = conversationOf(request);
  const task = SEED_TASKS.find((candidate) => candidate.question === question) as unknown as Task;
  const step = results.length;
  const done = answerTurn(task.expectedAnswer, task.evidenceIds);
  if (offered.includes('list_records')) return step === 0 ? toolUse('b1', 'list_records', {}) : done;
  const brief = { field: 'status', value: 'open', fields: ['id'] };
  switch (task.kind) {
    case 'lookup':
      return [toolUse('o1', 'find_records', brief), toolUse('o2', 'exact_record', { id: 'T01' }), done][step];
    case 'aggregate':
      return [toolUse('o1', 'count_by_field', { field: 'status', value: 'open' }), done][step];
    case 'later_page': {
      const cursor = (results[0] as { next_cursor?: string } | undefined)?.next_cursor;
      return [toolUse('o1', 'find_records', brief), toolUse('o2', 'find_records', { ...brief, cursor }), done][step];
    }
  }
});

describe('seed 000\u2019s tasks.json as written', () => {
  let run: ExperimentRun;
  let receipt: ExperimentReceipt;

  it('loads, validates and runs: every question answered right in both conditions', async () => {
    const copy = seedCopy();
    run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), provider: seedModel });
    receipt = run.receipt;
    expect(receipt.errors).toEqual([]);
    expect(receipt.status).toBe('completed');
    expect(receipt.tasks?.map((task) => task.id)).toEqual(['lookup-1', 'aggregate-2', 'later_page-3']);
    expect(receipt.questions.map((question) => `${question.taskId} ${question.condition} ${question.status}`)).toEqual([
      'lookup-1 baseline passed',
      'lookup-1 optimized passed',
      'aggregate-2 baseline passed',
      'aggregate-2 optimized passed',
      'later_page-3 baseline passed',
      'later_page-3 optimized passed',
    ]);
    expect(receipt.report?.allPassed).toBe(true);
    // The continuation-call check still applies: the optimized answer followed a cursor.
    const later = receipt.questions[5];
    expect(later?.checks?.pathOk).toBe(true);
    expect(later?.turns.flatMap((turn) => turn.tools).some((call) => typeof (call.arguments as { cursor?: unknown }).cursor === 'string')).toBe(true);
  });

  it('records the evidence position as not checked, never as a pass, and says so in the report', () => {
    const validation = receipt.validation?.find((task) => task.kind === 'later_page');
    expect(validation).toEqual({ taskId: 'later_page-3', kind: 'later_page', ok: true, problems: [], notChecked: [expect.stringContaining(UNCHECKED)] });
    expect(validation?.evidencePositions).toBeUndefined();
    const report = readFileSync(run.reportFile ?? '', 'utf8');
    expect(report).toContain(`- later_page-3: ${UNCHECKED}`);
    expect(renderExperimentRun(run, 'mcpctx')).toContain(UNCHECKED);
  });

  it('verifies, and a receipt that drops the note does not', () => {
    const written = JSON.parse(readFileSync(run.receiptFile, 'utf8')) as ExperimentReceipt;
    expect(verifyReceipt(written).problems).toEqual([]);
    delete written.validation?.[2]?.notChecked;
    expect(verifyReceipt(written).problems).toEqual([expect.stringMatching(/^validation\[2\]\.notChecked/)]);
  });

  it('still refuses half a page query: pageField and pageValue go together', () => {
    const later = SEED_TASKS[2] ?? {};
    const parsed = parseTasks(Buffer.from(JSON.stringify([{ ...later, pageField: 'status' }])), 'tasks.json');
    expect(parsed.problems).toEqual([[expect.stringContaining('pageField and pageValue go together')]]);
    expect(parseTasks(Buffer.from(JSON.stringify([later])), 'tasks.json').problems).toEqual([[]]);
  });
});
