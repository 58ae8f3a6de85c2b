import { describe, expect, it } from 'vitest';
import type { ServerEntry } from '../../../src/measure/index.js';
import { isoWeekNumber, parseShard, planSweep, rotationGroup, shardOf } from '../../../src/results/sweep/index.js';

const entry = (name: string): ServerEntry => ({ name, launch: { command: 'node', args: [`${name}.js`] } });
const names = Array.from({ length: 60 }, (_, index) => `server-${index}`);
const entries = names.map(entry);
const swept = (plan: ReturnType<typeof planSweep>): string[] => plan.entries.filter((planned) => planned.swept).map((planned) => planned.entry.name);

describe('planSweep', () => {
  it('splits the list into shards that cover every entry exactly once', () => {
    const shards = [1, 2, 3].map((index) => swept(planSweep(entries, { date: '2026-12-01', shard: { index, count: 3 } })));
    expect(shards.flat().sort()).toEqual([...names].sort());
    for (const shard of shards) expect(shard.length).toBeGreaterThan(5);
  });

  it('keeps an entry in its shard and rotation group whatever the order of the list and whatever is added', () => {
    const before = swept(planSweep(entries, { date: '2026-12-01', shard: { index: 2, count: 3 } }));
    const reordered = [...entries].reverse().concat(['new-a', 'new-b', 'new-c'].map(entry));
    const after = swept(planSweep(reordered, { date: '2026-12-01', shard: { index: 2, count: 3 } }));
    expect(after.filter((name) => !name.startsWith('new-')).sort()).toEqual([...before].sort());
    for (const name of names) expect(rotationGroup(name, 3)).toBe(rotationGroup(name, 3));
  });

  it('measures, with --rotation 3, the third of the list that the ISO week picks, each third once every three weeks', () => {
    // 2026-11-30, 2026-12-07 and 2026-12-14 are Mondays of ISO weeks 49, 50 and 51.
    const weeks = ['2026-11-30', '2026-12-07', '2026-12-14'].map((date) => planSweep(entries, { date, rotationWeeks: 3 }));
    expect(weeks.map((plan) => plan.rotation?.isoWeek)).toEqual([49, 50, 51]);
    expect(weeks.map((plan) => plan.rotation?.group)).toEqual([1, 2, 0]);
    const groups = weeks.map(swept);
    expect(groups.flat().sort()).toEqual([...names].sort());
    // The same week, another day: the same group.
    expect(swept(planSweep(entries, { date: '2026-12-06', rotationWeeks: 3 }))).toEqual(groups[0]);
    const skipped = weeks[0]?.entries.filter((planned) => !planned.swept) ?? [];
    expect(skipped.every((planned) => planned.skippedBy === 'rotation')).toBe(true);
  });

  it('uses independent hashes for shards and rotation, so every shard has work in every week', () => {
    for (const date of ['2026-11-30', '2026-12-07', '2026-12-14']) {
      for (const index of [1, 2, 3]) {
        expect(swept(planSweep(entries, { date, rotationWeeks: 3, shard: { index, count: 3 } })).length).toBeGreaterThan(0);
      }
    }
    expect(names.filter((name) => shardOf(name, 3) - 1 === rotationGroup(name, 3)).length).toBeLessThan(names.length);
  });

  it('combines --only, rotation and shard as an intersection, naming the first reason that applies', () => {
    const plan = planSweep(entries, { date: '2026-12-01', only: ['server-1', 'server-2'] });
    expect(swept(plan)).toEqual(['server-1', 'server-2']);
    expect(plan.entries[0]?.skippedBy).toBe('only');
    const inShard = names.find((name) => shardOf(name, 2) === 1) as string;
    const outShard = names.find((name) => shardOf(name, 2) === 2) as string;
    const both = planSweep(entries, { date: '2026-12-01', only: [inShard, outShard], shard: { index: 1, count: 2 } });
    expect(swept(both)).toEqual([inShard]);
    expect(both.entries.find((planned) => planned.entry.name === outShard)?.skippedBy).toBe('shard');
  });

  it('refuses an unknown --only name, listing the names of the file', () => {
    expect(() => planSweep(entries.slice(0, 2), { date: '2026-12-01', only: ['server-0', 'nope'] })).toThrow(/"nope".*server-0, server-1/);
  });

  it('refuses malformed shards and rotations', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/3', '4/3', '1', 'a/b', '1/0', '-1/3']) expect(() => parseShard(bad)).toThrow(/--shard/);
    expect(() => planSweep(entries, { date: '2026-12-01', rotationWeeks: 0 })).toThrow(/--rotation/);
  });
});

describe('isoWeekNumber', () => {
  it('follows ISO 8601 at year boundaries', () => {
    expect(isoWeekNumber('2026-01-01')).toBe(1); // a Thursday
    expect(isoWeekNumber('2027-01-01')).toBe(53); // a Friday of 2026's week 53
    expect(isoWeekNumber('2024-12-30')).toBe(1); // Monday of 2025's week 1
    expect(isoWeekNumber('2021-01-03')).toBe(53); // Sunday of 2020's week 53
    expect(isoWeekNumber('2026-12-01')).toBe(49);
  });
});
