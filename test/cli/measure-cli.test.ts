// mcpctx measure and verify as users meet them: real processes of the built CLI where the
// behaviour is about the process (signals, pipes), the in-process CLI elsewhere.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultName } from '../../src/cli/measure.js';
import { verifyFile } from '../../src/measure/index.js';
import { type CliRun, markFlags, runCliCaptured } from '../support/cli-run.js';
import { SCRIPTED_SERVER, TEST_MARK_NAME, TEST_OWNER_NAME, findMarkedProcesses, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { HttpUpstream } from '../support/http-upstream.js';
import { PROJECT_ROOT } from '../support/real-servers.js';

const CLI = join(PROJECT_ROOT, 'dist/cli/main.js');
let scratch = '';
const cli = (args: string[]): Promise<CliRun> => runCliCaptured(args, scratch);
const scripted = (mode: string): string[] => ['--', process.execPath, SCRIPTED_SERVER, mode];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpctx-measure-cli-'));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A YAML servers file of scripted servers, each with the leak-check marks. */
async function serversFile(name: string, entries: Array<{ name: string; mode: string }>): Promise<string> {
  const marks = markedEnv();
  const env = `{ ${TEST_MARK_NAME}: ${JSON.stringify(marks[TEST_MARK_NAME])}, ${TEST_OWNER_NAME}: ${JSON.stringify(marks[TEST_OWNER_NAME])} }`;
  const file = join(scratch, name);
  const lines = entries.flatMap((entry) => [
    `- name: ${entry.name}`,
    `  command: ${JSON.stringify(process.execPath)}`,
    `  args: [${JSON.stringify(SCRIPTED_SERVER)}, ${entry.mode}]`,
    `  env: ${env}`,
  ]);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** Polls `check` every 50 ms until it is true; throws after `ms`. */
async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('measure --servers --out writes each result as soon as it is known', () => {
  it('keeps the first result, complete, when Ctrl-C interrupts the second server', async () => {
    const file = await serversFile('interrupted.yaml', [
      { name: 'first', mode: 'normal' },
      { name: 'second', mode: 'hang' },
    ]);
    const out = join(scratch, 'interrupted-out');
    const child = spawn(process.execPath, [CLI, 'measure', '--servers', file, '--out', out, '--runs', '1', '--timeout', '60000'], {
      cwd: scratch,
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const first = join(out, 'first', 'measurement.json');
      await until('the first result', () => stat(first).then(() => true, () => false));
      await until('the second server', async () =>
        (await findMarkedProcesses(undefined, { owner: process.pid })).some((found) => found.cmdline.includes('hang')),
      );
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(await verifyFile(first)).toMatchObject({ ok: true, name: 'first', status: 'measured' });
      await expect(stat(join(out, 'second'))).rejects.toThrow();
      expect(await waitForNoMarkedProcesses(3_000)).toEqual([]);
    } finally {
      // SIGTERM, not SIGKILL: the CLI's exit hook then ends the server groups even when the test failed.
      child.kill('SIGTERM');
    }
  }, 40_000);
});

describe('a closed stdout', () => {
  it('ends quietly when the reader of stdout goes away (measure ... | head -1)', async () => {
    const child = spawn(process.execPath, [CLI, 'measure', '--runs', '1', ...markFlags(), ...scripted('normal')], {
      cwd: scratch,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader closes before the CLI writes a byte: every write of the table meets EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(await waitForNoMarkedProcesses(3_000)).toEqual([]);
  }, 30_000);
});

describe('usage', () => {
  it('hints at -- when an option of the server is read as mcpctx\'s', async () => {
    const run = await cli(['measure', 'npx', '-y', '@modelcontextprotocol/server-memory']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option '-y'");
    expect(run.stderr).toContain('hint: put the server command after --, e.g. mcpctx measure [options] -- npx -y <package>');
  });

  it('exits 2 for a servers file that does not exist', async () => {
    const run = await cli(['measure', '--servers', 'no-such-file.yaml']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no-such-file.yaml');
  });

  it('measures the mcpServers map of a client config, its remote (url) entry too', async () => {
    const upstream = await HttpUpstream.start({ handlers: { 'tools/list': () => ({ tools: [{ name: 'remote_tool', inputSchema: { type: 'object' } }] }) } });
    try {
      const marks = markedEnv();
      const config = {
        mcpServers: {
          local: { command: process.execPath, args: [SCRIPTED_SERVER, 'normal'], env: marks },
          linear: { url: upstream.url },
        },
      };
      const file = join(scratch, 'claude_desktop_config.json');
      await writeFile(file, JSON.stringify(config));
      const run = await cli(['measure', '--servers', file, '--runs', '1']);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/local\s+measured\s+3/);
      expect(run.stdout).toMatch(/linear\s+measured\s+1/);
      expect(run.stderr).toBe('');
    } finally {
      await upstream.close();
    }
  });

  it('says "one capture" and "2 captures agree"', async () => {
    const one = await cli(['measure', '--runs', '1', ...markFlags(), ...scripted('normal')]);
    expect(one.stdout).toContain('scripted-server: one capture\n');
    const two = await cli(['measure', '--runs', '2', ...markFlags(), ...scripted('normal')]);
    expect(two.stdout).toContain('scripted-server: 2 captures agree\n');
    expect(one.stdout + two.stdout).not.toContain('(s)');
  });

  it('prints no escape sequence or control character a server sent, in tables, notes or stderr', async () => {
    const catalog = await cli(['measure', '--runs', '1', ...markFlags(), ...scripted('ansi-catalog')]);
    expect(catalog.code).toBe(0);
    expect(catalog.stdout).toMatch(/paint_red\s+\d+/);
    const exit = await cli(['measure', '--runs', '1', ...markFlags(), ...scripted('ansi-exit')]);
    expect(exit.code).toBe(3);
    expect(exit.stdout).toContain('fatal: config missing evil');
    // eslint-disable-next-line no-control-regex -- control characters are what must be absent
    for (const run of [catalog, exit]) expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e]/);
  });
});

describe('names', () => {
  it.each([
    ['npx', ['-y', '@eslint/mcp'], 'eslint-mcp'],
    ['npx', ['-y', '@playwright/mcp@latest'], 'playwright-mcp'],
    ['npx', ['-y', '@stripe/mcp', '--tools=all'], 'stripe-mcp'],
    ['npx', ['-y', '@modelcontextprotocol/server-memory@2026.8.31'], 'modelcontextprotocol-server-memory'],
    ['node', ['node_modules/@modelcontextprotocol/server-memory/dist/index.js'], 'modelcontextprotocol-server-memory'],
    ['npx', ['-y', 'mcp-server-kubernetes'], 'mcp-server-kubernetes'],
    ['uvx', ['mcp-server-fetch'], 'mcp-server-fetch'],
    ['pnpm', ['dlx', '@eslint/mcp'], 'eslint-mcp'],
    ['/usr/local/bin/npx', ['-y', '@stripe/mcp'], 'stripe-mcp'],
    ['node', ['build/index.js'], 'index'],
    ['python', ['server.py'], 'server'],
  ])('%s %j is named %s', (command, args, name) => {
    expect(defaultName(command, args)).toBe(name);
  });

  it('refuses, before measuring, to replace the result of another server that got the same name', async () => {
    const out = join(scratch, 'same-name-out');
    const copies = await Promise.all(
      ['a', 'b'].map(async (folder) => {
        await mkdir(join(scratch, folder), { recursive: true });
        const copy = join(scratch, folder, 'scripted-server.mjs');
        await copyFile(SCRIPTED_SERVER, copy);
        return copy;
      }),
    );
    const first = await cli(['measure', '--out', out, '--runs', '1', ...markFlags(), '--', process.execPath, copies[0] ?? '', 'normal']);
    expect(first.code).toBe(0);
    const file = join(out, 'scripted-server', 'measurement.json');
    const before = await readFile(file, 'utf8');
    const second = await cli(['measure', '--out', out, '--runs', '1', ...markFlags(), '--', process.execPath, copies[1] ?? '', 'pages3']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('holds a measurement of another server');
    expect(second.stderr).toContain('--name');
    expect(second.stdout).toBe('');
    expect(await readFile(file, 'utf8')).toBe(before);
    const again = await cli(['measure', '--out', out, '--runs', '1', ...markFlags(), '--', process.execPath, copies[0] ?? '', 'normal']);
    expect(again.code).toBe(0);
  });
});

describe('secrets in what the CLI writes', () => {
  it('writes the real figures and a redacted capture, which verify reports as not re-derivable', async () => {
    const uuid = randomUUID();
    const out = join(scratch, 'secret-out');
    const run = await cli(['measure', '--out', out, '--runs', '1', '--env', `CANARY_SECRET=${uuid}`, ...markFlags(), ...scripted('env-in-catalog')]);
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(uuid);
    const file = join(out, 'scripted-server', 'measurement.json');
    expect(await readFile(file, 'utf8')).not.toContain(uuid);
    const verify = await cli(['verify', file]);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toMatch(/^FAILED: .*not re-derivable: 3 strings of the capture held a secret/);
  });

  it('refuses a malformed --env without echoing any of it', async () => {
    const secret = `sk-${randomUUID()}`;
    for (const argument of [secret, `bad name=${secret}`, `${secret}=x`]) {
      const run = await cli(['measure', '--env', argument, '--', process.execPath, SCRIPTED_SERVER, 'normal']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--env expects NAME=VALUE/);
      expect(run.stdout + run.stderr).not.toContain(secret);
    }
  });

  it('withholds credential-looking arguments unless --record-args', async () => {
    const token = `ghp_${randomUUID().replace(/-/g, '')}`;
    const withheld = await cli(['measure', '--json', '--runs', '1', ...markFlags(), ...scripted('normal'), '--github-token', token]);
    expect(withheld.stdout).not.toContain(token);
    expect((JSON.parse(withheld.stdout) as { launch: unknown }).launch).toMatchObject({ args: [SCRIPTED_SERVER, 'normal', '--github-token', '[redacted]'], argsRedacted: 1 });
    const recorded = await cli(['measure', '--json', '--record-args', '--runs', '1', ...markFlags(), ...scripted('normal'), '--github-token', token]);
    expect((JSON.parse(recorded.stdout) as { launch: unknown }).launch).toMatchObject({ args: [SCRIPTED_SERVER, 'normal', '--github-token', token], argsRedacted: 0 });
  });
});

describe('verify', () => {
  it('takes a folder: one line per measurement.json, exit 1 if any fails, --json an array', async () => {
    const out = join(scratch, 'verify-dir');
    const file = await serversFile('two.yaml', [
      { name: 'one', mode: 'normal' },
      { name: 'two', mode: 'pages3' },
    ]);
    expect((await cli(['measure', '--servers', file, '--out', out, '--runs', '1'])).code).toBe(0);
    const clean = await cli(['verify', out]);
    expect(clean.code).toBe(0);
    expect(clean.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^ok: .*\/one\/measurement\.json: re-derived/),
      expect.stringMatching(/^ok: .*\/two\/measurement\.json: re-derived/),
    ]);

    // One per-tool figure edited: the line names the tool and the field.
    const two = join(out, 'two', 'measurement.json');
    const record = JSON.parse(await readFile(two, 'utf8')) as { perTool: Array<{ name: string; tokens: number }> };
    const tool = record.perTool[4];
    if (!tool) throw new Error('pages3 has 7 tools');
    tool.tokens += 1;
    await writeFile(two, JSON.stringify(record, null, 2));
    const edited = await cli(['verify', out]);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain(`  perTool[4] "get_issue": tokens: recorded ${tool.tokens}, recomputed ${tool.tokens - 1}\n`);
    const reports = JSON.parse((await cli(['verify', '--json', out])).stdout) as Array<{ ok: boolean }>;
    expect(reports.map((report) => report.ok)).toEqual([true, false]);
  });

  it('fails a timeout record edited to "measured"', async () => {
    const out = join(scratch, 'edited-status');
    const run = await cli(['measure', '--out', out, '--timeout', '800', '--runs', '1', ...markFlags(), ...scripted('hang')]);
    expect(run.code).toBe(3);
    const file = join(out, 'scripted-server', 'measurement.json');
    const record = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(record.status).toBe('timeout');
    expect((await cli(['verify', file])).code).toBe(0);
    await writeFile(file, JSON.stringify({ ...record, status: 'measured' }));
    const edited = await cli(['verify', file]);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain('status measured needs rawToolsCapture');
  });

  it('exits 2 for a folder without measurements', async () => {
    await mkdir(join(scratch, 'empty'), { recursive: true });
    const run = await cli(['verify', join(scratch, 'empty')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no measurement.json under');
  });
});

describe('processes', () => {
  it('leaves none behind', async () => {
    expect(await waitForNoMarkedProcesses()).toEqual([]);
  });
});
