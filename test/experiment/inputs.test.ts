import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import type * as Fs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { parseExperimentConfig } from '../../src/experiment/config/_config.js';
import { InputGuard, compareIds, readInputs, resolveProbe, type ExperimentInputs } from '../../src/experiment/config/_inputs.js';
import type { ExperimentConfig } from '../../src/experiment/_types.js';

// Bytes read through readFileSync, to see that an unchanged input is not read again.
const disk = vi.hoisted(() => ({ bytesRead: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof Fs>();
  const readFileSync = ((...args: Parameters<typeof actual.readFileSync>) => {
    const bytes = actual.readFileSync(...args);
    disk.bytesRead += bytes.length;
    return bytes;
  }) as typeof actual.readFileSync;
  return { ...actual, readFileSync, default: { ...actual, readFileSync } };
});

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpctx-exp-inputs-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const RECORDS = [
  { id: '10', revision: 'r1', state: 'open', title: 'ten' },
  { id: 'a', revision: 'r1', state: 'closed', title: 'letter' },
  { id: '2', revision: 'r2', state: 'open', title: 'two' },
];
const FIELDS = ['id', 'revision', 'state', 'title'];
const TASKS = [
  { kind: 'aggregate', question: 'How many are open?', expectedAnswer: '2', evidenceIds: ['2'], aggregateField: 'state', aggregateValue: 'open' },
];

function write(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`);
  return path;
}

function configFor(options: { records?: unknown; fields?: unknown; tasks?: unknown; script?: unknown } = {}): ExperimentConfig {
  write('snapshot.json', options.records ?? RECORDS);
  write('fields.json', options.fields ?? FIELDS);
  write('tasks.json', options.tasks ?? TASKS);
  const scripted = options.script !== undefined;
  if (scripted) write('turns.json', options.script);
  const model = scripted ? 'model: { script: turns.json }' : 'model: { provider: anthropic, model: claude-x }';
  return parseExperimentConfig(
    `snapshot: snapshot.json\nfields: fields.json\ntasks: tasks.json\nconditions:\n  baseline: { command: node }\n  optimized: { command: node }\n${model}\n`,
    join(dir, 'experiment.yaml'),
  );
}

async function failure(promise: Promise<unknown>): Promise<McpctxError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpctxError) return error;
    throw error;
  }
  throw new Error('expected an McpctxError');
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

describe('readInputs', () => {
  it('hashes the bytes of each file and returns records in the server id order', async () => {
    const config = configFor({ script: { version: 1, turns: {} } });
    const inputs = await readInputs(config);
    expect(inputs.snapshot).toMatchObject({ file: config.snapshot, sha256: sha256(config.snapshot), bytes: statSync(config.snapshot).size });
    expect(inputs.fields).toMatchObject({ file: config.fields, sha256: sha256(config.fields), bytes: statSync(config.fields).size, allowed: FIELDS });
    expect(inputs.tasks).toMatchObject({ file: config.tasks, sha256: sha256(config.tasks), bytes: statSync(config.tasks).size });
    expect(inputs.script).toEqual({ file: join(dir, 'turns.json'), sha256: sha256(join(dir, 'turns.json')), bytes: statSync(join(dir, 'turns.json')).size });
    expect(inputs.snapshot.records.map((record) => record.id)).toEqual(['2', '10', 'a']);
    expect(inputs.snapshot.records[0]).toEqual({ id: '2', revision: 'r2', state: 'open', title: 'two' });
    expect(inputs.tasks.tasks).toEqual([{ id: 'aggregate-1', requiredCaveats: [], ...TASKS[0] }]);
    expect(inputs.tasks.problems).toEqual([[]]);
  });

  it('has no script entry for an HTTP provider', async () => {
    expect((await readInputs(configFor())).script).toBeUndefined();
  });

  it('accepts an allowlist written as { fields: [...] }', async () => {
    expect((await readInputs(configFor({ fields: { fields: ['id', 'revision', 'title'] } }))).fields.allowed).toEqual(['id', 'revision', 'title']);
  });

  const snapshotRules: [string, unknown, RegExp][] = [
    ['not an array', { records: RECORDS }, /must be a JSON array of records/],
    ['not JSON', '[{"id": "1",', /not valid UTF-8 JSON/],
    ['a record that is not an object', [RECORDS[0], 'x'], /record 1 is not an object/],
    ['a field name unlike an identifier', [RECORDS[0], { id: '7', revision: 'r', 'bad-name': 'x' }], /record 1 \(id "7"\): field name "bad-name" is not like an identifier/],
    ['a value that is not a string', [{ id: '7', revision: 'r', count: 3 }], /record 0 \(id "7"\): field "count" is not a string/],
    ['a value over 10,000 characters', [{ id: '7', revision: 'r', body: 'x'.repeat(10_001) }], /record 0 \(id "7"\): field "body" has 10001 characters, over the limit of 10000/],
    ['a missing id', [RECORDS[0], { revision: 'r' }], /record 1: "id" must be a non-empty string/],
    ['an empty id', [{ id: '', revision: 'r' }], /record 0 \(id ""\): "id" must be a non-empty string/],
    ['a repeated id', [...RECORDS, { id: '10', revision: 'r9' }], /record 3 \(id "10"\): "id" repeats an earlier record; ids must be unique/],
    ['a missing revision', [{ id: '7' }], /record 0 \(id "7"\): "revision" must be a string/],
  ];
  for (const [rule, records, message] of snapshotRules) {
    it(`refuses a snapshot with ${rule}: INVALID_RECORDS naming the file, record and rule`, async () => {
      const config = configFor({ records, fields: ['id', 'revision'] });
      const error = await failure(readInputs(config));
      expect(error.code).toBe('INVALID_RECORDS');
      expect(error.data).toMatchObject({ file: config.snapshot, which: 'snapshot' });
      expect(error.message).toContain(config.snapshot);
      expect(error.message).toMatch(message);
    });
  }

  it('refuses a snapshot over 100,000 records', async () => {
    const records = Array.from({ length: 100_001 }, (_, index) => ({ id: String(index), revision: '' }));
    const config = configFor({ records: JSON.stringify(records), fields: ['id', 'revision'] });
    const error = await failure(readInputs(config));
    expect(error.code).toBe('INVALID_RECORDS');
    expect(error.message).toMatch(/holds 100001 records, over the limit of 100000/);
  });

  const allowlistRules: [string, unknown, RegExp][] = [
    ['not a list of names', { names: FIELDS }, /must be a JSON array of field names/],
    ['no revision', ['id', 'state'], /must include "revision"/],
    ['a field no record has', [...FIELDS, 'owner'], /fields the snapshot does not have: "owner"/],
    ['a name twice', [...FIELDS, 'state'], /names a field twice/],
  ];
  for (const [rule, fields, message] of allowlistRules) {
    it(`refuses an allowlist with ${rule}`, async () => {
      const config = configFor({ fields });
      const error = await failure(readInputs(config));
      expect(error.code).toBe('INVALID_RECORDS');
      expect(error.data).toMatchObject({ file: config.fields, which: 'fields' });
      expect(error.message).toMatch(message);
    });
  }

  it('is IO naming the input for a missing file or one that is not a regular file', async () => {
    const config = configFor();
    unlinkSync(config.tasks);
    expect(await failure(readInputs(config))).toMatchObject({ code: 'IO', data: { file: config.tasks, which: 'tasks' } });
    rmSync(config.fields);
    execFileSync('mkfifo', [config.fields]);
    // A FIFO with no writer would block a plain read forever.
    expect(await failure(readInputs(config))).toMatchObject({ code: 'IO', data: { which: 'fields' }, message: expect.stringContaining('not a regular file') });
  });
});

describe('the tasks file', () => {
  it('refuses the whole file when it is not a JSON array of 1..200 tasks', async () => {
    for (const [tasks, reason] of [
      ['{"kind": "lookup"', /not valid UTF-8 JSON/],
      [{ tasks: TASKS }, /must be a JSON array of tasks/],
      [[], /holds no task/],
      [Array.from({ length: 201 }, () => TASKS[0]), /holds 201 tasks, over the limit of 200/],
    ] as const) {
      const config = configFor({ tasks });
      const error = await failure(readInputs(config));
      expect(error.code).toBe('INVALID_CONFIG');
      expect(error.data.file).toBe(config.tasks);
      expect((error.data.problems as { reason: string }[])[0]?.reason).toMatch(reason);
    }
  });

  it('refuses the whole file for entries it cannot name: not an object, a bad kind, a bad or repeated id', async () => {
    const config = configFor({
      tasks: [TASKS[0], 'lookup', { ...TASKS[0], kind: 'summary' }, { ...TASKS[0], id: 7 }, { ...TASKS[0], id: 'aggregate-1' }],
    });
    const error = await failure(readInputs(config));
    expect(error.code).toBe('INVALID_CONFIG');
    expect((error.data.problems as { path: string }[]).map((problem) => problem.path)).toEqual(['[1]', '[2].kind', '[3].id', '[4].id']);
    expect(error.message).toContain('is the id of task [0] too');
  });

  it('keeps a task with broken fields, with its problems, for validation to refuse', async () => {
    const config = configFor({
      tasks: [
        { kind: 'lookup', question: 'Who?', expectedAnswer: 'x', evidenceIds: ['2'], detailField: 'title' },
        { kind: 'aggregate', id: 'count', question: 'How many?', expectedAnswer: 2, evidenceIds: '2', aggregateField: 'state', detailField: 'title', note: 'x' },
        { kind: 'later_page', question: '', expectedAnswer: 'x', evidenceIds: [], requiredCaveats: [''], pageField: 'state', pageValue: '' },
      ],
    });
    const inputs = await readInputs(config);
    expect(inputs.tasks.tasks.map((task) => task.id)).toEqual(['lookup-1', 'count', 'later_page-3']);
    expect(inputs.tasks.problems[0]).toEqual([]);
    expect(inputs.tasks.problems[1]).toEqual([
      'detailField belongs to lookup tasks, not to an aggregate task; remove it or change kind.',
      'Unknown key "note"; an aggregate task has id, kind, question, expectedAnswer, evidenceIds, requiredCaveats, aggregateField, aggregateValue.',
      'expectedAnswer must be a string: write "2", the exact text expected.',
      'evidenceIds must be a list of strings.',
      'aggregateValue is required for an aggregate task.',
    ]);
    expect(inputs.tasks.tasks[1]).toMatchObject({ expectedAnswer: '2', evidenceIds: [], aggregateField: 'state' });
    expect(inputs.tasks.problems[2]).toEqual(['question must be a non-empty string.', 'evidenceIds must name at least one id.', 'requiredCaveats[0] must be a non-empty string.']);
    // "" is a value to match (it matches empty fields), not a missing one.
    expect(inputs.tasks.tasks[2]?.pageValue).toBe('');
  });
});

describe('compareIds', () => {
  it('orders digit-only ids as numbers and others by code points', () => {
    expect(['a', '10', 'B', '2', '9'].sort(compareIds)).toEqual(['2', '9', '10', 'B', 'a']);
    // Equal numbers fall back to code points, as the records-server sorts them.
    expect(['10', '010'].sort(compareIds)).toEqual(['010', '10']);
  });
});

describe('resolveProbe', () => {
  it('fills the default arguments with the first id in id order', async () => {
    const config = configFor();
    const inputs = await readInputs(config);
    expect(resolveProbe(config.probe, inputs)).toEqual({ condition: 'optimized', tool: 'count_by_field', arguments: { field: 'id', value: '2' }, cacheKey: 'cache' });
    expect(resolveProbe({ ...config.probe!, arguments: { field: 'state', value: 'open' } }, inputs)?.arguments).toEqual({ field: 'state', value: 'open' });
    expect(resolveProbe(null, inputs)).toBeNull();
  });
});

describe('InputGuard', () => {
  async function guarded(): Promise<{ config: ExperimentConfig; inputs: ExperimentInputs; guard: InputGuard }> {
    const config = configFor({ script: { version: 1, turns: {} } });
    const inputs = await readInputs(config);
    const guard = new InputGuard(inputs);
    guard.assertUnchanged();
    return { config, inputs, guard };
  }

  function thrown(guard: InputGuard): McpctxError {
    try {
      guard.assertUnchanged();
    } catch (error) {
      if (error instanceof McpctxError) return error;
      throw error;
    }
    throw new Error('expected SOURCE_CHANGED');
  }

  it('passes while nothing changed, without reading the files again', async () => {
    const { guard } = await guarded();
    const before = disk.bytesRead;
    for (let call = 0; call < 5; call++) guard.assertUnchanged();
    expect(disk.bytesRead).toBe(before);
  });

  it('stops on an edited snapshot: SOURCE_CHANGED with which, expected and actual', async () => {
    const { config, inputs, guard } = await guarded();
    write('snapshot.json', [...RECORDS, { id: '11', revision: 'r1' }]);
    const error = thrown(guard);
    expect(error.code).toBe('SOURCE_CHANGED');
    expect(error.data).toEqual({ file: config.snapshot, which: 'snapshot', expected: inputs.snapshot.sha256, actual: sha256(config.snapshot) });
    // Still stopped on the next call: the run must not go on.
    expect(thrown(guard).code).toBe('SOURCE_CHANGED');
  });

  it('catches an edit of the same size with the modification time set back', async () => {
    const { config, guard } = await guarded();
    // Whole seconds, so that setting the time back restores it to the nanosecond.
    const when = 1_700_000_000;
    utimesSync(config.snapshot, when, when);
    guard.assertUnchanged();
    const before = statSync(config.snapshot, { bigint: true });
    const text = readFileSync(config.snapshot, 'utf8');
    writeFileSync(config.snapshot, text.replace('"ten"', '"TEN"'));
    utimesSync(config.snapshot, when, when);
    const after = statSync(config.snapshot, { bigint: true });
    expect([after.size, after.mtimeNs, after.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
    expect(thrown(guard).data).toMatchObject({ which: 'snapshot' });
  });

  it('stops when an input vanished, with actual null', async () => {
    const { config, guard } = await guarded();
    unlinkSync(config.snapshot);
    expect(thrown(guard)).toMatchObject({ code: 'SOURCE_CHANGED', data: { which: 'snapshot', actual: null } });
  });

  it('watches the allowlist, the tasks and the script too', async () => {
    for (const [which, file] of [
      ['fields', 'fields.json'],
      ['tasks', 'tasks.json'],
      ['script', 'turns.json'],
    ] as const) {
      const { guard } = await guarded();
      writeFileSync(join(dir, file), `${readFileSync(join(dir, file), 'utf8')}\n`);
      expect(thrown(guard)).toMatchObject({ code: 'SOURCE_CHANGED', data: { which, file: join(dir, file) } });
    }
  });

  it('lets a touch or a copy of the same bytes pass', async () => {
    const { config, guard } = await guarded();
    const bytes = readFileSync(config.snapshot);
    writeFileSync(config.snapshot, bytes);
    utimesSync(config.tasks, new Date(), new Date(Date.now() + 5_000));
    guard.assertUnchanged();
  });
});
