import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, markFlags, runCliCaptured } from '../support/cli-run.js';
import { SCRIPTED_SERVER, TEST_MARK_NAME, findMarkedProcesses, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { PROJECT_ROOT } from '../support/real-servers.js';

let scratch = '';
const cli = (args: string[]): Promise<CliRun> => runCliCaptured(args, scratch);

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpctx-cli-'));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const scripted = (mode: string): string[] => ['--', process.execPath, SCRIPTED_SERVER, mode];

async function allFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('mcpctx measure', () => {
  it('prints one measurement object with --json', async () => {
    const run = await cli(['measure', '--json', '--name', 'scripted', ...markFlags(), ...scripted('normal')]);
    expect(run.code).toBe(0);
    const measurement = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(measurement)).toEqual([
      'methodology', 'name', 'status', 'note', 'totalTokens', 'toolCount', 'canonicalSha256', 'canonicalBytes',
      'rawToolsCapture', 'captureRedaction', 'perTool', 'sessionStart', 'serverInstructions', 'serverInfo', 'serverCapabilities',
      'clientCapabilities', 'requestedProtocolVersion', 'negotiatedProtocolVersion', 'launch', 'isolation',
      'tokenizer', 'measuredAt', 'timings', 'attempts',
    ]);
    expect(measurement).toMatchObject({ methodology: 'mcpctx-catalog/v1', name: 'scripted', status: 'measured', toolCount: 3 });
    expect(measurement.tokenizer).toMatchObject({ name: 'gpt-tokenizer', encoding: 'o200k_base' });
  });

  it('prints the summary and the per-tool breakdown sorted by tokens', async () => {
    const run = await cli(['measure', ...markFlags(), '--runs', '1', ...scripted('normal')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^server\s+status\s+tools\s+tokens\s+band\s+session-start/);
    expect(run.stdout).toMatch(/scripted-server\s+measured\s+3\s+\d+\s+brightgreen/);
    const toolRows = run.stdout.split('tool ')[1]?.split('\n').slice(2).filter((line) => line.trim() !== '') ?? [];
    const tokens = toolRows.map((row) => Number(row.trim().split(/\s+/)[1]?.replace(/,/g, '')));
    expect(tokens).toHaveLength(3);
    expect([...tokens].sort((a, b) => b - a)).toEqual(tokens);
    expect(run.stdout).toContain('output schema');
  });

  it('measures a YAML list into one table and exits 3 when one server fails', async () => {
    const file = join(scratch, 'servers.yaml');
    await writeFile(
      file,
      [
        `- name: good`,
        `  command: ${JSON.stringify(process.execPath)}`,
        `  args: [${JSON.stringify(SCRIPTED_SERVER)}, pages3]`,
        `  env: { ${TEST_MARK_NAME}: ${JSON.stringify(markedEnv()[TEST_MARK_NAME])} }`,
        `- name: broken`,
        `  command: ${JSON.stringify(process.execPath)}`,
        `  args: [${JSON.stringify(SCRIPTED_SERVER)}, early-exit]`,
        `  env: { ${TEST_MARK_NAME}: ${JSON.stringify(markedEnv()[TEST_MARK_NAME])} }`,
      ].join('\n'),
    );
    const run = await cli(['measure', '--servers', file, '--runs', '1']);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/good\s+measured\s+7/);
    expect(run.stdout).toMatch(/broken\s+startup-failure\s+-/);
    const json = await cli(['measure', '--servers', file, '--runs', '1', '--json']);
    expect((JSON.parse(json.stdout) as unknown[]).length).toBe(2);
  });

  it.each([
    [['measure'], /give the server command/],
    [['measure', '--env', 'NOT VALID=1', '--', 'node'], /NAME=VALUE/],
    [['measure', '--capabilities', 'roots,telepathy', '--', 'node'], /unknown capability telepathy/],
    [['measure', '--runs', '0', '--', 'node'], /positive integer/],
    [['measure', '--servers', 'missing.yaml', '--', 'node'], /exclusive/],
    [['measure', '--bogus'], /unknown option/],
  ])('rejects %j as a usage error (exit 2)', async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('rejects an invalid servers file with the entry and the rule', async () => {
    const file = join(scratch, 'bad.yaml');
    await writeFile(file, '- name: a\n  command: node\n  argz: [x]\n');
    const run = await cli(['measure', '--servers', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad\.yaml: entry 1 has unknown key\(s\) argz; allowed: name, command/);
  });

  it('exits 3 with the status when the server cannot be measured', async () => {
    const run = await cli(['measure', ...markFlags(), ...scripted('auth-missing')]);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/auth-required/);
    expect(run.stdout).toContain('GITHUB_PERSONAL_ACCESS_TOKEN');
  });

  it('explains itself with --help', async () => {
    const run = await cli(['measure', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--capabilities');
    expect(run.stdout).toContain('Exit codes');
  });
});

describe('mcpctx verify', () => {
  it('passes on a fresh file and fails when one byte of the capture changes', async () => {
    const out = join(scratch, 'verify-out');
    const measured = await cli(['measure', '--out', out, '--name', 'to-verify', '--runs', '1', ...markFlags(), ...scripted('normal')]);
    expect(measured.code).toBe(0);
    const file = join(out, 'to-verify', 'measurement.json');
    expect(measured.stderr).toContain(file);

    const fresh = await cli(['verify', file]);
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toMatch(/^ok: /);

    const text = await readFile(file, 'utf8');
    const at = text.indexOf('Get the current weather');
    expect(at).toBeGreaterThan(text.indexOf('"rawToolsCapture"'));
    const tampered = join(out, 'tampered.json');
    await writeFile(tampered, `${text.slice(0, at)}g${text.slice(at + 1)}`);
    const changed = await cli(['verify', tampered]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/^FAILED: /);
    expect(changed.stdout).toContain('canonicalSha256');
    const report = JSON.parse((await cli(['verify', '--json', tampered])).stdout) as { ok: boolean; differences: Array<{ field: string }> };
    expect(report.ok).toBe(false);
    expect(report.differences.map((difference) => difference.field)).toContain('canonicalSha256');
  });

  it('exits 3 when the file cannot be read, 1 when it is not JSON', async () => {
    expect((await cli(['verify', join(scratch, 'nope.json')])).code).toBe(3);
    const junk = join(scratch, 'junk.json');
    await writeFile(junk, '{not json');
    expect((await cli(['verify', junk])).code).toBe(1);
  });
});

describe('secrets', () => {
  it('never prints or writes a value passed with --env, even when the server echoes it', async () => {
    const canary = `canary-${randomUUID()}`;
    const out = join(scratch, 'canary-out');
    const runs: CliRun[] = [];
    for (const mode of ['echo-env', 'echo-env-exit']) {
      runs.push(await cli(['measure', '--out', out, '--name', mode, '--env', `CANARY_SECRET=${canary}`, ...markFlags(), ...scripted(mode)]));
      runs.push(await cli(['measure', '--json', '--name', mode, '--env', `CANARY_SECRET=${canary}`, ...markFlags(), ...scripted(mode)]));
    }
    expect(runs.map((run) => run.code)).toEqual([0, 0, 3, 3]);
    // The failing server's stderr is shown and written, scrubbed: the proof that it was echoed.
    expect(runs[2]?.stdout).toContain('the secret is [redacted:CANARY_SECRET]');
    for (const run of runs) expect(run.stdout + run.stderr).not.toContain(canary);
    const files = await allFiles(out);
    expect(files).toHaveLength(2);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      expect(text).not.toContain(canary);
      expect(text).toContain('CANARY_SECRET');
    }
  });

  it('keeps the canary out of a real process run of the built CLI', async () => {
    const canary = `canary-${randomUUID()}`;
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [join(PROJECT_ROOT, 'dist/cli/main.js'), 'measure', '--runs', '1', '--env', `CANARY_SECRET=${canary}`, ...markFlags(), ...scripted('echo-env-exit')],
      { cwd: scratch, timeout: 30_000 },
    ).catch((error: { stdout: string; stderr: string; code: number }) => {
      expect(error.code).toBe(3);
      return error;
    });
    expect(stdout).toContain('[redacted:CANARY_SECRET]');
    expect(stdout + stderr).not.toContain(canary);
  });
});

describe('processes', () => {
  it('kills the server when the CLI is interrupted', async () => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'dist/cli/main.js'), 'measure', ...markFlags(), ...scripted('hang')], {
      cwd: scratch,
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const until = performance.now() + 10_000;
      while (!(await findMarkedProcesses(undefined, { owner: process.pid })).some((found) => found.cmdline.includes('hang'))) {
        if (performance.now() > until) throw new Error('the server never started');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(await waitForNoMarkedProcesses(2_000)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('leaves none behind', async () => {
    expect(await waitForNoMarkedProcesses()).toEqual([]);
  });
});
