import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../support/cli-run.js';
import { writeResultsFixture } from '../results/site/fixture.js';

let work: string;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'mcpctx-site-cli-'));
  await writeResultsFixture(join(work, 'results'));
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('mcpctx site', () => {
  it('builds the site and says where to open it', async () => {
    const run = await runCliCaptured(['site', 'results', '--out', 'site'], work);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`wrote 10 pages and 6 badges to ${join(work, 'site')}\n`);
    expect(run.stdout).toContain('no badge in the results for: delta\n');
    expect(run.stdout).toContain(`open file://${join(work, 'site', 'index.html')}\n`);
  });

  it('--json prints the report', async () => {
    const run = await runCliCaptured(['site', 'results', '--out', 'site', '--json'], work);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { indexPath: string; pages: string[]; badgesMissing: string[] };
    expect(report.indexPath).toBe(join(work, 'site', 'index.html'));
    expect(report.pages).toContain('methodology.html');
    expect(report.badgesMissing).toEqual(['delta']);
  });

  it('exits 2 without --out or with a missing results folder, 3 on malformed results', async () => {
    expect((await runCliCaptured(['site', 'results'], work)).code).toBe(2);
    const missing = await runCliCaptured(['site', 'nothing-here', '--out', 'site'], work);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('is not a folder of results');
    await writeFile(join(work, 'results', 'leaderboard.json'), '[]');
    const malformed = await runCliCaptured(['site', 'results', '--out', 'site'], work);
    expect(malformed.code).toBe(3);
    expect(malformed.stderr).toMatch(/leaderboard\.json: the file must be an object/);
  });

  it('--base-url makes the badge snippets absolute; an address that is not http(s) is a usage error', async () => {
    const run = await runCliCaptured(['site', 'results', '--out', 'site', '--base-url', 'https://example.org/board'], work);
    expect(run.code).toBe(0);
    const alpha = await readFile(join(work, 'site', 'servers', 'alpha.html'), 'utf8');
    expect(alpha).toContain('(https://example.org/board/badges/alpha.svg)](https://example.org/board/servers/alpha.html)');
    const bad = await runCliCaptured(['site', 'results', '--out', 'other', '--base-url', 'file:///tmp'], work);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--base-url "file:///tmp" must be an http(s) address');
  });

  it('--help explains the command', async () => {
    const run = await runCliCaptured(['site', '--help'], work);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--out <dir>');
    expect(run.stdout).toContain('file://');
  });
});
