// Acceptance: three shards of a sweep, merged, write exactly the files one unsharded sweep writes
// (time fields aside), starting from the same previous results.
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweep } from '../../../src/results/sweep/index.js';
import { runCliCaptured } from '../../support/cli-run.js';
import { waitForNoMarkedProcesses } from '../../support/processes.js';
import { normalisedTree, writeServersFile, type FixtureEntry } from './_fixture.js';

const ENTRIES: FixtureEntry[] = [
  { name: 'plain', mode: 'normal' },
  { name: 'paged', mode: 'pages3' },
  { name: 'logs-on-stdout', mode: 'stdout-log' },
  { name: 'older-protocol', mode: 'old-version' },
  { name: 'needs-token', mode: 'auth-missing' },
  { name: 'refuses-version', mode: 'version-refusal' },
  { name: 'crashes', mode: 'early-exit' },
  { name: 'plain-2', mode: 'normal' },
  { name: 'paged-2', mode: 'pages3' },
];

describe('mcpctx sweep merge', () => {
  let dir: string;
  let file: string;
  const day1 = () => new Date('2026-11-24T06:00:00Z');
  const day2 = () => new Date('2026-12-01T06:00:00Z');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpctx-sweep-merge-'));
    file = await writeServersFile(dir, ENTRIES);
    // The previous results: a first sweep a week earlier of part of the list.
    await sweep({ serversFile: file, outDir: join(dir, 'previous'), now: day1, only: ['plain', 'paged', 'needs-token'], concurrency: 3 });
  }, 120_000);

  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the same files from three merged shards as from one unsharded run', async () => {
    await cp(join(dir, 'previous'), join(dir, 'unsharded'), { recursive: true });
    await sweep({ serversFile: file, outDir: join(dir, 'unsharded'), now: day2, concurrency: 3 });
    const swept: string[][] = [];
    for (const index of [1, 2, 3]) {
      const shardDir = join(dir, `shard-${index}`);
      await cp(join(dir, 'previous'), shardDir, { recursive: true });
      const report = await sweep({ serversFile: file, outDir: shardDir, now: day2, shard: { index, count: 3 }, concurrency: 3 });
      swept.push(report.servers.filter((server) => server.swept).map((server) => server.name));
    }
    expect(swept.flat().sort()).toEqual(ENTRIES.map((entry) => entry.name).sort());

    await cp(join(dir, 'previous'), join(dir, 'merged'), { recursive: true });
    const merge = await runCliCaptured(['sweep', 'merge', join(dir, 'shard-1'), join(dir, 'shard-2'), join(dir, 'shard-3'), '--out', join(dir, 'merged')]);
    expect(merge.stderr).toBe('');
    expect(merge.code).toBe(0);
    expect(merge.stdout).toMatch(/^merged 3 shards \(9 servers, sweep of 2026-12-01\): wrote \d+ files/);

    const unsharded = await normalisedTree(join(dir, 'unsharded'));
    const merged = await normalisedTree(join(dir, 'merged'));
    expect(Object.keys(merged).sort()).toEqual(Object.keys(unsharded).sort());
    for (const path of Object.keys(unsharded)) expect({ path, text: merged[path] }).toEqual({ path, text: unsharded[path] });
    const history = await readFile(join(dir, 'merged', 'history.csv'), 'utf8');
    expect(history.split('\n').filter((line) => line.startsWith('2026-11-24'))).toHaveLength(3);
    expect(history.split('\n').filter((line) => line.startsWith('2026-12-01'))).toHaveLength(9);
  }, 240_000);

  it('writes the same files whatever the concurrency', async () => {
    for (const concurrency of [1, 4]) {
      await cp(join(dir, 'previous'), join(dir, `k-${concurrency}`), { recursive: true });
      await sweep({ serversFile: file, outDir: join(dir, `k-${concurrency}`), now: day2, concurrency });
    }
    expect(await normalisedTree(join(dir, 'k-4'))).toEqual(await normalisedTree(join(dir, 'k-1')));
  }, 240_000);
});

describe('mcpctx sweep merge with a shard missing', () => {
  let dir: string;
  let file: string;
  const day = () => new Date('2026-12-01T06:00:00Z');
  // Names that fall in different shards of 3 (shardOf is a stable hash of the name).
  const entries: FixtureEntry[] = ENTRIES.slice(0, 4);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpctx-sweep-merge-missing-'));
    file = await writeServersFile(dir, entries);
    for (const index of [1, 3]) await sweep({ serversFile: file, outDir: join(dir, `shard-${index}`), now: day, shard: { index, count: 3 }, concurrency: 2 });
  }, 120_000);

  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it('each shard records its --shard I/N in sweep.json', async () => {
    const record = JSON.parse(await readFile(join(dir, 'shard-3', 'sweep.json'), 'utf8')) as { shard?: unknown };
    expect(record.shard).toEqual({ index: 3, count: 3 });
  });

  it('without shard 2 of 3: a warning names it, nothing is written, exit 1', async () => {
    const out = join(dir, 'merged-refused');
    const merge = await runCliCaptured(['sweep', 'merge', join(dir, 'shard-1'), join(dir, 'shard-3'), '--out', out]);
    expect(merge.code).toBe(1);
    expect(merge.stderr).toBe('warning: shard 2/3 of the sweep is missing (given: 1/3, 3/3); nothing written. Merge every shard, or pass --partial to write the merge anyway\n');
    expect(merge.stdout).toMatch(/^nothing written; .* is unchanged\n$/);
    expect(await readdir(out).catch(() => [])).toEqual([]);

    const alone = await runCliCaptured(['sweep', 'merge', join(dir, 'shard-1'), '--out', out, '--json']);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('shards 2/3, 3/3 of the sweep are missing (given: 1/3)');
    expect(JSON.parse(alone.stdout)).toMatchObject({ written: false, files: 0, shards: { count: 3, present: ['1/3'], missing: ['2/3', '3/3'] } });
  });

  it('with --partial: the same warning says it merged anyway, the files are written, exit 0; the merged sweep.json names no shard', async () => {
    const out = join(dir, 'merged-partial');
    const merge = await runCliCaptured(['sweep', 'merge', join(dir, 'shard-1'), join(dir, 'shard-3'), '--out', out, '--partial']);
    expect(merge.code).toBe(0);
    expect(merge.stderr).toBe('warning: shard 2/3 of the sweep is missing (given: 1/3, 3/3); merged anyway (--partial): their servers keep the records the shards started from, or not-yet-run\n');
    expect(merge.stdout).toMatch(/^merged 2 shards \(4 servers, sweep of 2026-12-01\): wrote \d+ files/);
    const record = JSON.parse(await readFile(join(out, 'sweep.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(record)).toEqual(['method', 'date', 'servers']);
  });

  it('refuses one shard given twice, and a shard count no sweep writes', async () => {
    const twice = await runCliCaptured(['sweep', 'merge', join(dir, 'shard-1'), join(dir, 'shard-1'), '--out', join(dir, 'merged-twice')]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('are both shard 1/3');

    const forged = join(dir, 'forged');
    await cp(join(dir, 'shard-1'), forged, { recursive: true });
    const record = JSON.parse(await readFile(join(forged, 'sweep.json'), 'utf8')) as { shard: { count: number } };
    record.shard.count = 1_000_000_000;
    await writeFile(join(forged, 'sweep.json'), `${JSON.stringify(record, null, 2)}\n`);
    const refused = await runCliCaptured(['sweep', 'merge', forged, '--out', join(dir, 'merged-forged')]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('shard must be {index, count} with 1 <= index <= count <= 256');
  });
});
