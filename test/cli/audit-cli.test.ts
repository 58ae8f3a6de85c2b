// mcpctx audit as users meet it, in process: --budget is a CI gate (exit 1 over, 0 within), a
// malformed config is listed as unreadable with its line and column while the rest of the audit
// runs, --no-measure launches nothing, and an env canary reaches no output.
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

  it('prints tables and the posture, without the canary', async () => {
    const run = await runCliCaptured([...base(), '--runs', '1']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Places consulted');
    expect(run.stdout).toMatch(/cursor\s+user\s+1,003/);
    expect(run.stdout).toContain('unreadable at line 3');
    expect(run.stderr).toContain('measured 1/1 thinking: measured 1003 tokens');
    expect(run.stdout + run.stderr).not.toContain(CANARY);
  });

  it('--budget: exit 1 when the costliest session is over, 0 within', async () => {
    const over = await runCliCaptured([...base(), '--runs', '1', '--budget', String(SEQUENTIAL - 1), '--json']);
    expect(over.code, over.stderr).toBe(1);
    expect((JSON.parse(over.stdout) as AuditReport).budget).toEqual({ limit: SEQUENTIAL - 1, costliest: { client: 'cursor', tokens: SEQUENTIAL, complete: true }, over: true });
    const within = await runCliCaptured([...base(), '--runs', '1', '--budget', String(SEQUENTIAL)]);
    expect(within.code, within.stderr).toBe(0);
    expect(within.stdout).toContain('within');
    expect(over.stdout + over.stderr + within.stdout + within.stderr).not.toContain(CANARY);
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
