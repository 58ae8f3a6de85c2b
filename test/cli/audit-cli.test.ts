// mcpctx audit as users meet it, in process: --budget is a CI gate that fails closed (exit 1 over,
// unknown or only a floor; 0 only when every session is proven within), a malformed config is
// listed as unreadable with its line and column while the rest of the audit runs, --no-measure
// launches nothing, progress goes to stderr, the report leads with the sessions and fits 100
// columns, and an env canary reaches no output.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/audit/index.js';
import { runCliCaptured } from '../support/cli-run.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { referenceServer } from '../support/real-servers.js';

const CANARY = `canary-${randomUUID()}`;
const SEQUENTIAL = 1_003;
let root = '';
let home = '';
let project = '';

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mcpctx-audit-cli-'));
  home = join(root, 'home');
  project = join(root, 'project');
  mkdirSync(project, { recursive: true });
  const thinking = referenceServer('sequential-thinking');
  const entry = { command: thinking.command, args: thinking.args, env: { ...markedEnv(), SECRET: CANARY } };
  write(join(home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { thinking: entry } }));
  // A trailing garbage line: a parse error on line 3, column 1.
  write(join(home, '.kiro', 'settings', 'mcp.json'), `{ "mcpServers": {\n  "a": { "command": "x", "env": { "K": "${CANARY}" } } }\n}}\n`);
  write(join(home, '.codex', 'config.toml'), `[mcp_servers.x]\ncommand = "node"\nargs = [\n`);
  write(join(home, '.claude', 'settings.json'), JSON.stringify({ env: { ENABLE_TOOL_SEARCH: 'true', OTHER: CANARY } }));
});

afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

function base(): string[] {
  return ['audit', '--home', home, '--cwd', project, '--platform', 'linux', '--system-root', join(root, 'system')];
}

describe('mcpctx audit', () => {
  it('lists a malformed file as unreadable with line and column, and audits the rest (--no-measure launches nothing)', async () => {
    const run = await runCliCaptured([...base(), '--no-measure', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as AuditReport;
    const kiro = report.places.find((place) => place.client === 'kiro' && place.scope === 'user');
    expect(kiro?.state).toMatchObject({ state: 'unreadable', line: 3 });
    const codex = report.places.find((place) => place.client === 'codex-cli');
    expect(codex?.state.state).toBe('unreadable');
    expect(report.entries.map((entry) => `${entry.client}/${entry.name}`)).toEqual(['cursor/thinking']);
    expect(report.entries[0]?.unmeasured).toEqual({ reason: 'not-measured' });
    expect(report.measured).toBe(false);
    expect(run.stdout + run.stderr).not.toContain(CANARY);
  });

  it('leads with the sessions table, keeps progress on stderr, and prints the details only with --verbose', async () => {
    const run = await runCliCaptured([...base(), '--runs', '1', '--concurrency', '1']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('Sessions: tokens every request carries, share of a 200,000-token context window');
    expect(lines[1]).toMatch(/^client\s+servers\s+tokens\/request\s+window\s+deferral$/);
    expect(run.stdout).toMatch(/cursor\s+1\s+1,003\s+0\.5%\s+vendor: deferred \(record\)/);
    expect(run.stdout).toMatch(/thinking\s+cursor user\s+1\s+1,003\s+measured/);
    expect(run.stdout).toContain('unreadable at line 3');
    expect(run.stdout).not.toMatch(/^Places consulted \(/m);
    // Progress: a count first, then a line as each server starts and ends, all on stderr.
    expect(run.stderr.split('\n').slice(0, 3)).toEqual(['measuring 1 server (concurrency 1)', '[1/1] started thinking', expect.stringMatching(/^\[1\/1\] thinking: measured 1,003 tokens in \d+\.\ds$/)]);
    expect(run.stdout).not.toMatch(/measuring|started|\[1\/1\]/);
    const verbose = await runCliCaptured([...base(), '--runs', '1', '--verbose']);
    expect(verbose.stdout).toMatch(/^Places consulted \(linux/m);
    expect(verbose.stdout).toMatch(/cursor\s+user\s+1,003/);
    expect(verbose.stdout).toContain('vendor record (not measured here)');
    expect(run.stdout + run.stderr + verbose.stdout + verbose.stderr).not.toContain(CANARY);
  });

  it('--budget: a discovered file that cannot be read fails the budget, with why', async () => {
    const run = await runCliCaptured([...base(), '--runs', '1', '--budget', String(SEQUENTIAL), '--json']);
    expect(run.code, run.stderr).toBe(1);
    const budget = (JSON.parse(run.stdout) as AuditReport).budget;
    expect(budget?.verdict).toBe('unknown');
    expect(budget?.sessions).toContainEqual(expect.objectContaining({ client: 'cursor', tokens: SEQUENTIAL, complete: true, verdict: 'within' }));
    expect(budget?.sessions).toContainEqual(expect.objectContaining({ client: 'kiro', tokens: null, verdict: 'unknown', reason: expect.stringContaining('cannot be read') as unknown }));
    expect(run.stdout + run.stderr).not.toContain(CANARY);
  });

  it('refuses a bad --budget or --platform as usage (exit 2)', async () => {
    expect((await runCliCaptured([...base(), '--budget', 'lots'])).code).toBe(2);
    expect((await runCliCaptured(['audit', '--platform', 'beos'])).code).toBe(2);
  });

  it('audits only the files given with --config, each its own session', async () => {
    const run = await runCliCaptured(['audit', '--no-measure', '--json', '--config', join(home, '.cursor', 'mcp.json')], root);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as AuditReport;
    expect(report.places.map((place) => [place.client, place.scope])).toEqual([['custom', 'given']]);
    expect(report.sessions).toHaveLength(1);
    expect(report.sessions[0]?.vendor).toHaveProperty('unknown');
  });
});

describe('mcpctx audit --budget fails closed', () => {
  let given = '';
  let failing = '';
  let mixed = '';
  beforeAll(() => {
    const thinking = referenceServer('sequential-thinking');
    // A server that exits at once: its measurement fails and it has no number.
    const broken = { command: process.execPath, args: ['-e', 'process.exit(1)'], env: markedEnv() };
    given = join(root, 'given', 'thinking.json');
    failing = join(root, 'given', 'failing.json');
    mixed = join(root, 'given', 'mixed.json');
    write(given, JSON.stringify({ mcpServers: { thinking: { command: thinking.command, args: thinking.args, env: markedEnv() } } }));
    write(failing, JSON.stringify({ mcpServers: { broken } }));
    write(mixed, JSON.stringify({ mcpServers: { thinking: { command: thinking.command, args: thinking.args, env: markedEnv() }, broken } }));
  });

  async function budgetRun(args: string[]): Promise<{ code: number; budget: NonNullable<AuditReport['budget']>; text: string }> {
    const json = await runCliCaptured(['audit', '--runs', '1', '--json', ...args], root);
    const text = await runCliCaptured(['audit', '--runs', '1', ...args], root);
    expect(text.code).toBe(json.code);
    return { code: json.code, budget: (JSON.parse(json.stdout) as AuditReport).budget!, text: text.stdout };
  }

  it('exit 0 only when every session is proven within; exit 1 over', async () => {
    const within = await budgetRun(['--config', given, '--budget', String(SEQUENTIAL)]);
    expect(within.code).toBe(0);
    expect(within.budget).toEqual({ limit: SEQUENTIAL, floorOk: false, verdict: 'within', sessions: [{ client: 'custom', paths: [given], tokens: SEQUENTIAL, complete: true, verdict: 'within', reason: '1,003 tokens <= 1,003' }] });
    const over = await budgetRun(['--config', given, '--budget', String(SEQUENTIAL - 1)]);
    expect(over.code).toBe(1);
    expect(over.budget.verdict).toBe('over');
    expect(over.text).toContain('Budget 1,002 tokens per request, every session: OVER');
  });

  it('every server failing is unknown, not "within" a floor of 0 (exit 1)', async () => {
    const run = await budgetRun(['--config', failing, '--budget', '1']);
    expect(run.code).toBe(1);
    expect(run.budget.verdict).toBe('unknown');
    expect(run.budget.sessions[0]).toMatchObject({ tokens: 0, complete: false, verdict: 'unknown', reason: expect.stringContaining('nothing in it could be counted') as unknown });
    // Even with floors accepted: nothing was counted, so there is no floor to accept.
    expect((await budgetRun(['--config', failing, '--budget', '1', '--budget-floor-ok'])).code).toBe(1);
  });

  it('--no-measure --budget 1 is unknown (exit 1)', async () => {
    const run = await budgetRun(['--config', given, '--no-measure', '--budget', '1']);
    expect(run.code).toBe(1);
    expect(run.budget.sessions[0]).toMatchObject({ tokens: null, verdict: 'unknown', reason: expect.stringContaining('not measured') as unknown });
  });

  it('a mistyped --config path says the file is absent and fails the budget (exit 1)', async () => {
    const typo = join(root, 'given', 'thinkng.json');
    const run = await budgetRun(['--config', typo, '--budget', '100000']);
    expect(run.code).toBe(1);
    expect(run.budget).toMatchObject({ verdict: 'unknown', sessions: [{ client: 'custom', paths: [typo], tokens: null, verdict: 'unknown', reason: `${typo} (given with --config) does not exist` }] });
    expect(run.text).toContain(`${typo}: no such file (given with --config)`);
  });

  it('a floor under the limit is unknown (exit 1), accepted by --budget-floor-ok (exit 0, said so); a floor over it is OVER', async () => {
    const floor = await budgetRun(['--config', mixed, '--budget', '10000']);
    expect(floor.code).toBe(1);
    expect(floor.budget.sessions[0]).toMatchObject({ tokens: SEQUENTIAL, complete: false, verdict: 'unknown', reason: expect.stringContaining('only a floor (>= 1,003)') as unknown });
    const accepted = await budgetRun(['--config', mixed, '--budget', '10000', '--budget-floor-ok']);
    expect(accepted.code).toBe(0);
    expect(accepted.budget).toMatchObject({ floorOk: true, verdict: 'within', sessions: [{ verdict: 'within', reason: expect.stringContaining('accepted by --budget-floor-ok') as unknown }] });
    expect(accepted.text).toContain('floors accepted: within');
    const over = await budgetRun(['--config', mixed, '--budget', '1000']);
    expect(over.code).toBe(1);
    expect(over.budget.sessions[0]).toMatchObject({ verdict: 'over', reason: expect.stringContaining('a floor already over') as unknown });
  });

  it('judges every session, not only the costliest: a cheap unknown one fails a budget the costly one is within', async () => {
    const run = await budgetRun(['--config', given, '--config', failing, '--budget', '5000']);
    expect(run.code).toBe(1);
    expect(run.budget.sessions.map((row) => row.verdict)).toEqual(['within', 'unknown']);
    expect(run.text).toMatch(/given failing\.json: unknown: nothing in it could be counted/);
  });
});

describe('mcpctx audit report layout', () => {
  it('fits 100 columns with long paths and names, and its first lines are the sessions table', async () => {
    const deep = join(root, ...Array.from({ length: 4 }, (_, index) => `a-directory-name-long-enough-to-overflow-any-table-${index}`));
    const longHome = join(deep, 'home');
    const longProject = join(deep, 'project');
    const thinking = referenceServer('sequential-thinking');
    const entry = { command: thinking.command, args: thinking.args, env: markedEnv() };
    const longName = 'a-server-name-that-somebody-made-far-too-long-for-any-terminal-column';
    const broken = { command: process.execPath, args: ['-e', 'process.exit(1)'], env: markedEnv() };
    write(join(longHome, '.claude.json'), JSON.stringify({ mcpServers: { [longName]: entry, [`${longName}-broken`]: broken } }));
    for (const path of [join(longHome, '.cursor', 'mcp.json'), join(longHome, '.codeium', 'windsurf', 'mcp_config.json'), join(longHome, '.gemini', 'settings.json'), join(longProject, '.cursor', 'mcp.json')]) {
      write(path, JSON.stringify({ mcpServers: { [longName]: entry } }));
    }
    write(join(longHome, '.kiro', 'settings', 'mcp.json'), '{ "mcpServers": {\n}}}\n');
    write(join(longHome, '.claude', 'settings.json'), JSON.stringify({ env: { ENABLE_TOOL_SEARCH: 'auto:5' } }));
    const args = ['audit', '--home', longHome, '--cwd', longProject, '--platform', 'linux', '--system-root', join(deep, 'system'), '--runs', '1'];
    const run = await runCliCaptured([...args, '--budget', '1', '--changed', join(deep, 'no-results-here')]);
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.filter((line) => line.length > 100)).toEqual([]);
    expect(lines[0]).toMatch(/^Sessions: /);
    expect(lines[1]).toMatch(/^client\s+servers\s+tokens\/request/);
    expect(lines[3]).toMatch(/^claude-code\s+2\s+>= 1,003/);
    // The same launch in five places is one row, with where it is configured.
    expect(run.stdout).toMatch(/a-server-name-that-some…\s+claude-code user, cursor user \+3\s+1\s+1,003\s+measured/);
    expect(run.stdout.replace(/\s+/g, ' ')).toContain('claude-code at session start: cannot be said (the total is a floor');
    expect(run.stdout.match(/1,003 {2}measured/g)).toHaveLength(1);
    expect(run.stdout).toContain('Budget 1 tokens per request, every session: OVER');
    // Paths under the home are written from ~, so a problem line keeps the file's name and why.
    expect(run.stdout).toContain('kiro user: ~/.kiro/settings/mcp.json unreadable at line 2');
  });
});

describe('mcpctx audit --changed and --suggest', () => {
  it('joins the measured server to a constructed results folder by hash: behind, then current, then unidentified', async () => {
    const first = JSON.parse((await runCliCaptured([...base(), '--runs', '1', '--json'])).stdout) as AuditReport;
    const hash = first.entries.find((entry) => entry.name === 'thinking')?.measurement?.canonicalSha256;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const newer = 'f'.repeat(64);
    const results = join(root, 'results');
    const index = (current: boolean): unknown => ({
      method: 'capture-index/v1',
      captures: current
        ? { [hash!]: { server: 'sequential-thinking', firstSeen: '2026-09-01', lastSeen: '2026-11-30', current: true } }
        : {
            [hash!]: { server: 'sequential-thinking', firstSeen: '2026-09-01', lastSeen: '2026-10-01', current: false },
            [newer]: { server: 'sequential-thinking', firstSeen: '2026-10-08', lastSeen: '2026-11-30', current: true },
          },
      current: { 'sequential-thinking': current ? hash : newer },
    });
    write(join(results, 'sequential-thinking', 'measurement.json'), JSON.stringify({ canonicalSha256: newer, totalTokens: SEQUENTIAL + 250 }));
    write(join(results, 'capture-index.json'), JSON.stringify(index(false)));
    const quantiles = Array.from({ length: 101 }, (_, p) => p * 3);
    write(join(results, 'tool-shape.json'), JSON.stringify({ method: 'tool-shape/v1', servers: 2, tools: 50, quantiles: { whole: quantiles, description: quantiles, inputSchema: quantiles } }));

    const behind = await runCliCaptured([...base(), '--runs', '1', '--changed', results, '--suggest', results]);
    expect(behind.code, behind.stderr).toBe(0);
    expect(behind.stdout).toMatch(/thinking \(published as sequential-thinking\)\s+behind\s+1,003\s+\+250/);
    // sequential-thinking's one description is far above p90 of this made-up baseline (270 tokens).
    expect(behind.stdout).toMatch(/thinking\s+sequentialthinking\s+[\d,]+\s+p100/);

    write(join(results, 'capture-index.json'), JSON.stringify(index(true)));
    const current = await runCliCaptured([...base(), '--runs', '1', '--changed', results, '--json']);
    expect((JSON.parse(current.stdout) as AuditReport).changed).toMatchObject({ rows: [{ name: 'thinking', publishedAs: 'sequential-thinking', change: { state: 'current' } }] });

    write(join(results, 'capture-index.json'), JSON.stringify({ method: 'capture-index/v1', captures: {}, current: {} }));
    const unknown = await runCliCaptured([...base(), '--runs', '1', '--changed', results]);
    expect(unknown.stdout).toMatch(/thinking\s+unidentified/);

    const missing = await runCliCaptured([...base(), '--runs', '1', '--changed', join(root, 'nowhere'), '--suggest', join(root, 'nowhere')]);
    expect(missing.code).toBe(0);
    expect(missing.stdout).toContain('cannot compare:');
    expect(missing.stdout).toContain('no baseline:');
  });
});
