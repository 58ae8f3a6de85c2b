// Acceptance: a broken harness (every server times out) over results with real numbers writes
// nothing: every file stays byte for byte as it was, and the exit code is 1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SweepReport } from '../../../src/results/sweep/index.js';
import { runCliCaptured } from '../../support/cli-run.js';
import { waitForNoMarkedProcesses } from '../../support/processes.js';
import { hashTree, writeServersFile } from './_fixture.js';

const NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];

describe('mcpctx sweep: the harness-fault guard', () => {
  let dir: string;
  let results: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpctx-sweep-guard-'));
    results = join(dir, 'results');
    const healthy = await writeServersFile(dir, NAMES.map((name) => ({ name, mode: name === 'foxtrot' ? 'pages3' : 'normal' })), 'healthy.yaml');
    const first = await runCliCaptured(['sweep', healthy, '--out', results, '--concurrency', '3']);
    expect(first.code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it('trips when every server that had a number times out: nothing written, exit 1, the servers named', async () => {
    const before = await hashTree(results);
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['sweep.json', 'history.csv', 'leaderboard.json', 'alpha/measurement.json', 'badges/alpha.svg']));
    const broken = await writeServersFile(dir, NAMES.map((name) => ({ name, mode: 'hang', timeoutMs: 400 })), 'broken.yaml');
    const run = await runCliCaptured(['sweep', broken, '--out', results, '--concurrency', '6', '--json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as SweepReport;
    expect(report.written).toBe(false);
    expect(report.guard).toMatchObject({ checked: true, tripped: true, regressed: NAMES, couldRegress: NAMES });
    expect(report.servers.every((server) => server.status === 'timeout')).toBe(true);
    expect(await hashTree(results)).toEqual(before);

    const table = await runCliCaptured(['sweep', broken, '--out', results, '--concurrency', '6']);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/harness fault suspected, nothing written: 6 of 6 servers that had a number now fail \(alpha, bravo, charlie, delta, echo, foxtrot\)/);
    expect(await hashTree(results)).toEqual(before);
  }, 120_000);

  it('publishes when fewer than half of the servers that had a number fail', async () => {
    const entries = NAMES.map((name, index) => ({ name, mode: index < 2 ? 'early-exit' : 'normal' }));
    const partly = await writeServersFile(dir, entries, 'partly.yaml');
    const run = await runCliCaptured(['sweep', partly, '--out', results, '--concurrency', '3', '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as SweepReport;
    expect(report.written).toBe(true);
    expect(report.guard).toMatchObject({ checked: true, tripped: false, regressed: ['alpha', 'bravo'] });
  }, 120_000);
});
