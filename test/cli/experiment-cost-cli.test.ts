// `mcpctx experiment --max-usd` and `--resume` as a user runs them, offline (the scripted demo
// priced by its config's prices:).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../support/cli-run.js';
import { copyDemo, type DemoCopy } from '../support/experiment-demo.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpctx-experiment-cost-cli-'));
const copies: DemoCopy[] = [];
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const copy of copies) rmSync(copy.dir, { recursive: true, force: true });
});

describe('mcpctx experiment: spend, --max-usd, --resume', () => {
  it('explains the new flags in --help', async () => {
    const help = await runCliCaptured(['experiment', '--help']);
    expect(help.stdout).toContain('--max-usd <usd>');
    expect(help.stdout).toContain('--resume <dir>');
    expect(help.stdout).toMatch(/never\s+\$0/);
  });

  it('prints the spend with --json, within --max-usd, when the config prices the model', async () => {
    const copy = copyDemo({ config: (config) => (config.prices = [{ provider: 'scripted', model: 'scripted-demo', inputPerMTok: 1, outputPerMTok: 2, cacheReadPerMTok: 0.1, cacheWritePerMTok: 1.25, readOn: '2026-12-05', source: 'a test price' }]) });
    copies.push(copy);
    const run = await runCliCaptured(['experiment', '--config', copy.config, '--out', join(dir, 'priced'), '--max-usd', '5', '--json']);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as { cost: { price: { from: string; source: string }; maxUsd: number; totalUsd: number | null } };
    expect(summary.cost).toMatchObject({ price: { from: 'config', source: 'a test price' }, maxUsd: 5 });
    expect(summary.cost.totalUsd).toBeGreaterThan(0);
    expect((await runCliCaptured(['experiment', 'verify', join(dir, 'priced', 'receipt.json')])).code).toBe(0);
  }, 120_000);

  it('refuses --max-usd without a price (exit 2) and a budget that is not a positive number; --resume into its own folder is refused', async () => {
    const unpriced = await runCliCaptured(['experiment', '--provider', 'scripted', '--out', join(dir, 'unpriced'), '--max-usd', '1']);
    expect(unpriced.code).toBe(2);
    expect(unpriced.stdout).toContain('--max-usd needs the price of scripted "scripted-demo"');
    const bad = await runCliCaptured(['experiment', '--provider', 'scripted', '--out', join(dir, 'bad'), '--max-usd', '-3']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected a positive number of US dollars');
    const same = await runCliCaptured(['experiment', '--provider', 'scripted', '--out', join(dir, 'unpriced'), '--resume', join(dir, 'unpriced')]);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('--out must be another folder');
  }, 60_000);
});
