import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseExperimentConfig } from '../../src/experiment/config/_config.js';
import { readInputs, type ExperimentInputs } from '../../src/experiment/config/_inputs.js';
import type { ExperimentConfig } from '../../src/experiment/_types.js';
import { validateTasks } from '../../src/experiment/config/_validate.js';

// The bundled data: 30 PyGithub issues; 9 of them pull requests (3006 3022 3028 3034 3039 3040
// 3041 3043 3045 in id order, so 3041 is the 7th match, position 6, on the second page of 5).
const DATA = resolve(import.meta.dirname, '../../examples/records-server/data');

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpctx-exp-validate-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const LOOKUP = {
  kind: 'lookup',
  question: 'Who opened pull request 3045?',
  expectedAnswer: 'bmwiedemann',
  evidenceIds: ['3045'],
  requiredCaveats: [],
  detailField: 'author',
};
const AGGREGATE = {
  kind: 'aggregate',
  question: 'How many of the records are pull requests?',
  expectedAnswer: '9',
  evidenceIds: ['3041'],
  requiredCaveats: ['snapshot'],
  aggregateField: 'is_pull_request',
  aggregateValue: 'true',
};
const LATER_PAGE = {
  kind: 'later_page',
  question: 'Which is the seventh pull request in id order?',
  expectedAnswer: '3041',
  evidenceIds: ['3041'],
  requiredCaveats: [],
  pageField: 'is_pull_request',
  pageValue: 'true',
};

async function setUp(tasks: unknown[], pageSize = 5): Promise<{ config: ExperimentConfig; inputs: ExperimentInputs }> {
  writeFileSync(join(dir, 'tasks.json'), JSON.stringify(tasks));
  const config = parseExperimentConfig(
    `snapshot: ${join(DATA, 'snapshot.json')}\nfields: ${join(DATA, 'fields.json')}\ntasks: tasks.json\npageSize: ${pageSize}\n` +
      'conditions:\n  baseline: { command: node }\n  optimized: { command: node }\nmodel: { script: turns.json }\n',
    join(dir, 'experiment.yaml'),
  );
  writeFileSync(join(dir, 'turns.json'), '{"version":1,"turns":{}}');
  return { config, inputs: await readInputs(config) };
}

async function validate(tasks: unknown[], pageSize = 5) {
  const { config, inputs } = await setUp(tasks, pageSize);
  return validateTasks(inputs, config);
}

describe('validateTasks', () => {
  it('passes a good lookup, aggregate and later_page task on the bundled snapshot', async () => {
    expect(await validate([LOOKUP, AGGREGATE, LATER_PAGE])).toEqual([
      { taskId: 'lookup-1', kind: 'lookup', ok: true, problems: [] },
      { taskId: 'aggregate-2', kind: 'aggregate', ok: true, problems: [], independentCount: 9 },
      {
        taskId: 'later_page-3',
        kind: 'later_page',
        ok: true,
        problems: [],
        matchingIds: ['3006', '3022', '3028', '3034', '3039', '3040', '3041', '3043', '3045'],
        evidencePositions: [6],
      },
    ]);
  });

  it('refuses an aggregate whose expected count disagrees with the snapshot, naming both numbers', async () => {
    const [validation] = await validate([{ ...AGGREGATE, expectedAnswer: '7' }]);
    expect(validation?.ok).toBe(false);
    expect(validation?.independentCount).toBe(9);
    expect(validation?.problems).toEqual([expect.stringContaining("expected count 7 disagrees with the snapshot's 9 records whose is_pull_request equals \"true\"")]);
  });

  it('counts exact whole values only', async () => {
    const [validation] = await validate([{ ...AGGREGATE, expectedAnswer: '0', aggregateValue: 'True' }]);
    expect(validation?.independentCount).toBe(0);
    expect(validation?.problems).toEqual(['evidenceIds: "3041" is not among the counted records (its is_pull_request is not "True").']);
  });

  it('refuses aggregate evidence that is not among the counted records', async () => {
    const [validation] = await validate([{ ...AGGREGATE, evidenceIds: ['3041', '3042'] }]);
    expect(validation?.problems).toEqual(['evidenceIds: "3042" is not among the counted records (its is_pull_request is not "true").']);
  });

  it('refuses a later_page task whose evidence is all on the first page', async () => {
    const [validation] = await validate([{ ...LATER_PAGE, evidenceIds: ['3006', '3039'] }]);
    expect(validation?.ok).toBe(false);
    expect(validation?.evidencePositions).toEqual([0, 4]);
    expect(validation?.problems).toEqual([expect.stringContaining('every evidence id is on the first page (match 1, 5 of 9, 5 per page)')]);
  });

  it('measures the first page with the configured page size', async () => {
    const [validation] = await validate([LATER_PAGE], 7);
    expect(validation?.ok).toBe(false);
    expect(validation?.problems).toEqual([expect.stringContaining('needs evidence past match 7')]);
  });

  it('refuses later_page evidence that does not match the page query', async () => {
    const [validation] = await validate([{ ...LATER_PAGE, evidenceIds: ['3041', '3042'] }]);
    expect(validation?.evidencePositions).toEqual([6, -1]);
    expect(validation?.problems).toEqual(['evidenceIds: "3042" does not match the page query (its is_pull_request is not "true").']);
  });

  it('refuses an evidence id that is not in the snapshot', async () => {
    const [validation] = await validate([{ ...LOOKUP, evidenceIds: ['3045', '9999'] }]);
    expect(validation).toMatchObject({ ok: false, problems: ['evidenceIds: "9999" is not an id in the snapshot (ids match exactly, case-sensitive).'] });
  });

  it('refuses a lookup whose detailField is id or revision, or not allowed', async () => {
    const results = await validate([
      { ...LOOKUP, detailField: 'id' },
      { ...LOOKUP, detailField: 'revision' },
      { ...LOOKUP, detailField: 'body' },
    ]);
    expect(results.map((result) => result.ok)).toEqual([false, false, false]);
    expect(results[0]?.problems).toEqual([expect.stringContaining('detailField "id" comes back from every search')]);
    expect(results[2]?.problems).toEqual([expect.stringContaining('detailField "body" is not in the field allowlist')]);
  });

  it('refuses a query on a field outside the allowlist', async () => {
    const [aggregate, page] = await validate([
      { ...AGGREGATE, aggregateField: 'body' },
      { ...LATER_PAGE, pageField: 'Author' },
    ]);
    expect(aggregate?.problems).toEqual([expect.stringContaining('aggregateField "body" is not in the field allowlist')]);
    expect(aggregate?.independentCount).toBeUndefined();
    expect(page?.problems).toEqual([expect.stringContaining('pageField "Author" is not in the field allowlist')]);
  });

  it('refuses a task malformed in the file with its problems, and checks the others', async () => {
    const results = await validate([{ ...LOOKUP, detailField: undefined, extra: 1 }, AGGREGATE]);
    expect(results[0]).toEqual({
      taskId: 'lookup-1',
      kind: 'lookup',
      ok: false,
      problems: [expect.stringContaining('Unknown key "extra"'), 'detailField is required for a lookup task.'],
    });
    expect(results[1]?.ok).toBe(true);
  });

  it('checks tasks built in code, not only those read from a file', async () => {
    const { config, inputs } = await setUp([AGGREGATE]);
    const task = { id: 'blank', kind: 'lookup' as const, question: ' ', expectedAnswer: '', evidenceIds: [], requiredCaveats: [''] };
    const [validation] = validateTasks({ ...inputs, tasks: { ...inputs.tasks, tasks: [task], problems: [] } }, config);
    expect(validation?.problems).toEqual([
      'question is empty.',
      'expectedAnswer is empty.',
      'evidenceIds names no id; list the ids the answer must cite.',
      'requiredCaveats[0] is empty.',
      expect.stringContaining('detailField is required for a lookup task'),
    ]);
  });
});
