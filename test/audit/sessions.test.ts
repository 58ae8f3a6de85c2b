// Session composition and the deferral verdict on top of it, without processes: measurements are
// given per launch. A managed MCP file is the session alone (unreadable: no composition); a deny
// read anywhere removes a server, an allowlist never does; alwaysLoad stays out of the threshold;
// a total that collapsed or is a floor below the line refuses rather than guesses.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { audit, type AuditReport } from '../../src/audit/index.js';
import { launchKey } from '../../src/audit/_measure-entries.js';
import { composeSessions, sessionTotals } from '../../src/audit/_sessions.js';
import type { ConfigEntry, PlaceReport, SettingsSource } from '../../src/audit/_types.js';
import type { MeasureOptions, Measurement } from '../../src/measure/index.js';
import { configEntry } from './_config-entry.js';

const entry = configEntry;

function place(scope: string, path: string, entries: ConfigEntry[], state: PlaceReport['state'] = { state: 'read' }, client: ConfigEntry['client'] = 'claude-code'): PlaceReport {
  return { client, scope, path, format: 'json', serversAt: ['mcpServers'], state, entries: entries.map((item) => ({ ...item, scope, path, client })) };
}

function measured(tokens: Record<string, number>, entries: ConfigEntry[]): Map<string, Measurement> {
  return new Map(entries.filter((item) => tokens[item.name] !== undefined).map((item) => [launchKey(item), { status: 'measured', totalTokens: tokens[item.name] } as Measurement]));
}

function settings(overrides: Partial<SettingsSource>): SettingsSource {
  return { path: '/h/.claude/settings.json', tier: 'user', state: { state: 'read' }, env: {}, ...overrides };
}

describe('composeSessions (Claude Code)', () => {
  it('loads local over project over user, one name once, and leaves disabled entries out', () => {
    const places = [
      place('user', '/h/.claude.json', [entry('a'), entry('b'), entry('off', { disabled: true })]),
      place('local', '/h/.claude.json', [entry('b', { args: ['local-b.js'] })]),
      place('project', '/p/.mcp.json', [entry('a', { args: ['project-a.js'] }), entry('c')]),
      place('managed', '/s/managed-mcp.json', [], { state: 'absent' }),
    ];
    const [session] = composeSessions(places, []);
    expect(session?.loaded.map((item) => `${item.scope}:${item.name}`)).toEqual(['local:b', 'project:a', 'project:c']);
    expect(session?.shadowed.map((item) => item.name).sort()).toEqual(['a', 'b']);
    expect(session?.disabled).toEqual([{ name: 'off', path: '/h/.claude.json' }]);
  });

  it('takes managed-mcp.json alone when it exists, and refuses the composition when it cannot be read', () => {
    const user = place('user', '/h/.claude.json', [entry('a')]);
    const [managed] = composeSessions([user, place('managed', '/s/managed-mcp.json', [entry('org')])], []);
    expect(managed?.managedExclusive).toBe(true);
    expect(managed?.loaded.map((item) => item.name)).toEqual(['org']);
    const [empty] = composeSessions([user, place('managed', '/s/managed-mcp.json', [])], []);
    expect(empty?.loaded).toEqual([]);
    const [refused] = composeSessions([user, place('managed', '/s/managed-mcp.json', [], { state: 'unreadable', why: 'EACCES' })], []);
    expect(refused?.refused).toContain('cannot be read');
    expect(refused?.loaded).toEqual([]);
  });

  it('applies a deny from any settings file, reports an allowlist without subtracting, and leaves an unevaluable deny in', () => {
    const places = [place('user', '/h/.claude.json', [entry('a'), entry('b'), entry('c', { command: '${BIN}', expansions: [{ where: 'command', variables: ['BIN'] }] })])];
    const policy = [
      settings({ path: '/p/.claude/settings.json', tier: 'project', deniedMcpServers: [{ serverName: 'a' }, { serverCommand: ['node', 'c.js'] }] }),
      settings({ allowedMcpServers: [{ serverName: 'b' }] }),
    ];
    const [session] = composeSessions(places, policy);
    expect(session?.loaded.map((item) => item.name)).toEqual(['b', 'c']);
    expect(session?.denied).toEqual([{ name: 'a', path: '/h/.claude.json', rule: 'serverName a', source: '/p/.claude/settings.json' }]);
    expect(session?.denyUnevaluable.map((item) => item.name)).toEqual(['c']);
    expect(session?.allow).toEqual([
      { name: 'b', verdict: 'allowed' },
      { name: 'c', verdict: 'not-allowed' },
    ]);
  });

  it('other clients: a project file and the user file together, the project\'s name winning', () => {
    const places = [place('user', '/h/.cursor/mcp.json', [entry('x'), entry('y')], undefined, 'cursor'), place('project', '/p/.cursor/mcp.json', [entry('x', { args: ['px.js'] })], undefined, 'cursor')];
    const [session] = composeSessions(places, []);
    expect(session?.loaded.map((item) => `${item.scope}:${item.name}`)).toEqual(['project:x', 'user:y']);
  });
});

describe('sessionTotals', () => {
  it('counts alwaysLoad tokens apart, marks a floor, and finds entries that collapsed onto one launch', () => {
    const pinned = entry('pinned', { alwaysLoad: true });
    const a = entry('a');
    const twin = entry('twin', { args: ['a.js'] });
    const walled = entry('walled', { transport: 'remote', command: undefined, url: 'https://x.test/mcp' });
    const [session] = composeSessions([place('user', '/h/.claude.json', [pinned, a, twin, walled])], []);
    const totals = sessionTotals(session!, measured({ pinned: 300, a: 1_000 }, [pinned, a]));
    expect(totals).toMatchObject({ tokens: 2_300, complete: false, alwaysLoadTokens: 300, collapsed: [['a', 'twin']] });
    expect(totals.uncounted.map((item) => item.name)).toEqual(['walled']);
  });
});

describe('the deferral verdict of a session', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** An audit of one ~/.claude.json with fake measurements (tokens per entry name) and ENABLE_TOOL_SEARCH in the shell. */
  async function claudeAudit(servers: Record<string, unknown>, tokens: Record<string, number | null>, enableToolSearch: string): Promise<AuditReport['sessions'][number]> {
    const home = mkdtempSync(join(tmpdir(), 'mcpctx-audit-sessions-'));
    dirs.push(home);
    writeFileSync(join(home, '.claude.json'), JSON.stringify({ mcpServers: servers }));
    const report = await audit({
      roots: { home, cwd: join(home, 'project'), platform: 'linux', systemRoot: join(home, 'system') },
      shellEnv: { ENABLE_TOOL_SEARCH: enableToolSearch },
      measureWith: (options: MeasureOptions) => {
        const count = tokens[options.name] ?? null;
        return Promise.resolve({ name: options.name, status: count === null ? 'timeout' : 'measured', note: '', totalTokens: count } as Measurement);
      },
    });
    return report.sessions.find((session) => session.client === 'claude-code')!;
  }

  it('leaves alwaysLoad servers out of the auto threshold and names them at session start', async () => {
    // Only the 11,000 deferrable tokens face the threshold: 2,090-21,230 in Claude's units against
    // 20,000 (auto = 10% of 200,000) straddles. Counting the pinned 14,000 too would have read 4,750-48,250.
    const session = await claudeAudit({ big: { command: 'node', args: ['big.js'], alwaysLoad: true }, small: { command: 'node', args: ['small.js'] } }, { big: 14_000, small: 11_000 }, 'auto');
    expect(session.deferral?.threshold).toMatchObject({ thresholdTokens: 20_000, lowTokens: 2_090, highTokens: 21_230 });
    expect(session.deferral?.posture).toMatchObject({ posture: 'refused', refusal: 'threshold-straddles' });
    const above = await claudeAudit({ big: { command: 'node', args: ['big.js'], alwaysLoad: true }, small: { command: 'node', args: ['small.js'] } }, { big: 14_000, small: 110_000 }, 'auto');
    expect(above.deferral?.atSessionStart).toMatchObject({ loads: 'pinned-only', tokens: 14_000, pinned: ['big'] });
  });

  it('says everything loads when even the high end is below the threshold', async () => {
    const session = await claudeAudit({ a: { command: 'node', args: ['a.js'] } }, { a: 1_000 }, 'auto:5');
    expect(session.deferral?.threshold?.verdict).toBe('below');
    expect(session.deferral?.atSessionStart).toEqual({ loads: 'everything', tokens: 1_000, complete: true });
  });

  it('refuses when the total is a floor below the line, but answers when the floor already clears it', async () => {
    const floorBelow = await claudeAudit({ a: { command: 'node', args: ['a.js'] }, gone: { command: 'node', args: ['gone.js'] } }, { a: 1_000, gone: null }, 'auto');
    expect(floorBelow.deferral?.posture).toMatchObject({ posture: 'refused', refusal: 'total-unknown' });
    const floorAbove = await claudeAudit({ a: { command: 'node', args: ['a.js'] }, gone: { command: 'node', args: ['gone.js'] } }, { a: 200_000, gone: null }, 'auto');
    expect(floorAbove.deferral?.threshold?.verdict).toBe('above');
    expect(floorAbove.deferral?.posture.posture).toBe('deferred');
  });

  it('refuses when two entries start the same server (the total cannot be established)', async () => {
    const session = await claudeAudit({ a: { command: 'node', args: ['a.js'] }, b: { command: 'node', args: ['a.js'] } }, { a: 1_000 }, 'auto');
    expect(session.deferral?.posture).toMatchObject({ posture: 'refused', refusal: 'total-unknown' });
  });

  it('needs no threshold for true and false', async () => {
    const deferred = await claudeAudit({ a: { command: 'node', args: ['a.js'], alwaysLoad: true }, b: { command: 'node', args: ['b.js'] } }, { a: 10, b: 20 }, 'true');
    expect(deferred.deferral?.atSessionStart).toMatchObject({ loads: 'pinned-only', tokens: 10, pinned: ['a'] });
    expect(deferred.deferral?.threshold).toBeUndefined();
    const upFront = await claudeAudit({ a: { command: 'node', args: ['a.js'] } }, { a: 10 }, 'false');
    expect(upFront.deferral?.atSessionStart).toEqual({ loads: 'everything', tokens: 10, complete: true });
  });
});
