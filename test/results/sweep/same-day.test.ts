// Two sweeps of one results folder on the same day (the measurement stubbed, the sweep real): both
// stay in history.csv, each numbered, and the capture index follows the later sweep even when it
// returned to an older capture, so audit --changed calls the published bytes current.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedAgainst } from '../../../src/audit/_changed.js';
import type { Measurement } from '../../../src/measure/index.js';
import { readCaptureIndex, readResultsState, sweep, type ResultsState } from '../../../src/results/index.js';
import { measured, tool, words } from '../history/build.js';
import { writeServersFile } from './_fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpctx-sweep-same-day-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const small = measured('memo', [tool('memo_get', 'Gets a memo.')]);
const large = measured('memo', [tool('memo_get', `Gets a memo. ${words(60)}`)]);

describe('sweeps on one day', () => {
  it('keep every sweep in history.csv and name the later sweep\'s capture current', async () => {
    const servers = await writeServersFile(dir, [{ name: 'memo' }]);
    const out = join(dir, 'results');
    const run = async (hour: number, record: Measurement): Promise<void> => {
      await sweep({ serversFile: servers, outDir: out, now: () => new Date(Date.UTC(2026, 11, 2, hour)), measure: async () => structuredClone(record) });
    };
    await run(8, small);
    await run(12, large);
    await run(16, small);
    const history = await readFile(join(out, 'history.csv'), 'utf8');
    expect(history.split('\n').filter((line) => line !== '').map((line) => line.split(',').slice(0, 5).join(','))).toEqual([
      'date,sweep,server,status,tools',
      '2026-12-02,1,memo,measured,1',
      '2026-12-02,2,memo,measured,1',
      '2026-12-02,3,memo,measured,1',
    ]);
    const state = (await readResultsState(out)) as ResultsState;
    expect(state.history.map((row) => row.tokens)).toEqual([small.totalTokens, large.totalTokens, small.totalTokens]);
    const index = await readCaptureIndex(out);
    expect(index.current.memo).toBe(small.canonicalSha256);
    const [row] = await changedAgainst([{ name: 'memo', canonicalSha256: small.canonicalSha256!, tokens: small.totalTokens! }], index, out);
    expect(row?.change.state).toBe('current');
    const regressions = await readFile(join(out, 'regressions.md'), 'utf8');
    expect(regressions).toMatch(/\| \*\*memo\*\* \| 2026-12-02 → 2026-12-02 \| \d+ → \d+ \| \*\*-\d+/);
  });
});
