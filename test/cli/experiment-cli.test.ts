// `mcpctx experiment` and `mcpctx experiment verify` as a user runs them.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../support/cli-run.js';
import { copyDemo } from '../support/experiment-demo.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpctx-experiment-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mcpctx experiment', () => {
  const out = join(dir, 'demo');

  it('runs the bundled demo offline with --provider scripted --out DIR and nothing else', async () => {
    const run = await runCliCaptured(['experiment', '--provider', 'scripted', '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/lookup-author/);
    expect(run.stdout).toMatch(/page-security-advisories/);
    expect(run.stdout).toContain(join(out, 'receipt.json'));
    expect(existsSync(join(out, 'report.md'))).toBe(true);
  }, 120_000);

  it('verify recomputes the receipt (exit 0) and finds a changed figure (exit 1, the path named)', async () => {
    const file = join(out, 'receipt.json');
    const good = await runCliCaptured(['experiment', 'verify', file]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^verified .*8 questions/);
    const receipt = JSON.parse(readFileSync(file, 'utf8')) as { questions: Array<{ totals: { outputTokens: number } }> };
    receipt.questions[1]!.totals.outputTokens += 7;
    const tampered = join(dir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify(receipt));
    const bad = await runCliCaptured(['experiment', 'verify', tampered, '--json']);
    expect(bad.code).toBe(1);
    const verification = JSON.parse(bad.stdout) as { ok: boolean; problems: string[] };
    expect(verification.ok).toBe(false);
    expect(verification.problems.join('\n')).toMatch(/questions\[1\]\.totals\.outputTokens/);
    expect((await runCliCaptured(['experiment', 'verify', join(dir, 'absent.json')])).code).toBe(3);
  });

  it('refuses to overwrite a run, unless --force', async () => {
    const again = await runCliCaptured(['experiment', '--provider', 'scripted', '--out', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
  });

  it('exits 1 with --json when an answer fails its check', async () => {
    const copy = copyDemo({ tasks: (tasks) => tasks.map((task) => (task.id === 'lookup-author' ? { ...task, expectedAnswer: 'someone-else' } : task)) });
    try {
      const run = await runCliCaptured(['experiment', '--config', copy.config, '--out', join(copy.dir, 'out'), '--json']);
      expect(run.code).toBe(1);
      const summary = JSON.parse(run.stdout) as { status: string; report: { allPassed: boolean; rows: Array<{ taskId: string; verdict: string }> } };
      expect(summary.status).toBe('completed');
      expect(summary.report.rows.find((row) => row.taskId === 'lookup-author')?.verdict).toBe('both-failed');
    } finally {
      rmSync(copy.dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('without the API key, is a usage error naming the variable, before any call', async () => {
    const run = await runCliCaptured(['experiment', '--provider', 'anthropic', '--model', 'claude-x', '--out', join(dir, 'nokey')]);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/ANTHROPIC_API_KEY/);
    const receipt = JSON.parse(readFileSync(join(dir, 'nokey', 'receipt.json'), 'utf8')) as { errors: Array<{ stage: string; code: string }>; questions: unknown[] };
    expect(receipt.errors).toEqual([expect.objectContaining({ stage: 'inputs', code: 'MISSING_KEY' })]);
    expect(receipt.questions).toEqual([]);
  });

  it('--api-key-env names the key variable, as routing\'s does; --key-env, its earlier name, is still read', async () => {
    for (const flag of ['--api-key-env', '--key-env']) {
      const run = await runCliCaptured(['experiment', '--provider', 'anthropic', '--model', 'claude-x', flag, 'MY_UNSET_KEY', '--out', join(dir, `nokey${flag}`)]);
      expect(run.code, flag).toBe(2);
      expect(run.stdout, flag).toMatch(/MY_UNSET_KEY/);
    }
  });

  it('--repeat N asks each question N times per condition and reports the intervals in --json; a count out of range is a usage error', async () => {
    const copy = copyDemo({ tasks: (tasks) => tasks.filter((task) => task.id === 'lookup-author') });
    try {
      const run = await runCliCaptured(['experiment', '--config', copy.config, '--repeat', '2', '--out', join(copy.dir, 'out'), '--json', '--progress']);
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/\[3\/4\] lookup-author #2 baseline/);
      const summary = JSON.parse(run.stdout) as { report: { rows: Array<{ repetition: number }>; statistics: { repeat: number; rates: { baseline: { right: number; verdicts: number; low: number } } } } };
      expect(summary.report.rows.map((row) => row.repetition)).toEqual([1, 2]);
      expect(summary.report.statistics.repeat).toBe(2);
      expect(summary.report.statistics.rates.baseline).toMatchObject({ right: 2, verdicts: 2 });
      expect(summary.report.statistics.rates.baseline.low).toBeCloseTo(0.34238, 5);
      expect(readFileSync(join(copy.dir, 'out', 'report.md'), 'utf8')).toContain('| baseline | 2 | 2 | 100.0% | 34.2% to 100.0% | 0 |');
    } finally {
      rmSync(copy.dir, { recursive: true, force: true });
    }
    for (const bad of ['0', '1001', 'x']) {
      const run = await runCliCaptured(['experiment', '--provider', 'scripted', '--repeat', bad, '--out', join(dir, `repeat-${bad}`)]);
      expect(run.code, bad).toBe(2);
      expect(run.stderr, bad).toMatch(/--repeat/);
    }
  }, 120_000);

  it('progress goes to stderr with --progress', async () => {
    const run = await runCliCaptured(['experiment', '--provider', 'scripted', '--out', join(dir, 'progress'), '--progress']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\[1\/8\] lookup-author baseline/);
    expect(run.stderr).toMatch(/warm-cache probe passed/);
  }, 120_000);
});
