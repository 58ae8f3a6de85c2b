// Acceptance: one sweep over the pinned reference servers and scripted failure servers ends every
// entry in exactly one status, each failure status where expected, with the retry notes.
import { STATUS_MEANINGS } from '../../../src/results/_model.js';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResultsState } from '../../../src/results/index.js';
import { buildSite } from '../../../src/results/site/index.js';
import type { SweepReport } from '../../../src/results/sweep/index.js';
import { runCliCaptured } from '../../support/cli-run.js';
import { startRawServer, startStreamableToolsServer, type LoopbackServer } from '../../support/remote-servers.js';
import { waitForNoMarkedProcesses } from '../../support/processes.js';
import { PROJECT_ROOT } from '../../support/real-servers.js';
import { writeServersFile, type FixtureEntry } from './_fixture.js';

const reference = (name: string, args: string[] = []): Pick<FixtureEntry, 'command' | 'args'> => ({
  command: process.execPath,
  args: [`${PROJECT_ROOT}node_modules/@modelcontextprotocol/server-${name}/dist/index.js`, ...args],
});

describe('mcpctx sweep: every status', () => {
  let dir: string;
  let report: SweepReport;
  let code: number;
  let remote: LoopbackServer;
  let walled: LoopbackServer;
  let elsewhere: LoopbackServer;
  let redirecting: LoopbackServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpctx-sweep-statuses-'));
    remote = await startStreamableToolsServer();
    walled = await startRawServer((_request, response) => {
      response.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp", error="invalid_token"', 'content-type': 'application/json' });
      response.end('{"error":"unauthorized"}');
    });
    elsewhere = await startRawServer((_request, response) => void response.writeHead(500).end());
    redirecting = await startRawServer((_request, response) => void response.writeHead(307, { location: elsewhere.url }).end());
    const entries: FixtureEntry[] = [
      { name: 'server-everything', ...reference('everything') },
      { name: 'server-filesystem', ...reference('filesystem', [dir]) },
      { name: 'server-memory', ...reference('memory'), env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
      { name: 'server-sequential-thinking', ...reference('sequential-thinking') },
      { name: 'changing', mode: 'dynamic', runs: 2 },
      { name: 'needs-token', mode: 'auth-missing' },
      { name: 'old-protocol-only', mode: 'version-refusal' },
      { name: 'fails-once', mode: 'fail-once', env: { SCRIPTED_STATE_FILE: join(dir, 'fail-once.state') } },
      { name: 'hangs-once', mode: 'hang-once', timeoutMs: 3_000, env: { SCRIPTED_STATE_FILE: join(dir, 'hang-once.state') } },
      { name: 'always-hangs', mode: 'hang', timeoutMs: 1_500 },
      { name: 'declared-and-says-so', mode: 'early-exit', notApplicable: { reason: 'needs a config file this harness does not provide', expect: 'could not read config file' } },
      { name: 'declared-but-other-failure', mode: 'early-exit', notApplicable: { reason: 'needs a GPU', expect: 'no CUDA device' } },
      { name: 'remote-tools', url: remote.url },
      { name: 'remote-walled', url: walled.url },
      { name: 'too-big', mode: 'oversized-frame' },
      { name: 'redirected-away', url: redirecting.url },
      { name: 'left-out', mode: 'normal' },
    ];
    const file = await writeServersFile(dir, entries);
    const only = entries.map((entry) => entry.name).filter((name) => name !== 'left-out');
    const run = await runCliCaptured(['sweep', file, '--out', join(dir, 'results'), '--concurrency', '3', '--json', '--only', ...only]);
    code = run.code;
    expect(run.stderr).toBe('');
    report = JSON.parse(run.stdout) as SweepReport;
  }, 240_000);

  afterAll(async () => {
    await Promise.all([remote?.close(), walled?.close(), elsewhere?.close(), redirecting?.close()]);
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  const entry = (name: string) => {
    const found = report.servers.find((server) => server.name === name);
    if (!found) throw new Error(`no entry ${name}`);
    return found;
  };

  it('gives every entry exactly one status, in the servers file order', () => {
    expect(code).toBe(0);
    expect(report.servers.map((server) => [server.name, server.status])).toEqual([
      ['server-everything', 'measured'],
      ['server-filesystem', 'measured'],
      ['server-memory', 'measured'],
      ['server-sequential-thinking', 'measured'],
      ['changing', 'dynamic'],
      ['needs-token', 'auth-required'],
      ['old-protocol-only', 'protocol-mismatch'],
      ['fails-once', 'measured'],
      ['hangs-once', 'measured'],
      ['always-hangs', 'timeout'],
      ['declared-and-says-so', 'not-applicable'],
      ['declared-but-other-failure', 'startup-failure'],
      ['remote-tools', 'measured'],
      ['remote-walled', 'remote-auth-wall'],
      ['too-big', 'protocol-limit'],
      ['redirected-away', 'redirect-refused'],
      ['left-out', 'not-yet-run'],
    ]);
    expect(report.guard.checked).toBe(false);
    expect(report.guard.note).toMatch(/could not be made: there were no previous results/);
  });

  it('retries a start failure once and says the result came from the retry', () => {
    expect(entry('fails-once').budgetsMs).toEqual([30_000, 30_000]);
    expect(entry('fails-once').note).toMatch(/^measured on the retry at the same budget of 30,000 ms \(first attempt: startup-failure: .*exited with code 1/);
  });

  it('retries a timeout once with a doubled budget', () => {
    expect(entry('hangs-once').budgetsMs).toEqual([3_000, 6_000]);
    expect(entry('hangs-once').note).toMatch(/^measured on the retry with a doubled budget of 6,000 ms \(first attempt: timeout at 3,000 ms\)/);
    expect(entry('always-hangs').budgetsMs).toEqual([1_500, 3_000]);
    expect(entry('always-hangs').note).toMatch(/^timeout at 1,500 ms and again on the retry at 3,000 ms; widest budget tried 3,000 ms/);
  });

  it('never retries a protocol mismatch, a protocol limit, a refused redirect, nor auth-required', () => {
    expect(entry('old-protocol-only').budgetsMs).toEqual([30_000]);
    expect(entry('too-big').budgetsMs).toEqual([30_000]);
    expect(entry('redirected-away').budgetsMs).toEqual([30_000]);
    expect(entry('needs-token').budgetsMs).toEqual([30_000]);
  });

  it('publishes not-applicable only when the failure says the declared words', () => {
    expect(entry('declared-and-says-so').note).toMatch(/^needs a config file this harness does not provide; the failure says "could not read config file"/);
    expect(entry('declared-but-other-failure').note).toMatch(/does not say "no CUDA device", so the real failure is published/);
  });

  it('writes the results: each record, sweep.json, and nothing for the entry never run', async () => {
    const results = join(dir, 'results');
    const sweepFile = JSON.parse(await readFile(join(results, 'sweep.json'), 'utf8')) as { servers: Array<{ name: string; status: string; swept: boolean; note: string }> };
    expect(sweepFile.servers.map((server) => server.status)).toEqual(report.servers.map((server) => server.status));
    expect(sweepFile.servers.find((server) => server.name === 'left-out')).toMatchObject({ swept: false, note: 'not swept yet: not named by --only' });
    const record = JSON.parse(await readFile(join(results, 'declared-and-says-so', 'measurement.json'), 'utf8')) as { status: string; stderrTail: string };
    expect(record.status).toBe('not-applicable');
    expect(record.stderrTail).toMatch(/could not read config file/);
    await expect(stat(join(results, 'left-out', 'measurement.json'))).rejects.toThrow();
    const leaderboard = JSON.parse(await readFile(join(results, 'leaderboard.json'), 'utf8')) as { rows: Array<{ server: string; status: string }> };
    expect(leaderboard.rows).toHaveLength(17);
  });

  it('publishes protocol-limit and redirect-refused with notes naming the bound and the origin; the results read back and build a site', async () => {
    expect(entry('too-big').note).toMatch(/FRAME_TOO_LARGE.*the limit is \d+ bytes/);
    expect(entry('redirected-away').note).toContain(`to another origin (${new URL(elsewhere.url).origin})`);
    expect(elsewhere.headers).toEqual([]);
    const results = join(dir, 'results');
    const state = await readResultsState(results);
    expect(state?.servers.filter((server) => ['protocol-limit', 'redirect-refused'].includes(server.status)).map((server) => server.name)).toEqual(['too-big', 'redirected-away']);
    expect(state?.history.filter((row) => row.server === 'too-big').map((row) => row.status)).toEqual(['protocol-limit']);
    expect(await readFile(join(results, 'badges', 'redirected-away.svg'), 'utf8')).toContain('redirect-refused');
    const site = await buildSite({ resultsDir: results, outDir: join(dir, 'site') });
    const index = await readFile(site.indexPath, 'utf8');
    // Shown as failures, each with its own meaning.
    for (const status of ['protocol-limit', 'redirect-refused'] as const) {
      expect(index).toContain(`<span class="status status-failed" title="${STATUS_MEANINGS[status]}">${status}</span>`);
    }
  });

  it('measures a remote server over HTTP and quotes the WWW-Authenticate of one that answers 401, without retrying it', async () => {
    expect(entry('remote-tools').totalTokens).toBeGreaterThan(0);
    expect(entry('remote-walled').budgetsMs).toEqual([30_000]);
    expect(entry('remote-walled').note).toContain('Bearer realm="mcp", error="invalid_token"');
    const record = JSON.parse(await readFile(join(dir, 'results', 'remote-tools', 'measurement.json'), 'utf8')) as { launch: unknown };
    expect(record.launch).toMatchObject({ url: remote.url });
  });
});
