// The whole audit on a fixture machine: a home with a config for each of the ten clients (comments,
// trailing commas, disabled entries, url entries, expansions), Claude Code settings, the pinned
// reference servers over stdio and loopback HTTP servers (one walled with 401). Each entry is found
// once, each launch measured once, totals per config and per session exact, and an env canary
// placed in every config and settings file appears in no output.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, type AuditReport } from '../../src/audit/index.js';
import { renderAudit } from '../../src/cli/_audit-render.js';
import { measureServer, type MeasureOptions } from '../../src/measure/index.js';
import { HttpUpstream } from '../support/http-upstream.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { referenceServer } from '../support/real-servers.js';
import { startStreamableToolsServer, type StreamableServer } from '../support/remote-servers.js';

const CANARY = `canary-${randomUUID()}`;
const TEST_MS = 180_000;
/** Tokens of the pinned reference servers (DESIGN.md, and test/measure/real-servers.test.ts). */
const MEMORY = 2_378;
const SEQUENTIAL = 1_003;
const EVERYTHING = 1_708;
const FILESYSTEM = 2_823;

let root = '';
let home = '';
let project = '';
let systemRoot = '';
let tools: StreamableServer;
let wall: HttpUpstream;
let toolsTokens = 0;
let report: AuditReport;
const launches: MeasureOptions[] = [];

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A stdio entry for a reference server; env carries the leak mark and the canary. */
function stdio(name: 'memory' | 'sequential-thinking' | 'everything' | 'filesystem', args: string[] = []): { command: string; args: string[]; env: Record<string, string> } {
  const launch = referenceServer(name, args);
  return { command: launch.command, args: [...(launch.args ?? [])], env: { ...markedEnv(), CANARY_TOKEN: CANARY } };
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mcpctx-audit-machine-'));
  home = join(root, 'home');
  project = join(root, 'project');
  systemRoot = join(root, 'system');
  mkdirSync(project, { recursive: true });
  tools = await startStreamableToolsServer();
  wall = await HttpUpstream.start({ auth: { expected: `Bearer ${CANARY}`, wwwAuthenticate: 'Bearer realm="fixture", resource_metadata="https://auth.example.test/meta"' } });
  const direct = await measureServer({ name: 'tools', launch: { url: tools.url }, runs: 1, timeoutMs: 30_000 });
  toolsTokens = direct.totalTokens ?? -1;

  const memory = stdio('memory');
  // Claude Code: the user map, this project's local map (shadowing a user name), and .mcp.json.
  write(
    join(home, '.claude.json'),
    json({
      numStartups: 3,
      mcpServers: { memory, thinking: { ...stdio('sequential-thinking'), alwaysLoad: true }, 'denied-one': stdio('everything') },
      projects: { [project]: { mcpServers: { thinking: stdio('sequential-thinking') } }, '/elsewhere': { mcpServers: { never: stdio('filesystem', ['/tmp']) } } },
    }),
  );
  write(join(project, '.mcp.json'), json({ mcpServers: { tools: { url: tools.url, headers: { Authorization: `Bearer ${CANARY}` } } } }));
  // The .mcp.json server approved (Claude Code does not load it until it is).
  write(join(home, '.claude', 'settings.json'), json({ env: { ENABLE_TOOL_SEARCH: 'auto:5', SOME_TOKEN: CANARY }, deniedMcpServers: [{ serverName: 'denied-one' }], enabledMcpjsonServers: ['tools'] }));
  // Claude Desktop: one server, one disabled.
  write(join(home, '.config', 'Claude', 'claude_desktop_config.json'), json({ mcpServers: { everything: stdio('everything'), off: { ...stdio('memory'), disabled: true } } }));
  // Cursor: the same memory launch as Claude Code's (measured once), and a project file.
  write(join(home, '.cursor', 'mcp.json'), json({ mcpServers: { 'mem-alias': memory } }));
  write(join(project, '.cursor', 'mcp.json'), json({ mcpServers: { walled: { url: wall.url, headers: { Authorization: '${env:WALL_TOKEN}' } } } }));
  // VS Code: JSON with comments and trailing commas, `servers`.
  write(
    join(project, '.vscode', 'mcp.json'),
    `// workspace servers\n{\n  "servers": {\n    /* the thinking server */\n    "think": { "type": "stdio", "command": ${JSON.stringify(memory.command)}, "args": ${JSON.stringify(stdio('sequential-thinking').args)}, "env": ${JSON.stringify(memory.env)}, },\n  },\n}\n`,
  );
  // Windsurf: serverUrl.
  write(join(home, '.codeium', 'windsurf', 'mcp_config.json'), json({ mcpServers: { tools: { serverUrl: tools.url, headers: { 'X-Api-Key': CANARY } } } }));
  // Gemini CLI: an env expansion (launched without it) and an expansion in args (not launched).
  write(
    join(home, '.gemini', 'settings.json'),
    json({ mcpServers: { thinking: { ...stdio('sequential-thinking'), env: { ...stdio('sequential-thinking').env, API_KEY: '${API_KEY}' } }, pathy: { command: 'node', args: ['${HOME}/server.js'] } } }),
  );
  // Zed: the older command object, with comments.
  const fs = stdio('filesystem', [project]);
  write(join(home, '.config', 'zed', 'settings.json'), `{\n  // editor settings\n  "theme": "One Dark",\n  "context_servers": { "fs": { "command": { "path": ${JSON.stringify(fs.command)}, "args": ${JSON.stringify(fs.args)}, "env": ${JSON.stringify(fs.env)} } } }\n}\n`);
  // Goose: YAML extensions, a builtin and a disabled one.
  write(
    join(home, '.config', 'goose', 'config.yaml'),
    [
      'extensions:',
      '  memory:',
      '    type: stdio',
      '    enabled: true',
      `    cmd: ${JSON.stringify(memory.command)}`,
      `    args: ${JSON.stringify(memory.args)}`,
      `    envs: ${JSON.stringify(memory.env)}`,
      '  developer:',
      '    type: builtin',
      '    enabled: true',
      '  old:',
      '    type: stdio',
      '    enabled: false',
      '    cmd: node',
      '    args: [old.js]',
      '',
    ].join('\n'),
  );
  // Codex CLI: TOML tables.
  const everything = stdio('everything');
  write(
    join(home, '.codex', 'config.toml'),
    [
      'model = "gpt-5"',
      '[mcp_servers.everything]',
      `command = ${JSON.stringify(everything.command)}`,
      `args = ${JSON.stringify(everything.args)}`,
      '[mcp_servers.everything.env]',
      ...Object.entries(everything.env).map(([name, value]) => `${name} = ${JSON.stringify(value)}`),
      '',
    ].join('\n'),
  );
  // Kiro: one server and a disabled one.
  write(join(home, '.kiro', 'settings', 'mcp.json'), json({ mcpServers: { thinking: stdio('sequential-thinking'), off: { ...stdio('everything'), disabled: true } } }));

  report = await audit({
    roots: { home, cwd: project, platform: 'linux', systemRoot },
    shellEnv: {},
    runs: 1,
    timeoutMs: 60_000,
    measureWith: (options) => {
      launches.push(options);
      return measureServer(options);
    },
  });
}, TEST_MS);

afterAll(async () => {
  await tools?.close();
  await wall?.close();
  rmSync(root, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

function entry(client: string, name: string, scope?: string): AuditReport['entries'][number] {
  const found = report.entries.filter((item) => item.client === client && item.name === name && (scope === undefined || item.scope === scope));
  expect(found, `${client} ${name}`).toHaveLength(1);
  return found[0]!;
}

function session(client: string): AuditReport['sessions'][number] {
  const found = report.sessions.filter((item) => item.client === client);
  expect(found, client).toHaveLength(1);
  return found[0]!;
}

function configTokens(client: string, scope: string): number | undefined {
  return report.configs.find((config) => config.client === client && config.scope === scope)?.totals.tokens;
}

describe('audit on a fixture machine with ten clients', () => {
  it('finds every entry exactly once, in every format', () => {
    const found = report.entries.map((item) => `${item.client}/${item.scope}/${item.name}`).sort();
    expect(found).toEqual(
      [
        'claude-code/user/memory',
        'claude-code/user/thinking',
        'claude-code/user/denied-one',
        'claude-code/local/thinking',
        'claude-code/project/tools',
        'claude-desktop/user/everything',
        'claude-desktop/user/off',
        'cursor/user/mem-alias',
        'cursor/project/walled',
        'vscode/workspace/think',
        'windsurf/user/tools',
        'gemini-cli/user/thinking',
        'gemini-cli/user/pathy',
        'zed/user/fs',
        'goose/user/memory',
        'goose/user/developer',
        'goose/user/old',
        'codex-cli/user/everything',
        'kiro/user/thinking',
        'kiro/user/off',
      ].sort(),
    );
    expect(entry('goose', 'developer').transport).toBe('builtin');
    expect(entry('claude-desktop', 'off').disabled).toBe(true);
    expect(entry('goose', 'old').disabled).toBe(true);
    expect(entry('claude-code', 'thinking', 'user').alwaysLoad).toBe(true);
    expect(entry('claude-code', 'thinking', 'local').alwaysLoad).toBe(false);
    expect(entry('gemini-cli', 'pathy').unmeasured?.reason).toBe('unevaluated-expansion');
    expect(entry('gemini-cli', 'thinking').expansions).toEqual([{ where: 'env.API_KEY', variables: ['API_KEY'] }]);
  });

  it('launches each distinct server once, however many configs hold it', () => {
    // memory (claude-code, cursor, goose), thinking (claude-code x2, vscode, gemini without its
    // unevaluated API_KEY, kiro), everything (desktop, codex, denied-one), filesystem, tools
    // (claude-code and windsurf), the wall.
    const keys = launches.map((launch) => ('url' in launch.launch ? launch.launch.url : JSON.stringify([launch.launch.args, launch.launch.env])));
    expect(new Set(keys).size).toBe(keys.length);
    expect(launches).toHaveLength(6);
  });

  it('measures the reference servers and the loopback server exactly, and walls the 401 with its challenge', () => {
    expect(entry('claude-code', 'memory').measurement?.totalTokens).toBe(MEMORY);
    expect(entry('kiro', 'thinking').measurement?.totalTokens).toBe(SEQUENTIAL);
    expect(entry('codex-cli', 'everything').measurement?.totalTokens).toBe(EVERYTHING);
    expect(entry('zed', 'fs').measurement?.totalTokens).toBe(FILESYSTEM);
    expect(entry('windsurf', 'tools').measurement?.totalTokens).toBe(toolsTokens);
    const walled = entry('cursor', 'walled').measurement;
    expect(walled?.status).toBe('remote-auth-wall');
    expect(walled?.note).toContain('401');
    expect(walled?.note).toContain('Bearer realm="fixture"');
  });

  it('totals each config file on its own', () => {
    expect(configTokens('claude-code', 'user')).toBe(MEMORY + SEQUENTIAL + EVERYTHING);
    expect(configTokens('claude-code', 'local')).toBe(SEQUENTIAL);
    expect(configTokens('claude-code', 'project')).toBe(toolsTokens);
    // The disabled entry is not counted.
    expect(configTokens('claude-desktop', 'user')).toBe(EVERYTHING);
    expect(configTokens('goose', 'user')).toBe(MEMORY);
    const cursorProject = report.configs.find((config) => config.client === 'cursor' && config.scope === 'project')?.totals;
    expect(cursorProject).toMatchObject({ tokens: 0, complete: false });
    expect(configTokens('codex-cli', 'user')).toBe(EVERYTHING);
    expect(configTokens('kiro', 'user')).toBe(SEQUENTIAL);
  });

  it('composes the Claude Code session: user + local + project, local shadowing user, the denied server removed', () => {
    const claude = session('claude-code');
    expect(claude.loaded.sort()).toEqual(['memory', 'thinking', 'tools']);
    expect(claude.shadowed).toEqual([expect.objectContaining({ name: 'thinking' })]);
    expect(claude.denied).toEqual([expect.objectContaining({ name: 'denied-one', rule: 'serverName denied-one' })]);
    expect(claude.totals).toMatchObject({ tokens: MEMORY + SEQUENTIAL + toolsTokens, complete: true, alwaysLoadTokens: 0 });
  });

  it('reads ENABLE_TOOL_SEARCH=auto:5 from ~/.claude/settings.json and answers the threshold as a range', () => {
    const deferral = session('claude-code').deferral;
    expect(deferral?.posture).toMatchObject({ posture: 'deferred', thresholdPercent: 5 });
    const total = MEMORY + SEQUENTIAL + toolsTokens;
    expect(deferral?.threshold).toMatchObject({ percent: 5, contextWindow: 200_000, thresholdTokens: 10_000 });
    expect(deferral?.threshold?.lowTokens).toBeLessThan(total);
    expect(deferral?.threshold?.highTokens).toBeGreaterThan(total);
    // The rules that reading applies are the vendor's, cited with their dates.
    expect(deferral?.sources.map((source) => source.address)).toContain('https://code.claude.com/docs/en/mcp#configure-tool-search');
    expect(renderAudit(report, { verbose: true })).toMatch(/rules from: .*code\.claude\.com\/docs\/en\/mcp#configure-tool-search, undated, read \d{4}-\d{2}-\d{2}/);
  });

  it('sums the other clients\' sessions and prints their vendor records', () => {
    expect(session('cursor').totals).toMatchObject({ tokens: MEMORY, complete: false });
    expect(session('cursor').vendor).toHaveProperty('record');
    expect(session('goose').totals).toMatchObject({ tokens: MEMORY, complete: false });
    expect(session('goose').vendor).toHaveProperty('none');
    expect(session('gemini-cli').totals).toMatchObject({ tokens: SEQUENTIAL, complete: false });
  });

  it('lists every place consulted, absent ones too', () => {
    const states = new Map(report.places.map((place) => [`${place.client}/${place.scope}`, place.state.state]));
    expect(states.get('claude-code/managed')).toBe('absent');
    expect(states.get('kiro/workspace')).toBe('absent');
    expect(states.get('zed/user')).toBe('read');
  });

  it('holds the canary nowhere: not in the report, not in the printed tables', () => {
    expect(JSON.stringify(report)).not.toContain('canary-');
    const printed = renderAudit(report, { verbose: true });
    expect(printed).toContain('Per config file');
    expect(renderAudit(report)).not.toContain('canary-');
    expect(printed).not.toContain('canary-');
  });
});
