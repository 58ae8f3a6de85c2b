// The state layer of results/: applying a sweep, the files it writes, reading them back, replacing
// a folder without losing anything, and merging shards into exactly what one run writes.
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Measurement } from '../../src/measure/index.js';
import { readResultsState, readSweepRecord, resultsFiles, type ResultsState, type SweepRecord } from '../../src/results/index.js';
import { EMPTY_RESULTS, applySweep } from '../../src/results/_state.js';
import { SWEEP_METHOD, replaceResults } from '../../src/results/_store.js';
import { mergeShards } from '../../src/results/_merge.js';
import { failed, measured, tool, words } from './history/build.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpctx-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];

function catalogOf(name: string, extra = 0): Measurement {
  const specs = [tool(`${name}_get`, `Gets a ${name}. ${words(10 + extra)}`), tool(`${name}_list`, `Lists ${name}s.`)];
  return measured(name, specs);
}

/** Two earlier sweeps: every server measured, then some grew, one failed. */
function previousState(): ResultsState {
  const first = applySweep(EMPTY_RESULTS, NAMES, new Map(NAMES.map((name) => [name, catalogOf(name)])), '2026-11-16');
  const second = new Map<string, Measurement>([
    ['alpha', catalogOf('alpha', 40)],
    ['gamma', failed('gamma', 'timeout')],
  ]);
  return applySweep(first, NAMES, second, '2026-11-23');
}

function recordFor(state: ResultsState, date: string, swept: ReadonlySet<string>): SweepRecord {
  return {
    method: SWEEP_METHOD,
    date,
    servers: state.servers.map((server) => ({ name: server.name, status: server.status, swept: swept.has(server.name), note: swept.has(server.name) ? 'swept' : 'kept its last record' })),
  };
}

async function filesIn(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name).slice(root.length + 1);
    files.set(path, await readFile(join(root, path), 'utf8'));
  }
  return files;
}

describe('applySweep', () => {
  it('replaces swept records, keeps the others, and lists never-swept servers as not-yet-run', () => {
    const previous = previousState();
    const next = applySweep(previous, [...NAMES, 'eta'], new Map([['beta', catalogOf('beta', 5)]]), '2026-11-30');
    expect(next.servers.map((server) => server.name)).toEqual([...NAMES, 'eta']);
    const beta = next.servers.find((server) => server.name === 'beta');
    expect(beta?.lastMeasured).toBe('2026-11-30');
    expect(beta?.vectors.vectors).toHaveLength(2);
    expect(next.servers.find((server) => server.name === 'alpha')).toEqual(previous.servers.find((server) => server.name === 'alpha'));
    expect(next.servers.find((server) => server.name === 'eta')?.status).toBe('not-yet-run');
    expect(next.history.filter((row) => row.date === '2026-11-30').map((row) => row.server)).toEqual(['beta']);
  });

  it('keeps the history of a server that left the list and refuses a record for an unlisted name', () => {
    const next = applySweep(previousState(), ['alpha'], new Map(), '2026-11-30');
    expect(next.servers.map((server) => server.name)).toEqual(['alpha']);
    expect(next.history.some((row) => row.server === 'zeta')).toBe(true);
    expect(() => applySweep(EMPTY_RESULTS, ['alpha'], new Map([['beta', catalogOf('beta')]]), '2026-11-30')).toThrow(/does not list/);
    expect(() => applySweep(EMPTY_RESULTS, ['alpha'], new Map([['alpha', catalogOf('beta')]]), '2026-11-30')).toThrow(/is of "beta"/);
  });
});

describe('results files on disk', () => {
  it('reads back the state it wrote, so writing it again gives the same bytes', async () => {
    const state = previousState();
    const files = resultsFiles(state, recordFor(state, '2026-11-23', new Set(NAMES)));
    await replaceResults(dir, files);
    expect(await filesIn(dir)).toEqual(files);
    const read = await readResultsState(dir);
    const record = await readSweepRecord(dir);
    expect(read).not.toBeNull();
    expect(resultsFiles(read as ResultsState, record as SweepRecord)).toEqual(files);
    expect([...files.keys()]).toEqual(expect.arrayContaining(['alpha/measurement.json', 'alpha/tool-vectors.json', 'badges/alpha.svg', 'history.csv', 'leaderboard.md', 'leaderboard.json', 'regressions.md', 'regressions.json', 'capture-index.json', 'tool-shape.json', 'sweep.json']));
  });

  it('says there is no previous data for a missing or empty folder, and refuses a leaderboard without its sweep record', async () => {
    expect(await readResultsState(join(dir, 'absent'))).toBeNull();
    expect(await readResultsState(dir)).toBeNull();
    await writeFile(join(dir, 'leaderboard.json'), '{}');
    await expect(readResultsState(dir)).rejects.toMatchObject({ code: 'INVALID_RESULTS' });
  });

  it('refuses a record that disagrees with the sweep record', async () => {
    const state = previousState();
    await replaceResults(dir, resultsFiles(state, recordFor(state, '2026-11-23', new Set(NAMES))));
    const file = join(dir, 'alpha', 'measurement.json');
    await writeFile(file, (await readFile(file, 'utf8')).replace('"name": "alpha"', '"name": "beta"'));
    await expect(readResultsState(dir)).rejects.toThrow(/record of "beta", not "alpha"/);
  });

  it('refuses a record nested past the bound, which writing it again would overflow the stack on', async () => {
    const state = previousState();
    await replaceResults(dir, resultsFiles(state, recordFor(state, '2026-11-23', new Set(NAMES))));
    const file = join(dir, 'alpha', 'measurement.json');
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    await writeFile(file, (await readFile(file, 'utf8')).replace('"serverInfo": null', `"serverInfo": ${deep}`));
    await expect(readResultsState(dir)).rejects.toMatchObject({ code: 'INVALID_RESULTS', message: expect.stringMatching(/nests deeper than 512 levels/) });
  });

  it('removes files of servers no longer listed, and never touches files it does not own', async () => {
    const state = previousState();
    await replaceResults(dir, resultsFiles(state, recordFor(state, '2026-11-23', new Set(NAMES))));
    await writeFile(join(dir, 'README.md'), 'my notes');
    await writeFile(join(dir, 'zeta', 'keep.txt'), 'mine');
    const smaller = applySweep(state, ['alpha', 'beta'], new Map(), '2026-11-30');
    await replaceResults(dir, resultsFiles(smaller, recordFor(smaller, '2026-11-30', new Set())));
    const after = await filesIn(dir);
    expect(after.get('README.md')).toBe('my notes');
    expect(after.get('zeta/keep.txt')).toBe('mine');
    expect([...after.keys()].filter((path) => path.startsWith('gamma') || path === 'badges/gamma.svg')).toEqual([]);
    expect(after.has('zeta/measurement.json')).toBe(false);
  });

  it('puts every previous file back byte for byte when a write fails midway', async () => {
    const state = previousState();
    await replaceResults(dir, resultsFiles(state, recordFor(state, '2026-11-23', new Set(NAMES))));
    const before = await filesIn(dir);
    const next = applySweep(state, [...NAMES, 'eta'], new Map(NAMES.map((name) => [name, catalogOf(name, 99)])), '2026-11-30');
    const files = resultsFiles(next, recordFor(next, '2026-11-30', new Set(NAMES)));
    // A folder where the last file must go: every write before it succeeds, then the rename fails.
    const last = [...files.keys()].at(-1) as string;
    await mkdir(join(dir, last, 'blocker'), { recursive: true });
    await expect(replaceResults(dir, files)).rejects.toThrow();
    const after = await filesIn(dir);
    after.delete(join(last, 'blocker'));
    expect(after).toEqual(before);
  });
});

describe('mergeShards', () => {
  it('writes what one unsharded sweep writes, byte for byte', async () => {
    const previous = previousState();
    const fresh = new Map(NAMES.map((name, index) => [name, index % 2 === 0 ? catalogOf(name, index * 3) : failed(name, 'startup-failure')]));
    const date = '2026-11-30';
    const whole = applySweep(previous, NAMES, fresh, date);
    const expected = resultsFiles(whole, recordFor(whole, date, new Set(NAMES)));

    const slices = [NAMES.slice(0, 2), NAMES.slice(2, 5), NAMES.slice(5)];
    const shardDirs: string[] = [];
    for (const [index, slice] of slices.entries()) {
      const shard = applySweep(previous, NAMES, new Map(slice.map((name) => [name, fresh.get(name) as Measurement])), date);
      const shardDir = join(dir, `shard-${index + 1}`);
      await replaceResults(shardDir, resultsFiles(shard, recordFor(shard, date, new Set(slice))));
      shardDirs.push(shardDir);
    }
    const merged = await mergeShards(shardDirs);
    expect(resultsFiles(merged.state, merged.sweep)).toEqual(expected);
  });

  it('refuses shards of different dates and two shards sweeping one server', async () => {
    const previous = previousState();
    const write = async (name: string, date: string, swept: string[]): Promise<string> => {
      const shard = applySweep(previous, NAMES, new Map(swept.map((server) => [server, catalogOf(server, 1)])), date);
      await replaceResults(join(dir, name), resultsFiles(shard, recordFor(shard, date, new Set(swept))));
      return join(dir, name);
    };
    const a = await write('a', '2026-11-30', ['alpha']);
    const b = await write('b', '2026-12-01', ['beta']);
    const c = await write('c', '2026-11-30', ['alpha']);
    await expect(mergeShards([a, b])).rejects.toThrow(/share its date/);
    await expect(mergeShards([a, c])).rejects.toThrow(/swept by two shards/);
    await expect(mergeShards([join(dir, 'none')])).rejects.toThrow(/no sweep results/);
  });
});
