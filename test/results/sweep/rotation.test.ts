// The weekly rotation (issue 35, rule 5): one slice of the list a week, derived from the date
// alone, plus the reference server every week; a rotation slice merges like any partial sweep.
// The measurement is stubbed (no server starts): what is checked is what the sweep selects and writes.
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MeasureOptions, Measurement, ServerEntry } from '../../../src/measure/index.js';
import { buildSite } from '../../../src/results/site/index.js';
import { mergeSweep, planSweep, sweep } from '../../../src/results/sweep/index.js';
import { record } from '../leaderboard/_state.js';
import { writeServersFile } from './_fixture.js';

const entry = (name: string): ServerEntry => ({ name, launch: { command: 'node', args: [`${name}.js`] } });
const NAMES = ['server-everything', ...Array.from({ length: 40 }, (_, index) => `server-${index}`)];
const swept = (plan: ReturnType<typeof planSweep>): string[] => plan.entries.filter((planned) => planned.swept).map((planned) => planned.entry.name);
// Mondays of ISO weeks 49, 50 and 51 of 2026, and the Monday of week 52.
const WEEKS = ['2026-11-30', '2026-12-07', '2026-12-14'];

describe('the rotation slice of a date', () => {
  const entries = NAMES.map(entry);
  const plan = (date: string, list = entries) => planSweep(list, { date, rotationWeeks: 3, always: ['server-everything'] });
  const others = (names: string[]) => names.filter((name) => name !== 'server-everything');

  it('puts every server but the reference in exactly one of the three weekly slices', () => {
    const slices = WEEKS.map((date) => others(swept(plan(date))));
    expect(slices.flat().sort()).toEqual(others(NAMES).sort());
    expect(new Set(slices.flat()).size).toBe(slices.flat().length);
    for (const slice of slices) expect(slice.length).toBeGreaterThan(0);
  });

  it('is the same for the same date and for every day of its ISO week, and comes round again three weeks on', () => {
    expect(swept(plan('2026-12-07'))).toEqual(swept(plan('2026-12-07')));
    expect(swept(plan('2026-12-13'))).toEqual(swept(plan('2026-12-07'))); // the Sunday of the same week
    expect(swept(plan('2026-12-28'))).toEqual(swept(plan('2026-12-07'))); // week 53 = 50 + 3
  });

  it('moves no existing server when the registry gains entries, wherever they are added', () => {
    const grown = [entry('new-first'), ...entries.slice(0, 10), entry('new-middle'), ...entries.slice(10), entry('new-last')];
    for (const date of WEEKS) {
      const after = swept(plan(date, grown)).filter((name) => !name.startsWith('new-'));
      expect(after).toEqual(swept(plan(date)));
    }
  });

  it('always includes the reference server, also under a shard of the slice (in exactly one shard)', () => {
    for (const date of [...WEEKS, '2027-01-04']) {
      expect(swept(plan(date))).toContain('server-everything');
      const inShards = [1, 2].filter((index) => swept(planSweep(entries, { date, rotationWeeks: 3, always: ['server-everything'], shard: { index, count: 2 } })).includes('server-everything'));
      expect(inShards).toHaveLength(1);
    }
    expect(plan(WEEKS[0] as string).rotation).toEqual({ weeks: 3, isoWeek: 49, group: 1, always: ['server-everything'] });
  });

  it('refuses an --always name the file lacks, and --always without --rotation', () => {
    expect(() => planSweep(entries, { date: '2026-12-07', rotationWeeks: 3, always: ['nope'] })).toThrow(/--always names "nope", not in the servers file/);
    expect(() => planSweep(entries, { date: '2026-12-07', always: ['server-everything'] })).toThrow(/give --rotation WEEKS/);
  });
});

describe('a rotation sweep', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpctx-sweep-rotation-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const names = ['server-everything', 'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'];
  const at = (date: string) => () => new Date(`${date}T04:17:00Z`);
  const stub = (tokens: number) => async (options: MeasureOptions): Promise<Measurement> => record(options.name, { tokens, isolation: options.isolationKind });

  it('re-measures the slice and the reference server, and keeps every other record byte for byte', async () => {
    const file = await writeServersFile(dir, names.map((name) => ({ name })));
    const out = join(dir, 'results');
    await sweep({ serversFile: file, outDir: out, now: at('2026-11-23'), measure: stub(100) });
    const before = new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(out, name, 'measurement.json'), 'utf8')] as const)));

    const report = await sweep({ serversFile: file, outDir: out, now: at('2026-12-07'), rotationWeeks: 3, always: ['server-everything'], measure: stub(200) });
    const slice = planSweep(names.map(entry), { date: '2026-12-07', rotationWeeks: 3, always: ['server-everything'] });
    expect(report.servers.filter((server) => server.swept).map((server) => server.name)).toEqual(swept(slice));
    expect(swept(slice)).toContain('server-everything');
    for (const server of report.servers) {
      const now = await readFile(join(out, server.name, 'measurement.json'), 'utf8');
      if (server.swept) expect(JSON.parse(now).totalTokens).toBe(200);
      else expect(now).toBe(before.get(server.name));
    }
    const record = JSON.parse(await readFile(join(out, 'sweep.json'), 'utf8'));
    expect(record.rotation).toEqual({ weeks: 3, isoWeek: 50, group: 2, always: ['server-everything'] });

    // The site's header says it was a rotation slice, and of how many.
    await buildSite({ resultsDir: out, outDir: join(dir, 'site') });
    const index = await readFile(join(dir, 'site', 'index.html'), 'utf8');
    expect(index).toContain(`rotation slice 3 of 3, ISO week 50, plus server-everything every week: ${swept(slice).length} of ${names.length} servers`);
    const methodology = await readFile(join(dir, 'site', 'methodology.html'), 'utf8');
    expect(methodology).toContain("network bridge (the package registry, not the host's loopback), 2g of memory without swap, 2 cores, at most 512 processes");
  });

  it('merges its shards into what one rotation sweep writes, and refuses shards of another rotation', async () => {
    const file = await writeServersFile(dir, names.map((name) => ({ name })));
    const previous = join(dir, 'previous');
    await sweep({ serversFile: file, outDir: previous, now: at('2026-11-23'), measure: stub(100) });
    const options = { serversFile: file, now: at('2026-12-07'), rotationWeeks: 3, always: ['server-everything'], measure: stub(200) };
    for (const folder of ['whole', 'shard-1', 'shard-2', 'other']) await cp(previous, join(dir, folder), { recursive: true });
    await sweep({ ...options, outDir: join(dir, 'whole') });
    await sweep({ ...options, outDir: join(dir, 'shard-1'), shard: { index: 1, count: 2 } });
    await sweep({ ...options, outDir: join(dir, 'shard-2'), shard: { index: 2, count: 2 } });
    const merged = await mergeSweep({ shardDirs: [join(dir, 'shard-1'), join(dir, 'shard-2')], outDir: join(dir, 'merged') });
    expect(merged.written).toBe(true);
    for (const file of ['sweep.json', 'leaderboard.json', 'history.csv']) {
      expect(await readFile(join(dir, 'merged', file), 'utf8')).toBe(await readFile(join(dir, 'whole', file), 'utf8'));
    }
    await sweep({ ...options, always: [], outDir: join(dir, 'other'), shard: { index: 2, count: 2 } });
    await expect(mergeSweep({ shardDirs: [join(dir, 'shard-1'), join(dir, 'other')], outDir: join(dir, 'refused') })).rejects.toThrow(/different --rotation or --always/);
  });

  it('records the container of a docker sweep in each record\'s isolation block (docker itself stubbed)', async () => {
    const file = await writeServersFile(dir, [{ name: 'alpha' }]);
    // The sweep only checks that docker is on PATH; the measurement is stubbed, so it never runs.
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'docker'), '#!/bin/sh\nexit 1\n');
    await chmod(join(bin, 'docker'), 0o755);
    const launches: unknown[] = [];
    const measure = async (options: MeasureOptions): Promise<Measurement> => {
      launches.push(options.launch);
      return record(options.name, { isolation: options.isolationKind });
    };
    const report = await sweep({ serversFile: file, outDir: join(dir, 'out'), isolation: 'docker', container: { network: 'none', memory: '1g' }, path: bin, measure });
    const container = { image: 'node:20', network: 'none', memory: '1g', cpus: '2', pids: 512, npmCache: null };
    expect(report.container).toEqual(container);
    expect((launches[0] as { args: string[] }).args.slice(0, 13)).toEqual(['run', '--rm', '-i', '--network', 'none', '--memory', '1g', '--memory-swap', '1g', '--cpus', '2', '--pids-limit', '512']);
    const written = JSON.parse(await readFile(join(dir, 'out', 'alpha', 'measurement.json'), 'utf8'));
    expect(written.isolation).toMatchObject({ kind: 'docker', container });
    await buildSite({ resultsDir: join(dir, 'out'), outDir: join(dir, 'site') });
    expect(await readFile(join(dir, 'site', 'servers', 'alpha.html'), 'utf8')).toContain('docker: image <code>node:20</code>, network none, memory 1g (no swap), 2 cpus, at most 512 processes, no shared npm cache');
    await expect(sweep({ serversFile: file, outDir: join(dir, 'out'), isolation: 'docker', container: { network: 'bridge2' as never }, path: bin, measure })).rejects.toThrow(/--docker-network must be one of bridge, host, none/);
  });
});
