// cost-regression/v1 on a constructed history: each kind of change gives its mechanism, window,
// emphasis and per-tool attribution, and a change across isolations never counts.
import { describe, expect, it } from 'vitest';
import type { HistoryRow, PublishedServer, ResultsState } from '../../../src/results/index.js';
import { costMovements, emptyToolVectors, type CostMovement } from '../../../src/results/history/index.js';
import { Sweeps, failed, measured, tool, words } from './build.js';

const path = { path: { type: 'string' } };
const base = [tool('read_file', 'Read a file.', path), tool('list_dir', 'List a folder.', path)];
const withSearch = [...base, tool('search', `Search files. ${words(60)}`, { query: { type: 'string' }, limit: { type: 'number' } })];
const grown = [base[0]!, tool('list_dir', `List a folder. ${words(50)}`, path)];
const heavy = [tool('read_file', `Read a file. ${words(120)}`, path), base[1]!];
const mixed = [base[0]!, base[1]!, tool('stat', 'Stat.'), tool('touch', 'Touch.')];

/** Five weekly sweeps; every change lands on 2026-08-19 and holds for three sweeps. */
function constructed(): ResultsState {
  const sweeps = new Sweeps();
  const weeks = ['2026-08-05', '2026-08-12', '2026-08-19', '2026-08-26', '2026-09-02'];
  weeks.forEach((date, week) => {
    const changed = week >= 2;
    sweeps
      .record(date, measured('adder', changed ? withSearch : base))
      .record(date, measured('grower', changed ? grown : base))
      .record(date, measured('mixer', changed ? mixed : heavy))
      // The same change as adder's, but measured under docker from then on: a change of harness.
      .record(date, measured('isolated', changed ? withSearch : base, changed ? 'docker' : 'host'));
  });
  return sweeps.state();
}

function movementOf(movements: readonly CostMovement[], server: string): CostMovement {
  const movement = movements.find((candidate) => candidate.server === server);
  if (movement === undefined) throw new Error(`no movement for ${server}`);
  return movement;
}

function attributed(movement: CostMovement): Exclude<CostMovement['attribution'], 'unavailable'> {
  if (movement.attribution === 'unavailable') throw new Error(`attribution expected for ${movement.server}`);
  return movement.attribution;
}

describe('costMovements on a constructed history', () => {
  const movements = costMovements(constructed());

  it('a tool added: more tools, the window of the change, how long it held, attributed to the new tool', () => {
    const movement = movementOf(movements, 'adder');
    const before = measured('adder', base);
    const after = measured('adder', withSearch);
    expect(movement).toMatchObject({
      from: { date: '2026-08-12', canonicalSha256: before.canonicalSha256, tokens: before.totalTokens, tools: 2 },
      to: { date: '2026-08-19', canonicalSha256: after.canonicalSha256, tokens: after.totalTokens, tools: 3 },
      latest: '2026-09-02',
      heldFor: 3,
      delta: after.totalTokens! - before.totalTokens!,
      share: (after.totalTokens! - before.totalTokens!) / before.totalTokens!,
      mechanism: 'more tools',
      emphasised: true,
      isolation: 'host',
      unavailableBecause: null,
    });
    const search = after.perTool![2]!;
    const parts = attributed(movement);
    expect(parts.added).toEqual([
      {
        name: 'search',
        tokensBefore: null,
        tokensAfter: search.tokens,
        delta: search.tokens,
        descriptionDelta: search.descriptionTokens,
        inputSchemaDelta: search.inputSchemaTokens,
        outputSchemaDelta: 0,
        restDelta: search.tokens - search.descriptionTokens - search.inputSchemaTokens,
      },
    ]);
    expect(parts.removed).toEqual([]);
    expect(parts.changed).toEqual([]);
    expect(parts.unattributed).toBe(movement.delta - search.tokens);
  });

  it('a description grown: heavier tools, the grown tool carrying the description delta', () => {
    const movement = movementOf(movements, 'grower');
    expect(movement).toMatchObject({ from: { date: '2026-08-12', tools: 2 }, to: { date: '2026-08-19', tools: 2 }, heldFor: 3, mechanism: 'heavier tools', emphasised: true });
    const parts = attributed(movement);
    expect(parts.added).toEqual([]);
    expect(parts.changed).toHaveLength(1);
    expect(parts.changed[0]).toMatchObject({ name: 'list_dir', delta: movement.delta, inputSchemaDelta: 0 });
    expect(parts.changed[0]!.descriptionDelta).toBeGreaterThan(25);
    expect(parts.unattributed).toBe(0);
  });

  it('a mixed change (count up, cost down): mixed, never guessed, and every part attributed', () => {
    const movement = movementOf(movements, 'mixer');
    expect(movement).toMatchObject({ mechanism: 'mixed', emphasised: true, from: { tools: 2, date: '2026-08-12' }, to: { tools: 4, date: '2026-08-19' } });
    expect(movement.delta).toBeLessThan(0);
    const parts = attributed(movement);
    expect(parts.added.map((part) => part.name)).toEqual(['stat', 'touch']);
    expect(parts.changed.map((part) => part.name)).toEqual(['read_file']);
    expect(parts.changed[0]!.descriptionDelta).toBeLessThan(0);
    const sum = [...parts.added, ...parts.removed, ...parts.changed].reduce((total, part) => total + part.delta, 0);
    expect(sum + parts.unattributed).toBe(movement.delta);
  });

  it('a change under a different isolation does not count', () => {
    expect(movements.map((movement) => movement.server)).not.toContain('isolated');
  });

  it('emphasised first, then the largest movement, then the name', () => {
    expect(movements.map((movement) => movement.server)).toEqual(
      ['adder', 'grower', 'mixer'].sort((a, b) => Math.abs(movementOf(movements, b).delta) - Math.abs(movementOf(movements, a).delta)),
    );
  });
});

/** Rows only: a server with no tool vectors, as a history older than tool-vectors.json. */
function rowsState(server: string, rows: Array<Partial<HistoryRow> & Pick<HistoryRow, 'date'>>): ResultsState {
  const history: HistoryRow[] = rows.map((row, index) => ({
    server,
    status: 'measured',
    tools: 5,
    tokens: 1000,
    canonicalSha256: (index % 16).toString(16).repeat(64),
    isolation: 'host',
    ...row,
  }));
  const published: PublishedServer = { name: server, status: history[history.length - 1]?.status ?? 'not-yet-run', measurement: null, lastMeasured: null, vectors: emptyToolVectors(server) };
  return { servers: [published], history };
}

const sha = (digit: string): string => digit.repeat(64);

describe('which pair is compared', () => {
  it('walks back through identical captures to the change, not the newest pair', () => {
    const [movement] = costMovements(
      rowsState('s', [
        { date: '2026-08-05', tokens: 1000, canonicalSha256: sha('a') },
        { date: '2026-08-12', tokens: 1200, canonicalSha256: sha('b') },
        { date: '2026-08-19', tokens: 1200, canonicalSha256: sha('b') },
        { date: '2026-08-26', tokens: 1200, canonicalSha256: sha('b') },
      ]),
    );
    expect(movement).toMatchObject({ from: { date: '2026-08-05' }, to: { date: '2026-08-12' }, latest: '2026-08-26', heldFor: 3, delta: 200 });
  });

  it('without hashes, the same tokens are the same measurement', () => {
    const [movement] = costMovements(
      rowsState('s', [
        { date: '2026-08-05', tokens: 1000, canonicalSha256: null },
        { date: '2026-08-12', tokens: 900, canonicalSha256: null },
        { date: '2026-08-19', tokens: 900, canonicalSha256: null },
      ]),
    );
    expect(movement).toMatchObject({ from: { date: '2026-08-05', tokens: 1000 }, to: { date: '2026-08-12', tokens: 900 }, heldFor: 2, mechanism: 'lighter tools' });
    expect(movement!.attribution).toBe('unavailable');
    expect(movement!.unavailableBecause).toContain('no hash on record');
  });

  it('a failed sweep is a gap, never a drop to zero: the window spans it', () => {
    const [movement] = costMovements(
      rowsState('s', [
        { date: '2026-08-05', tokens: 1000, canonicalSha256: sha('a') },
        { date: '2026-08-12', status: 'timeout', tools: null, tokens: null, canonicalSha256: null },
        { date: '2026-08-19', tokens: 1100, canonicalSha256: sha('b') },
      ]),
    );
    expect(movement).toMatchObject({ from: { date: '2026-08-05', tokens: 1000 }, to: { date: '2026-08-19', tokens: 1100 }, delta: 100 });
  });

  it('a return to an older capture is a movement of its own', () => {
    const [movement] = costMovements(
      rowsState('s', [
        { date: '2026-08-05', tokens: 1000, canonicalSha256: sha('a') },
        { date: '2026-08-12', tokens: 1300, canonicalSha256: sha('b') },
        { date: '2026-08-19', tokens: 1000, canonicalSha256: sha('a') },
      ]),
    );
    expect(movement).toMatchObject({ from: { date: '2026-08-12' }, to: { date: '2026-08-19' }, delta: -300, heldFor: 1 });
  });

  it('rows whose isolation was not recorded still compare; another known isolation cuts', () => {
    const unknownThenHost = costMovements(
      rowsState('s', [
        { date: '2026-08-05', tokens: 1000, canonicalSha256: sha('a'), isolation: null },
        { date: '2026-08-12', tokens: 1100, canonicalSha256: sha('b'), isolation: 'host' },
      ]),
    );
    expect(unknownThenHost).toHaveLength(1);
    const dockerThenHost = costMovements(
      rowsState('s', [
        { date: '2026-08-05', tokens: 1000, canonicalSha256: sha('a'), isolation: 'docker' },
        { date: '2026-08-12', tokens: 1100, canonicalSha256: sha('b'), isolation: 'host' },
      ]),
    );
    expect(dockerThenHost).toEqual([]);
  });

  it('no movement without at least two distinct comparable captures', () => {
    expect(costMovements(rowsState('s', [{ date: '2026-08-05' }, { date: '2026-08-12', canonicalSha256: sha('0') }]))).toEqual([]);
    expect(costMovements(rowsState('s', [{ date: '2026-08-05', status: 'timeout', tokens: null }]))).toEqual([]);
    expect(costMovements(rowsState('s', []))).toEqual([]);
  });
});

describe('emphasis needs both thresholds', () => {
  const cases: Array<[number, number, boolean]> = [
    [500, 525, true], // exactly 5% and exactly 25 tokens
    [500, 475, true], // a drop is emphasised the same way
    [500, 524, false], // 24 tokens
    [1000, 1049, false], // 4.9%
    [100, 124, false], // 24%, but 24 tokens
    [0, 25, true], // from nothing, 25 tokens
  ];
  it.each(cases)('%i -> %i tokens: emphasised %s', (before, after, emphasised) => {
    const [movement] = costMovements(
      rowsState('s', [
        { date: '2026-08-05', tokens: before, canonicalSha256: sha('a') },
        { date: '2026-08-12', tokens: after, canonicalSha256: sha('b') },
      ]),
    );
    expect(movement?.emphasised).toBe(emphasised);
    expect(movement?.share).toBe(before === 0 ? null : (after - before) / before);
  });
});

describe('mechanism from the totals', () => {
  const cases: Array<[number, number, number, number, string]> = [
    [5, 1000, 6, 1100, 'more tools'],
    [5, 1000, 4, 900, 'fewer tools'],
    [5, 1000, 5, 1100, 'heavier tools'],
    [5, 1000, 5, 900, 'lighter tools'],
    [5, 1000, 6, 900, 'mixed'],
    [5, 1000, 4, 1100, 'mixed'],
    [5, 1000, 6, 1000, 'mixed'],
    [5, 1000, 5, 1000, 'reshaped'],
  ];
  it.each(cases)('%i tools %i tokens -> %i tools %i tokens: %s', (toolsBefore, before, toolsAfter, after, mechanism) => {
    const [movement] = costMovements(
      rowsState('s', [
        { date: '2026-08-05', tools: toolsBefore, tokens: before, canonicalSha256: sha('a') },
        { date: '2026-08-12', tools: toolsAfter, tokens: after, canonicalSha256: sha('b') },
      ]),
    );
    expect(movement?.mechanism).toBe(mechanism);
  });
});

describe('attribution edge cases', () => {
  it('a vector missing for one side: unavailable, naming that capture', () => {
    const state = new Sweeps()
      .record('2026-08-05', measured('s', base), { vectors: false })
      .record('2026-08-12', measured('s', withSearch))
      .state();
    const [movement] = costMovements(state);
    expect(movement?.attribution).toBe('unavailable');
    expect(movement?.unavailableBecause).toBe(`no tool vector for capture ${measured('s', base).canonicalSha256!.slice(0, 12)} (2026-08-05)`);
  });

  it('a tool removed, and a repeated tool name paired by occurrence', () => {
    const twice = [...base, tool('read_file', 'Read again.', path)];
    const state = new Sweeps().record('2026-08-05', measured('s', twice)).record('2026-08-12', measured('s', [base[1]!, base[0]!])).state();
    const parts = attributed(costMovements(state)[0]!);
    expect(parts.removed.map((part) => part.name)).toEqual(['read_file #2']);
    expect(parts.removed[0]!.tokensAfter).toBeNull();
    expect(parts.changed).toEqual([]);
  });
});

describe('failed records', () => {
  it('a server that only ever failed has no movement', () => {
    const state = new Sweeps().record('2026-08-05', failed('s', 'timeout')).record('2026-08-12', failed('s', 'startup-failure')).state();
    expect(costMovements(state)).toEqual([]);
  });
});
