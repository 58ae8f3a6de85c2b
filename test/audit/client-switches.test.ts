// The clients' own switches and substitutions, on fixture homes with a fake measure (what matters
// here is what is launched and counted, not a server): Claude Code's /mcp off switch and .mcp.json
// approvals, Gemini CLI's mcp.excluded / mcp.allowed / `gemini mcp disable` / includeTools /
// excludeTools and its bare $VAR, VS Code's ${workspaceFolder}. A switched-off server is not launched and not counted, and
// says which file and key turned it off; a filtered server counts only the tools that remain.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { audit, type AuditReport } from '../../src/audit/index.js';
import { renderAudit } from '../../src/cli/_audit-render.js';
import type { LaunchSpec } from '../../src/mcp/index.js';
import type { MeasureOptions, Measurement } from '../../src/measure/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Fixture {
  home: string;
  cwd: string;
  write(path: string, value: unknown): void;
}

function fixture(): Fixture {
  const root = mkdtempSync(join(tmpdir(), 'mcpctx-audit-switches-'));
  dirs.push(root);
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(cwd, { recursive: true });
  return {
    home,
    cwd,
    write(path, value) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
    },
  };
}

/** A stdio entry whose launch is told apart by its script; the fake measure prices it by that script. */
function server(script: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: 'node', args: [`${script}.js`], ...extra };
}

/** Per script: the catalog's tools and their tokens; the whole catalog costs their sum plus 20. */
type Prices = Record<string, Record<string, number>>;

async function run(home: Fixture, prices: Prices, launched: MeasureOptions[] = []): Promise<AuditReport> {
  return audit({
    roots: { home: home.home, cwd: home.cwd, platform: 'linux', systemRoot: join(home.home, 'no-system') },
    shellEnv: {},
    measureWith: (options: MeasureOptions) => {
      launched.push(options);
      const script = ((options.launch as LaunchSpec).args?.[0] ?? '').replace(/\.js$/, '');
      const tools = prices[script] ?? {};
      const perTool = Object.entries(tools).map(([name, tokens]) => ({ name, tokens, descriptionTokens: 0, inputSchemaTokens: 0 }));
      const total = perTool.reduce((sum, tool) => sum + tool.tokens, 20);
      return Promise.resolve({ name: options.name, status: 'measured', note: '', totalTokens: total, toolCount: perTool.length, canonicalSha256: null, perTool, sessionStart: null } as unknown as Measurement);
    },
  });
}

function session(report: AuditReport, client: string): AuditReport['sessions'][number] {
  const found = report.sessions.find((item) => item.client === client);
  expect(found, client).toBeDefined();
  return found!;
}

function entry(report: AuditReport, client: string, name: string, scope?: string): AuditReport['entries'][number] {
  const found = report.entries.filter((item) => item.client === client && item.name === name && (scope === undefined || item.scope === scope));
  expect(found, `${client} ${name}`).toHaveLength(1);
  return found[0]!;
}

function launchedScripts(launched: MeasureOptions[]): string[] {
  return launched.map((options) => (options.launch as LaunchSpec).args?.[0] ?? '').sort();
}

describe("Claude Code's own off switches", () => {
  it('leaves out what /mcp turned off for this project and what the approval prompt rejected, and says which file and key', async () => {
    const home = fixture();
    home.write(join(home.home, '.claude.json'), {
      mcpServers: { a: server('a'), b: server('b') },
      projects: {
        [home.cwd]: { mcpServers: { c: server('c') }, disabledMcpServers: ['b', 'c', 'p-off'] },
        '/elsewhere': { disabledMcpServers: ['a'] },
      },
    });
    home.write(join(home.cwd, '.mcp.json'), { mcpServers: { 'p-yes': server('p-yes'), 'p-no': server('p-no'), 'p-off': server('p-off'), 'p-ask': server('p-ask') } });
    home.write(join(home.cwd, '.claude', 'settings.local.json'), { enabledMcpjsonServers: ['p-yes', 'p-no'] });
    home.write(join(home.home, '.claude', 'settings.json'), { disabledMcpjsonServers: ['p-no'] });
    const launched: MeasureOptions[] = [];
    const report = await run(home, { a: { t: 1_000 }, b: { t: 2_000 }, c: { t: 400 }, 'p-yes': { t: 300 }, 'p-no': { t: 500 }, 'p-off': { t: 600 }, 'p-ask': { t: 700 } }, launched);

    const claude = session(report, 'claude-code');
    expect([...claude.loaded].sort()).toEqual(['a', 'p-yes']);
    // a 1,020 + p-yes 320: what the reviewer's home showed as 8,617 against 4,531 real, in small.
    expect(claude.totals).toMatchObject({ tokens: 1_340, complete: true });
    const by = Object.fromEntries(claude.disabled.map((item) => [item.name, item.by ?? '']));
    expect(Object.keys(by).sort()).toEqual(['b', 'c', 'p-no', 'p-off']);
    expect(by.b).toContain(`.claude.json projects[${JSON.stringify(home.cwd)}].disabledMcpServers`);
    expect(by.c).toContain('disabledMcpServers');
    expect(by['p-off']).toContain('disabledMcpServers');
    // A rejection wins over an approval in another file.
    expect(by['p-no']).toContain(`${join(home.home, '.claude', 'settings.json')} disabledMcpjsonServers`);
    expect(claude.pending).toEqual([expect.objectContaining({ name: 'p-ask', why: expect.stringContaining('does not load it until approved') })]);

    // Switched off: not launched. Awaiting approval: measured, so its price is known, not counted.
    expect(launchedScripts(launched)).toEqual(['a.js', 'p-ask.js', 'p-yes.js']);
    expect(entry(report, 'claude-code', 'b').unmeasured).toEqual({ reason: 'disabled', by: by.b });
    expect(entry(report, 'claude-code', 'b').disabledBy).toBe(by.b);
    expect(entry(report, 'claude-code', 'p-ask').measurement?.totalTokens).toBe(720);
    expect(entry(report, 'claude-code', 'p-ask').pendingApproval).toContain('not counted');

    // The report says it where the session total is read, and the details name the switch.
    expect(renderAudit(report)).toMatch(/claude-code: p-ask not counted: awaiting approval/);
    expect(renderAudit(report, { verbose: true })).toContain('off by');
  });

  it('takes enableAllProjectMcpServers and the older approvals kept in ~/.claude.json, and says when only the checked-in settings approve', async () => {
    const home = fixture();
    home.write(join(home.cwd, '.mcp.json'), { mcpServers: { p1: server('p1'), p2: server('p2') } });
    home.write(join(home.home, '.claude.json'), { projects: { [home.cwd]: { enabledMcpjsonServers: ['p1'] } } });
    home.write(join(home.cwd, '.claude', 'settings.json'), { enabledMcpjsonServers: ['p2'] });
    const report = await run(home, { p1: { t: 100 }, p2: { t: 200 } });
    expect([...session(report, 'claude-code').loaded].sort()).toEqual(['p1', 'p2']);
    expect(session(report, 'claude-code').pending).toEqual([]);
    expect(entry(report, 'claude-code', 'p2').notes?.join(' ')).toContain('only once the folder is trusted');

    home.write(join(home.home, '.claude.json'), {});
    home.write(join(home.cwd, '.claude', 'settings.json'), {});
    home.write(join(home.home, '.claude', 'settings.json'), { enableAllProjectMcpServers: true });
    const all = await run(home, { p1: { t: 100 }, p2: { t: 200 } });
    expect(session(all, 'claude-code').totals.tokens).toBe(340);
  });
});

describe('Gemini CLI filters', () => {
  it('leaves out mcp.excluded and servers outside mcp.allowed, and counts only the tools includeTools/excludeTools keep', async () => {
    const home = fixture();
    home.write(join(home.home, '.gemini', 'settings.json'), {
      mcp: { excluded: ['Excluded '] },
      mcpServers: {
        filtered: server('filtered', { includeTools: ['read', 'write(path)', 'gone'], excludeTools: ['write'] }),
        dropped: server('dropped', { excludeTools: ['big'] }),
        plain: server('plain'),
        excluded: server('excluded'),
        outside: server('outside'),
      },
    });
    home.write(join(home.cwd, '.gemini', 'settings.json'), { mcp: { allowed: ['filtered', 'dropped', 'plain', 'excluded'] } });
    const launched: MeasureOptions[] = [];
    const report = await run(
      home,
      { filtered: { read: 100, write: 200, list: 300 }, dropped: { big: 5_000, small: 50 }, plain: { t: 10 }, excluded: { t: 1 }, outside: { t: 1 } },
      launched,
    );

    expect(launchedScripts(launched)).toEqual(['dropped.js', 'filtered.js', 'plain.js']);
    const gemini = session(report, 'gemini-cli');
    const by = Object.fromEntries(gemini.disabled.map((item) => [item.name, item.by ?? '']));
    // Names compare lower-cased and trimmed, as Gemini CLI compares them.
    expect(by.excluded).toBe(`${join(home.home, '.gemini', 'settings.json')} mcp.excluded`);
    expect(by.outside).toContain(`${join(home.cwd, '.gemini', 'settings.json')} mcp.allowed`);
    // read (exclude wins over `write(path)`, `list` is not included): 100; small: 50; plain: 30 whole.
    expect(gemini.totals).toMatchObject({ tokens: 100 + 50 + 30, complete: true });
    const filtered = entry(report, 'gemini-cli', 'filtered');
    // The measurement stays the server's; the filter is beside it.
    expect(filtered.measurement?.totalTokens).toBe(620);
    expect(filtered.toolFilter).toEqual({ keptTools: 1, ofTools: 3, tokens: 100, note: '1 of 3 tools (includeTools/excludeTools)' });
    expect(entry(report, 'gemini-cli', 'dropped').toolFilter?.note).toBe('1 of 2 tools (excludeTools)');
    expect(report.configs.find((config) => config.client === 'gemini-cli' && config.scope === 'user')?.totals.tokens).toBe(180);
    const text = renderAudit(report);
    expect(text).toContain('gemini-cli: filtered counts 1 of 3 tools (includeTools/excludeTools), 100 tokens');
    expect(text).toContain('gemini-cli: dropped counts 1 of 2 tools (excludeTools), 50 tokens');
  });

  it('leaves out what gemini mcp disable turned off, and says so when its file cannot be read', async () => {
    const home = fixture();
    home.write(join(home.home, '.gemini', 'settings.json'), { mcpServers: { Off: server('off'), on: server('on') } });
    const enablement = join(home.home, '.gemini', 'mcp-server-enablement.json');
    home.write(enablement, { off: { enabled: false }, on: { enabled: true } });
    const launched: MeasureOptions[] = [];
    const report = await run(home, { off: { t: 1_000 }, on: { t: 10 } }, launched);
    expect(launchedScripts(launched)).toEqual(['on.js']);
    expect(session(report, 'gemini-cli').disabled).toEqual([{ name: 'Off', path: join(home.home, '.gemini', 'settings.json'), by: `${enablement} (what gemini mcp disable writes)` }]);
    expect(session(report, 'gemini-cli').totals.tokens).toBe(30);

    home.write(enablement, '{ not json');
    const unknown = await run(home, { off: { t: 1_000 }, on: { t: 10 } });
    expect(session(unknown, 'gemini-cli').loaded.sort()).toEqual(['Off', 'on']);
    expect(entry(unknown, 'gemini-cli', 'Off').notes?.join(' ')).toContain('cannot be read (not valid JSON)');
  });

  it('reads $VAR as an expansion in Gemini settings only: named, not passed, and a launch it would change is not started', async () => {
    const home = fixture();
    home.write(join(home.home, '.gemini', 'settings.json'), {
      mcpServers: { env: server('env', { env: { API_KEY: '$API_KEY', PLAIN: 'x' } }), pathy: { command: 'node', args: ['$HOME/server.js'] } },
    });
    home.write(join(home.home, '.cursor', 'mcp.json'), { mcpServers: { literal: server('literal', { env: { PRICE: '$5' } }) } });
    const launched: MeasureOptions[] = [];
    const report = await run(home, { env: { t: 1 }, literal: { t: 1 } }, launched);
    expect(entry(report, 'gemini-cli', 'env').expansions).toEqual([{ where: 'env.API_KEY', variables: ['API_KEY'] }]);
    expect(entry(report, 'gemini-cli', 'pathy').unmeasured).toMatchObject({ reason: 'unevaluated-expansion', detail: expect.stringContaining('args[0]') });
    const envLaunch = launched.find((options) => (options.launch as LaunchSpec).args?.[0] === 'env.js')?.launch as LaunchSpec;
    expect(envLaunch.env).toEqual({ PLAIN: 'x' });
    // Cursor expands only ${...}: its `$5` is a literal value.
    const literal = launched.find((options) => (options.launch as LaunchSpec).args?.[0] === 'literal.js')?.launch as LaunchSpec;
    expect(literal.env).toEqual({ PRICE: '$5' });
  });
});

describe("Codex CLI's and Kiro's tool filters", () => {
  it('count only the tools enabled_tools/disabled_tools and disabledTools keep; the same keys in another client are not applied', async () => {
    const home = fixture();
    home.write(
      join(home.home, '.codex', 'config.toml'),
      ['[mcp_servers.picked]', 'command = "node"', 'args = ["picked.js"]', 'enabled_tools = ["read", "write"]', 'disabled_tools = ["write"]', ''].join('\n'),
    );
    home.write(join(home.home, '.kiro', 'settings', 'mcp.json'), { mcpServers: { trimmed: server('trimmed', { disabledTools: ['big'] }) } });
    // Cursor has no tool filter: its disabledTools is a key it does not read.
    home.write(join(home.home, '.cursor', 'mcp.json'), { mcpServers: { whole: server('whole', { disabledTools: ['big'] }) } });
    const report = await run(home, { picked: { read: 100, write: 200, list: 300 }, trimmed: { big: 5_000, small: 50 }, whole: { big: 5_000, small: 50 } });

    expect(entry(report, 'codex-cli', 'picked').toolFilter).toEqual({ keptTools: 1, ofTools: 3, tokens: 100, note: '1 of 3 tools (enabled_tools/disabled_tools)' });
    expect(session(report, 'codex-cli').totals.tokens).toBe(100);
    expect(entry(report, 'kiro', 'trimmed').toolFilter?.note).toBe('1 of 2 tools (disabledTools)');
    expect(session(report, 'kiro').totals.tokens).toBe(50);
    expect(entry(report, 'cursor', 'whole').toolFilter).toBeUndefined();
    expect(session(report, 'cursor').totals.tokens).toBe(5_070);
  });
});

describe("VS Code's ${workspaceFolder}", () => {
  it('is the audited folder in a workspace file; ${input:...} still stops the launch; in a user file it stays unevaluated with a note', async () => {
    const home = fixture();
    home.write(
      join(home.cwd, '.vscode', 'mcp.json'),
      `{\n  // workspace\n  "servers": {\n    "ws": { "command": "node", "args": ["\${workspaceFolder}/ws.js"], "env": { "ROOT": "\${workspaceFolder}", "HOME_DIR": "\${userHome}" } },\n    "asks": { "command": "node", "args": ["asks.js", "\${input:token}"] },\n  },\n}\n`,
    );
    home.write(join(home.home, '.config', 'Code', 'User', 'mcp.json'), { servers: { user: { command: 'node', args: ['${workspaceFolder}/user.js'] }, homed: { command: 'node', args: ['${userHome}/homed.js'] } } });
    const launched: MeasureOptions[] = [];
    const report = await run(home, {}, launched);

    const ws = launched.find((options) => options.name === 'ws')?.launch as LaunchSpec | undefined;
    expect(ws?.args).toEqual([`${home.cwd}/ws.js`]);
    expect(ws?.env).toEqual({ ROOT: home.cwd, HOME_DIR: home.home });
    const wsEntry = entry(report, 'vscode', 'ws');
    expect(wsEntry.unmeasured).toBeUndefined();
    expect(wsEntry.expansions).toEqual([]);
    expect(wsEntry.notes?.join(' ')).toContain('${workspaceFolder}');
    expect(entry(report, 'vscode', 'asks').unmeasured).toMatchObject({ reason: 'unevaluated-expansion', detail: expect.stringContaining('input:token') });
    expect(entry(report, 'vscode', 'user').unmeasured?.reason).toBe('unevaluated-expansion');
    expect(entry(report, 'vscode', 'user').notes?.join(' ')).toContain('the folder the window has open');
    expect((launched.find((options) => options.name === 'homed')?.launch as LaunchSpec | undefined)?.args).toEqual([`${home.home}/homed.js`]);
    expect(launched.map((options) => options.name).sort()).toEqual(['homed', 'ws']);
  });
});
