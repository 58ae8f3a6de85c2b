// Two sweeps of one day: history keeps both, the series plots both, and the capture index (and so
// audit --changed) names the capture of the later sweep as current, even when it is an older one.
// Files written before sweeps were numbered (7-column history.csv, vectors without sweeps) still read.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedAgainst } from '../../../src/audit/_changed.js';
import type { Measurement } from '../../../src/measure/index.js';
import { readCaptureIndex, readResultsState, resultsFiles, type ResultsState, type SweepRecord } from '../../../src/results/index.js';
import { EMPTY_RESULTS, applySweep } from '../../../src/results/_state.js';
import { SWEEP_METHOD, replaceResults } from '../../../src/results/_store.js';
import { plottableSeries } from '../../../src/results/_series.js';
import { captureIndex, historyCsv, parseHistoryCsv, parseToolVectors, recordToolVector, toolVectorsJson } from '../../../src/results/history/index.js';
import { measured, tool, words } from './build.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpctx-same-day-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const DAY = '2026-12-02';
const older = measured('memo', [tool('memo_get', 'Gets a memo.')]);
const newer = measured('memo', [tool('memo_get', `Gets a memo. ${words(40)}`)]);

/** Sweeps of `memo` applied in order, each as a sweep run would: `[date, record]`. */
function sweeps(...runs: Array<[string, Measurement]>): ResultsState {
  return runs.reduce((state, [date, record]) => applySweep(state, ['memo'], new Map([['memo', record]]), date), EMPTY_RESULTS);
}

function record(state: ResultsState, date: string): SweepRecord {
  return { method: SWEEP_METHOD, date, servers: state.servers.map((server) => ({ name: server.name, status: server.status, swept: true, note: '' })) };
}

describe('two sweeps on one day', () => {
  it('returning to an older capture: the index calls it current and audit --changed says current', async () => {
    const state = sweeps(['2026-12-01', older], [DAY, newer], [DAY, older]);
    await replaceResults(dir, resultsFiles(state, record(state, DAY)));
    const index = await readCaptureIndex(dir);
    expect(index.current.memo).toBe(older.canonicalSha256);
    expect(index.captures[older.canonicalSha256!]?.current).toBe(true);
    expect(index.captures[newer.canonicalSha256!]?.current).toBe(false);
    const rows = await changedAgainst([{ name: 'memo', canonicalSha256: older.canonicalSha256!, tokens: older.totalTokens! }], index, dir);
    expect(rows[0]?.change.state).toBe('current');
  });

  it('both rows stay in history.csv and in the series, in sweep order', async () => {
    const state = sweeps(['2026-12-01', older], [DAY, older], [DAY, newer]);
    await replaceResults(dir, resultsFiles(state, record(state, DAY)));
    const read = (await readResultsState(dir)) as ResultsState;
    expect(read.history.map((row) => [row.date, row.sweep, row.tokens])).toEqual([
      ['2026-12-01', 1, older.totalTokens],
      [DAY, 2, older.totalTokens],
      [DAY, 3, newer.totalTokens],
    ]);
    expect(plottableSeries(read.history, 'memo').points.map((row) => row.tokens)).toEqual([older.totalTokens, older.totalTokens, newer.totalTokens]);
  });

  it('the series orders two rows of one day by sweep, whatever their order in the list', () => {
    const rows = sweeps([DAY, newer], [DAY, older]).history;
    expect(plottableSeries([...rows].reverse(), 'memo').points.map((row) => row.sweep)).toEqual([1, 2]);
  });

  it('a capture seen again in a later sweep moves to "last seen in sweep N" and keeps its place', () => {
    const vectors = sweeps([DAY, older], [DAY, newer], [DAY, older]).servers[0]!.vectors.vectors;
    expect(vectors.map((vector) => [vector.canonicalSha256, vector.firstSweep, vector.lastSweep])).toEqual([
      [older.canonicalSha256, 1, 3],
      [newer.canonicalSha256, 2, 2],
    ]);
  });
});

describe('files written before sweeps were numbered', () => {
  const OLD_HEADER = 'date,server,status,tools,tokens,canonical_sha256,isolation';

  it('a 7-column history.csv reads, its sweeps unknown, and is rewritten with the sweep column', () => {
    const text = `${OLD_HEADER}\n2026-11-30,memo,measured,1,40,${older.canonicalSha256},host\n2026-11-30,other,timeout,,,,not-recorded\n`;
    const rows = parseHistoryCsv(text, 'history.csv');
    expect(rows.map((row) => [row.date, row.sweep, row.server, row.tokens])).toEqual([
      ['2026-11-30', undefined, 'memo', 40],
      ['2026-11-30', undefined, 'other', null],
    ]);
    expect(historyCsv(rows)).toBe(
      `date,sweep,server,status,tools,tokens,canonical_sha256,isolation\n2026-11-30,,memo,measured,1,40,${older.canonicalSha256},host\n2026-11-30,,other,timeout,,,,not-recorded\n`,
    );
  });

  it('a sweep after old rows numbers itself 1, and its row of the same day comes after them', () => {
    const old = parseHistoryCsv(`${OLD_HEADER}\n${DAY},memo,measured,1,40,${older.canonicalSha256},host\n`, 'history.csv');
    const state = applySweep({ servers: [], history: old }, ['memo'], new Map([['memo', newer]]), DAY);
    expect(state.history.map((row) => [row.sweep, row.tokens])).toEqual([
      [undefined, 40],
      [1, newer.totalTokens],
    ]);
    expect(plottableSeries(state.history, 'memo').points.map((row) => row.tokens)).toEqual([40, newer.totalTokens]);
  });

  it('old tool vectors read; a capture of theirs seen again gains a last sweep and becomes current', () => {
    const written = JSON.parse(toolVectorsJson(recordToolVector({ method: 'tool-vectors/v1', server: 'memo', vectors: [] }, older, DAY))) as {
      vectors: Array<Record<string, unknown> & { tools: Array<Record<string, unknown>> }>;
    };
    // As the file was before: no sweeps, no launch, no output schema field.
    for (const vector of written.vectors) {
      delete vector.measuredWith;
      for (const item of vector.tools) delete item.outputSchemaTokens;
    }
    const old = parseToolVectors(JSON.stringify(written), 'tool-vectors.json');
    expect(old.vectors[0]).not.toHaveProperty('lastSweep');
    expect(old.vectors[0]?.tools[0]).not.toHaveProperty('outputSchemaTokens');
    let vectors = recordToolVector(old, newer, DAY, 1);
    vectors = recordToolVector(vectors, older, DAY, 2);
    expect(vectors.vectors.map((vector) => [vector.firstSweep, vector.lastSweep])).toEqual([
      [undefined, 2],
      [1, 1],
    ]);
    const state: ResultsState = { servers: [{ name: 'memo', status: 'measured', measurement: older, lastMeasured: DAY, vectors }], history: [] };
    expect(captureIndex(state).current.memo).toBe(older.canonicalSha256);
    expect(parseToolVectors(toolVectorsJson(vectors), 'tool-vectors.json')).toEqual(vectors);
  });
});

