// `npm start` is the README's first command: it must sweep the bundled servers into results/,
// build the site from them and say where to open it. The script's own commands run here, with the
// two output folders moved into a temporary folder.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured, type CliRun } from '../support/cli-run.js';
import { PROJECT_ROOT } from '../support/real-servers.js';

const CLI_PREFIX = 'node dist/cli/main.js ';

describe('npm start', () => {
  let scratch: string;
  let runs: CliRun[];

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'mcpctx-start-'));
    const manifest = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const steps = (manifest.scripts.start ?? '').split('&&').map((step) => step.trim());
    runs = [];
    for (const step of steps) {
      expect(step.startsWith(CLI_PREFIX), `a step of npm start is not an mcpctx command: ${step}`).toBe(true);
      const args = step
        .slice(CLI_PREFIX.length)
        .split(/\s+/)
        // The first word is the command (`site` is one); the folders come after it.
        .map((arg, index) => (index > 0 && (arg === 'results' || arg === 'site') ? join(scratch, arg) : arg));
      runs.push(await runCliCaptured(args, PROJECT_ROOT));
    }
  }, 240_000);

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('sweeps every bundled server into results/, each with a number', async () => {
    expect(runs[0]?.code).toBe(0);
    const leaderboard = JSON.parse(await readFile(join(scratch, 'results', 'leaderboard.json'), 'utf8')) as { rows: Array<{ server: string; status: string; tokens: number | null }> };
    const bundled = (await readFile(join(PROJECT_ROOT, 'examples', 'servers.yaml'), 'utf8')).match(/^- name: (.+)$/gm)?.map((line) => line.slice('- name: '.length)) ?? [];
    expect(bundled.length).toBeGreaterThanOrEqual(5);
    expect(leaderboard.rows.map((row) => row.server).sort()).toEqual([...bundled].sort());
    for (const row of leaderboard.rows) expect(row, row.server).toMatchObject({ status: 'measured', tokens: expect.any(Number) });
  });

  it('builds the site from them and prints where to open it', async () => {
    expect(runs).toHaveLength(2);
    expect(runs[1]?.stderr).toBe('');
    expect(runs[1]?.code).toBe(0);
    expect(runs[1]?.stdout).toContain(`file://${join(scratch, 'site', 'index.html')}`);
    expect((await stat(join(scratch, 'site', 'index.html'))).isFile()).toBe(true);
  });
});
