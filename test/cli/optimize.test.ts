// `mcpctx optimize`: the context text or the whole result from a JSON file, flags over the
// file's task and budget, each kind of bad input with its own message and exit code, and a
// budget conflict reported as a result with a warning.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonSyntaxErrorOffset } from '../../src/cli/_json-position.js';
import { lineAndColumn } from '../../src/tokens/index.js';
import { ContextOptimizer, type ContextResult, type OptimizerInput } from '../../src/optimizer/index.js';
import { runCliCaptured, type CliRun } from '../support/cli-run.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpctx-optimize-'));
const cli = (args: string[]): Promise<CliRun> => runCliCaptured(args, scratch);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function writeInput(name: string, value: unknown): string {
  writeFileSync(join(scratch, name), typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return name;
}

const INPUT = {
  task: 'Fix the crash in parseExpression on empty input',
  messages: [{ role: 'user', text: 'parseExpression crashes on empty input; do not change its signature.' }],
  toolOutputs: [
    { command: 'npm test', output: "TypeError: Cannot read properties of undefined (reading 'kind')\n    at parseExpression (src/parser.ts:42:17)", exitCode: 1 },
    { command: 'git status', output: 'On branch main\nnothing to commit', exitCode: 0 },
  ],
  files: [{ path: 'src/parser.ts', content: 'export function parseExpression(tokens) {\n  return tokens[0].kind;\n}\n' }],
  decisions: [{ text: 'Keep the signature of parseExpression.', status: 'accepted' }],
} satisfies OptimizerInput;

function library(input: OptimizerInput, counter?: 'o200k' | 'chars/4'): ContextResult {
  // As printed: JSON has no -0.
  return JSON.parse(JSON.stringify(new ContextOptimizer(counter === undefined ? {} : { counter }).buildContext(input))) as ContextResult;
}

describe('mcpctx optimize output', () => {
  it('prints the context text alone by default', async () => {
    const run = await cli(['optimize', '--input', writeInput('session.json', INPUT)]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const context = library(INPUT).context;
    expect(run.stdout).toBe(context.endsWith('\n') ? context : `${context}\n`);
    expect(run.stdout).toContain('[source: ');
  });

  it('prints the object buildContext returns with --json', async () => {
    const run = await cli(['optimize', '--input', writeInput('session.json', INPUT), '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(library(INPUT));
  });

  it('takes --task and --budget over the file, and --counter chars/4 as an estimate', async () => {
    const run = await cli(['optimize', '--input', writeInput('session.json', { ...INPUT, tokenBudget: 50 }), '--task', 'what does git status say', '--budget', '300', '--counter', 'chars/4', '--json']);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as ContextResult;
    expect(result).toEqual(library({ ...INPUT, task: 'what does git status say', tokenBudget: 300 }, 'chars/4'));
    expect(result.stats).toMatchObject({ budget: 300, counter: 'chars/4', exact: false });
  });

  it('accepts a file without a task when --task gives one', async () => {
    const { task: _task, ...records } = INPUT;
    const run = await cli(['optimize', '--input', writeInput('records.json', records), '--task', INPUT.task]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(library(INPUT).context);
  });
});

describe('mcpctx optimize refusals', () => {
  it('exits 3 naming a file that cannot be read', async () => {
    const run = await cli(['optimize', '--input', 'missing.json', '--task', 'x']);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('cannot read input file');
    expect(run.stderr).toContain('missing.json');
  });

  it('exits 2 for a file that is not JSON, with the line and column of the fault', async () => {
    const file = writeInput('broken.json', '{\n  "task": "x",\n  "messages": [1,,2]\n}\n');
    const run = await cli(['optimize', '--input', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not valid JSON: unexpected "," at line 3, column 18');
    const truncated = await cli(['optimize', '--input', writeInput('truncated.json', '{\n  "task": "x",\n  "messages": [')]);
    expect(truncated.code).toBe(2);
    expect(truncated.stderr).toContain('is not valid JSON: the file ends too early at line 3, column 16');
  });

  it('exits 2 for a file of the wrong shape, naming the record and field', async () => {
    const file = writeInput('wrong.json', { ...INPUT, toolOutputs: [INPUT.toolOutputs[0], { command: 'ls', output: 'a', exitCode: '1' }] });
    const run = await cli(['optimize', '--input', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('toolOutputs[1].exitCode');
    expect(run.stdout).toBe('');
  });

  it('exits 2 for a JSON value that is not an object', async () => {
    const run = await cli(['optimize', '--input', writeInput('list.json', [INPUT]), '--task', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('got an array');
  });

  it('exits 2 when neither the file nor --task gives a task', async () => {
    const { task: _task, ...records } = INPUT;
    const run = await cli(['optimize', '--input', writeInput('records.json', records)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--task');
  });

  it('exits 2 for a budget that is not a positive integer', async () => {
    const run = await cli(['optimize', '--input', writeInput('session.json', INPUT), '--budget', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('positive integer');
  });
});

describe('mcpctx optimize budget conflict', () => {
  // An accepted decision is mandatory; alone it is over a 20-token budget.
  const conflicting = {
    ...INPUT,
    tokenBudget: 20,
    decisions: [{ text: `Keep the signature of parseExpression. ${'The callers in src/compiler.ts and src/format.ts depend on it. '.repeat(5)}`, status: 'accepted' }],
  } satisfies OptimizerInput;

  it('prints the context, warns on stderr and exits 0', async () => {
    const run = await cli(['optimize', '--input', writeInput('conflict.json', conflicting)]);
    expect(library(conflicting).report.selection.conflict).toBeDefined();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Keep the signature of parseExpression.');
    expect(run.stderr).toMatch(/^mcpctx: warning: BUDGET_CONFLICT: /);
  });

  it('exits 1 with --fail-on-conflict', async () => {
    const run = await cli(['optimize', '--input', writeInput('conflict.json', conflicting), '--fail-on-conflict']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Keep the signature of parseExpression.');
    expect(run.stderr).toContain('BUDGET_CONFLICT');
  });
});

describe('JSON fault position', () => {
  it.each([
    ['{"a": }', 6],
    ['{"a": 1,}', 8],
    ['[1] x', 4],
    ['{"a" 1}', 5],
    ['"tab\there"', 4],
    ['"\\x"', 2],
    ['01', 1],
    ['', 0],
    ['[[[', 3],
  ])('finds where %j stops being JSON', (text, offset) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(jsonSyntaxErrorOffset(text)).toBe(offset);
  });

  it('finds no fault in valid JSON, nested deep or with escapes', () => {
    for (const text of [' {"a": [1, -2.5e3, true, null, {"b": "\\u00e9\\n"}]} ', '[]', '"x"', `${'['.repeat(50_000)}${']'.repeat(50_000)}`]) {
      expect(jsonSyntaxErrorOffset(text)).toBeUndefined();
    }
  });

  it('counts lines and columns from 1', () => {
    expect(lineAndColumn('ab\ncd\nef', 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn('ab\ncd\nef', 4)).toEqual({ line: 2, column: 2 });
    expect(lineAndColumn('ab\ncd\nef', 8)).toEqual({ line: 3, column: 3 });
  });
});
