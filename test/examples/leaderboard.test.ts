// The leaderboard committed in docs/leaderboard must be what the code writes: its results folder
// reads back into a state that renders to the same bytes, every record re-derives from its
// capture, and the site holds a page per server.
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyDirectory } from '../../src/measure/index.js';
import { readResultsState, readSweepRecord, resultsFiles, type ResultsState, type SweepRecord } from '../../src/results/index.js';
import { PROJECT_ROOT } from '../support/real-servers.js';

const RESULTS = join(PROJECT_ROOT, 'docs', 'leaderboard', 'results');
const SITE = join(PROJECT_ROOT, 'docs', 'leaderboard', 'site');

describe('docs/leaderboard', () => {
  it('holds results that render back to their own bytes, one entry per registry server', async () => {
    const state = (await readResultsState(RESULTS)) as ResultsState;
    const record = (await readSweepRecord(RESULTS)) as SweepRecord;
    expect(state).not.toBeNull();
    const registry = await readFile(join(PROJECT_ROOT, 'examples', 'registry.yaml'), 'utf8');
    const names = [...registry.matchAll(/^ {2}- name: (\S+)$/gm)].map((match) => match[1]);
    expect(state.servers.map((server) => server.name)).toEqual(names);
    for (const [path, text] of resultsFiles(state, record)) expect(await readFile(join(RESULTS, path), 'utf8'), path).toBe(text);
    expect(state.servers.filter((server) => server.status === 'measured').length).toBeGreaterThanOrEqual(25);
  });

  it('holds records that re-derive from their captures', async () => {
    const reports = await verifyDirectory(RESULTS);
    const measured = reports.filter((report) => report.status === 'measured');
    expect(measured.length).toBeGreaterThanOrEqual(25);
    // argocd writes ARGOCD_BASE_URL's value (a fake URL from the registry) into its catalog, so the
    // record holds that capture redacted and says it cannot be re-derived; every other one re-derives.
    const notRederived = measured.filter((report) => !report.ok);
    expect(notRederived.map((report) => report.name)).toEqual(['argocd']);
    expect(notRederived.map((report) => [report.rederivable, report.differences])).toEqual([[false, []]]);
  });

  it('holds the site built from them, a page per server', async () => {
    expect((await stat(join(SITE, 'index.html'))).isFile()).toBe(true);
    const state = (await readResultsState(RESULTS)) as ResultsState;
    expect((await readdir(join(SITE, 'servers'))).length).toBe(state.servers.length);
  });
});
