import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { runCliCaptured } from '../support/cli-run.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { writeServersFile } from '../results/sweep/_fixture.js';

describe('mcpctx sweep (CLI)', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpctx-sweep-cli-'));
    file = await writeServersFile(dir, [
      { name: 'one', mode: 'normal' },
      { name: 'two', mode: 'pages3' },
    ]);
  });

  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it('explains every option, the statuses, retries, the guard and the exit codes in --help', async () => {
    const run = await runCliCaptured(['sweep', '--help']);
    expect(run.code).toBe(0);
    for (const word of ['--out', '--shard', '--rotation', '--only', '--concurrency', '--isolation', '--docker-image', '--docker-network', '--docker-memory', '--docker-cpus', '--docker-pids', '--always', '--dry-run', '--date', '--json', 'not-applicable', 'not-yet-run', 'remote-auth-wall', 'doubled', 'Harness guard', 'Exit codes', 'sweep merge']) {
      expect(run.stdout).toContain(word);
    }
  });

  it('refuses usage errors with exit 2 before measuring anything', async () => {
    const out = join(dir, 'never');
    const cases: Array<[string[], RegExp]> = [
      [['sweep', file, '--out', out, '--only', 'one', 'nope'], /"nope", not in the servers file; its names are: one, two/],
      [['sweep', file, '--out', out, '--isolation', 'docker'], /--isolation docker needs the docker command on PATH/],
      [['sweep', file, '--out', out, '--shard', '4/3'], /--shard/],
      [['sweep', file, '--out', out, '--concurrency', '65'], /--concurrency must be a whole number from 1 to 64/],
      [['sweep', file, '--out', out, '--isolation', 'vm'], /expected host or docker/],
      [['sweep', file, '--out', out, '--docker-network', 'bridge2'], /--docker-network must be one of bridge, host, none, got "bridge2"/],
      [['sweep', file, '--out', out, '--docker-memory', '2'], /--docker-memory must be a whole number with a unit k, m or g/],
      [['sweep', file, '--out', out, '--docker-cpus', '0'], /--docker-cpus must be a number of cores above 0/],
      [['sweep', file, '--out', out, '--docker-pids', '8'], /--docker-pids must be a whole number from 16/],
      [['sweep', file, '--out', out, '--always', 'one'], /--always names servers measured outside the rotation; give --rotation WEEKS/],
      [['sweep', file, '--out', out, '--rotation', '3', '--always', 'nope'], /--always names "nope", not in the servers file/],
      [['sweep', file, '--out', out, '--date', '2026-12-07'], /--date previews another day's selection with --dry-run/],
      [['sweep', file, '--dry-run', '--date', '2026-02-31'], /not a date \(YYYY-MM-DD\): "2026-02-31"/],
      [['sweep', join(dir, 'missing.yaml'), '--out', out], /cannot read servers file/],
      [['sweep', file], /--out/],
    ];
    for (const [args, message] of cases) {
      const run = await runCliCaptured(args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
    }
    await expect(stat(out)).rejects.toThrow();
  });

  it('previews with --dry-run which entries a day\'s selection measures, measuring and writing nothing', async () => {
    const out = join(dir, 'dry');
    const args = ['sweep', file, '--out', out, '--dry-run', '--rotation', '3', '--always', 'one', '--date', '2026-12-07'];
    const run = await runCliCaptured(args);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/one\s+yes\s+every week \(--always\)/);
    expect(run.stdout).toContain('sweep of 2026-12-07 (ISO week 50: rotation group 3 of 3) would measure');
    const json = JSON.parse((await runCliCaptured([...args, '--json'])).stdout) as { date: string; rotation: unknown; entries: Array<{ name: string; swept: boolean }> };
    expect(json.date).toBe('2026-12-07');
    expect(json.rotation).toEqual({ weeks: 3, isoWeek: 50, group: 2, always: ['one'] });
    expect(json.entries.find((planned) => planned.name === 'one')?.swept).toBe(true);
    // Names only: a launch (and its env values) never reaches the preview.
    expect(Object.keys(json.entries[0] ?? {}).sort()).toEqual(['name', 'skippedBy', 'swept']);
    await expect(stat(out)).rejects.toThrow();
  });

  it('prints a table, then the JSON report with --json, and stays quiet on stderr when it is not a terminal', async () => {
    const out = join(dir, 'results');
    const table = await runCliCaptured(['sweep', file, '--out', out, '--only', 'two']);
    expect(table.code).toBe(0);
    expect(table.stderr).toBe('');
    expect(table.stdout).toMatch(/^server\s+status\s+tools\s+tokens\s+note\n/);
    expect(table.stdout).toMatch(/two\s+measured\s+7\s+438/);
    expect(table.stdout).toMatch(/one\s+not-yet-run\s+-\s+-\s+not swept yet: not named by --only/);
    expect(table.stdout).toMatch(/wrote \d+ files to /);
    const json = await runCliCaptured(['sweep', file, '--out', out, '--json', '--concurrency', '1']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { servers: Array<{ name: string; status: string }>; concurrency: number; written: boolean };
    expect(report.servers.map((server) => [server.name, server.status])).toEqual([['one', 'measured'], ['two', 'measured']]);
    expect(report).toMatchObject({ concurrency: 1, written: true });
  });

  it('shows progress on stderr when it is a terminal: server k of n, name, status, tokens, elapsed', async () => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['sweep', file, '--out', join(dir, 'tty-results'), '--concurrency', '1'], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text), isTTY: true },
      cwd: dir,
      env: {},
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/one\s+measured/);
    expect(stderr).toMatch(/^\[1\/2\] one: measured, 293 tokens \(\d[\d,]* ms\)\n\[2\/2\] two: measured, 438 tokens \(\d[\d,]* ms\)\n$/);
  });

  it('shows the same progress with --progress when stderr is not a terminal (a sweep in the background), never on stdout', async () => {
    const quiet = await runCliCaptured(['sweep', file, '--out', join(dir, 'quiet-results'), '--concurrency', '1']);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    const piped = await runCliCaptured(['sweep', file, '--out', join(dir, 'piped-results'), '--concurrency', '1', '--json', '--progress']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toMatch(/^\[1\/2\] one: measured, 293 tokens \(\d[\d,]* ms\)\n\[2\/2\] two: measured, 438 tokens \(\d[\d,]* ms\)\n$/);
    expect(piped.stdout).not.toContain('[1/2]');
    expect(JSON.parse(piped.stdout)).toMatchObject({ written: true });
  });
});
