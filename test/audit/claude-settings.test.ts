import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSettings, settingsPaths, type ClaudeSettingsSource } from '../../src/audit/_claude-settings.js';
import { deferralPosture } from '../../src/audit/_deferral.js';
import type { AuditPlatform, AuditRoots } from '../../src/audit/_types.js';

const CANARY = 'canary-7f3a9c-secret';

let root: string;
let roots: AuditRoots;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mcpctx-audit-'));
  roots = rootsFor('linux');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function rootsFor(platform: AuditPlatform): AuditRoots {
  return { home: join(root, 'home'), cwd: join(root, 'project'), platform, systemRoot: join(root, 'system') };
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const managedLinux = () => join(root, 'system', 'etc', 'claude-code', 'managed-settings.json');
const dropIns = () => join(root, 'system', 'etc', 'claude-code', 'managed-settings.d');
const localPath = () => join(root, 'project', '.claude', 'settings.local.json');
const projectPath = () => join(root, 'project', '.claude', 'settings.json');
const userPath = () => join(root, 'home', '.claude', 'settings.json');

async function sourceAt(path: string): Promise<ClaudeSettingsSource> {
  const found = (await readSettings(roots)).find((source) => source.path === path);
  if (found === undefined) throw new Error(`no source at ${path}`);
  return found;
}

describe('settingsPaths', () => {
  it.each<[AuditPlatform, string[]]>([
    ['linux', ['etc', 'claude-code']],
    ['darwin', ['Library', 'Application Support', 'ClaudeCode']],
    ['win32', ['Program Files', 'ClaudeCode']],
  ])('lists the %s managed file first, then local, project and user', async (platform, managedDir) => {
    const paths = await settingsPaths(rootsFor(platform));
    expect(paths).toEqual([
      { path: join(root, 'system', ...managedDir, 'managed-settings.json'), tier: 'managed' },
      { path: join(root, 'project', '.claude', 'settings.local.json'), tier: 'local' },
      { path: join(root, 'project', '.claude', 'settings.json'), tier: 'project' },
      { path: join(root, 'home', '.claude', 'settings.json'), tier: 'user' },
    ]);
  });

  it('does not read the legacy %ProgramData% path on Windows', async () => {
    const paths = await settingsPaths(rootsFor('win32'));
    expect(paths.some((place) => place.path.includes('ProgramData'))).toBe(false);
  });

  it('lists the *.json drop-ins beside the managed file, sorted by name, after it', async () => {
    write(join(dropIns(), '20-team.json'), '{}');
    write(join(dropIns(), '10-org.json'), '{}');
    write(join(dropIns(), 'B-upper.json'), '{}');
    write(join(dropIns(), 'notes.txt'), '{}');
    write(join(dropIns(), '.hidden.json'), '{}');
    mkdirSync(join(dropIns(), 'folder.json'));
    const paths = await settingsPaths(roots);
    expect(paths.slice(0, 4)).toEqual([
      { path: managedLinux(), tier: 'managed' },
      { path: join(dropIns(), '10-org.json'), tier: 'managed-drop-in' },
      { path: join(dropIns(), '20-team.json'), tier: 'managed-drop-in' },
      { path: join(dropIns(), 'B-upper.json'), tier: 'managed-drop-in' },
    ]);
    expect(paths[4]?.tier).toBe('local');
  });

  it('finds drop-ins on darwin too, even without a managed file', async () => {
    const dir = join(root, 'system', 'Library', 'Application Support', 'ClaudeCode', 'managed-settings.d');
    write(join(dir, 'a.json'), '{}');
    expect((await settingsPaths(rootsFor('darwin')))[1]).toEqual({ path: join(dir, 'a.json'), tier: 'managed-drop-in' });
  });

  it('treats a file named managed-settings.d as no drop-ins', async () => {
    write(dropIns(), '{}');
    expect((await settingsPaths(roots)).map((place) => place.tier)).toEqual(['managed', 'local', 'project', 'user']);
  });
});

describe('readSettings', () => {
  it('marks every place read, absent or unreadable', async () => {
    write(managedLinux(), '{"env": {"ENABLE_TOOL_SEARCH": "false"}}');
    write(projectPath(), '{"env": ');
    mkdirSync(userPath(), { recursive: true });
    const sources = await readSettings(roots);
    expect(sources.map((source) => [source.tier, source.state.state])).toEqual([
      ['managed', 'read'],
      ['local', 'absent'],
      ['project', 'unreadable'],
      ['user', 'unreadable'],
    ]);
    expect(sources[3]?.state).toEqual({ state: 'unreadable', why: 'not a regular file' });
  });

  it('gives a parse error its 1-based line and column', async () => {
    write(userPath(), '{\n  "env": {\n    "ENABLE_TOOL_SEARCH": "false",\n  }\n}\n');
    expect((await sourceAt(userPath())).state).toEqual({ state: 'unreadable', why: 'JSON parse error: PropertyNameExpected', line: 4, column: 3 });
  });

  it('counts lines ended by \\r\\n once', async () => {
    write(userPath(), '{\r\n"env": {\r\n  "A": tru\r\n}}');
    expect((await sourceAt(userPath())).state).toMatchObject({ state: 'unreadable', line: 3, column: 8 });
  });

  it('reads settings as plain JSON: a comment is a parse error', async () => {
    write(userPath(), '{\n  // keep deferral on\n  "env": {}\n}');
    expect((await sourceAt(userPath())).state).toMatchObject({ state: 'unreadable', why: 'JSON parse error: InvalidCommentToken', line: 2, column: 3 });
  });

  it.each([
    ['[]', 'array'],
    ['"text"', 'string'],
    ['null', 'null'],
    ['3', 'number'],
  ])('refuses a top level of %s', async (text, type) => {
    write(userPath(), text);
    expect((await sourceAt(userPath())).state).toEqual({ state: 'unreadable', why: `the top level is JSON ${type}, not an object` });
  });

  it('refuses an empty file', async () => {
    write(userPath(), '');
    expect((await sourceAt(userPath())).state).toMatchObject({ state: 'unreadable', line: 1, column: 1 });
  });

  it('keeps the deciding variables with their values, and other variables by name only', async () => {
    write(
      userPath(),
      JSON.stringify({
        env: {
          ENABLE_TOOL_SEARCH: 'auto:5',
          CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: false,
          ANTHROPIC_BASE_URL: 42,
          ZED_TOKEN: CANARY,
          ANTHROPIC_API_KEY: CANARY,
          NESTED: { a: CANARY },
        },
      }),
    );
    const source = await sourceAt(userPath());
    expect(source.state).toEqual({ state: 'read' });
    expect(source.env).toEqual({
      ENABLE_TOOL_SEARCH: { kind: 'string', value: 'auto:5' },
      CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: { kind: 'unreadable', jsonType: 'boolean' },
      ANTHROPIC_BASE_URL: { kind: 'unreadable', jsonType: 'number' },
    });
    expect(source.otherEnvNames).toEqual(['ANTHROPIC_API_KEY', 'NESTED', 'ZED_TOKEN']);
    expect(JSON.stringify(source)).not.toContain(CANARY);
  });

  it.each([
    [null, 'null'],
    [{}, 'object'],
    [[], 'array'],
    [1, 'number'],
    [true, 'boolean'],
  ])('names the JSON type of a non-string value (%o)', async (value, jsonType) => {
    write(userPath(), JSON.stringify({ env: { ENABLE_TOOL_SEARCH: value } }));
    expect((await sourceAt(userPath())).env.ENABLE_TOOL_SEARCH).toEqual({ kind: 'unreadable', jsonType });
  });

  it('keeps a file with a non-object env read, sets nothing from it, and says why', async () => {
    write(userPath(), JSON.stringify({ env: ['ENABLE_TOOL_SEARCH=false'] }));
    const source = await sourceAt(userPath());
    expect(source).toMatchObject({ state: { state: 'read' }, env: {}, envProblem: 'env is JSON array, not an object' });
    expect(deferralPosture({}, [source]).posture).toBe('deferred');
  });

  it('leaves env empty and records no problem when a file has no env', async () => {
    write(userPath(), '{"model": "x"}');
    const source = await sourceAt(userPath());
    expect(source.env).toEqual({});
    expect(source.envProblem).toBeUndefined();
    expect(source.allowedMcpServers).toBeUndefined();
    expect(source.allowManagedMcpServersOnly).toBeUndefined();
  });

  it('reads allow and deny rules, and describes the ones it does not recognize', async () => {
    write(
      managedLinux(),
      JSON.stringify({
        allowManagedMcpServersOnly: true,
        allowedMcpServers: [
          { serverName: 'github' },
          { serverCommand: ['npx', '-y', 'pkg'] },
          { serverUrl: 'https://*.example.com/*' },
          'github',
          { serverName: 'a', serverUrl: 'b' },
          { serverCommand: ['npx', 1] },
          { serverCommand: [] },
          { serverName: 5 },
          { serverName: 'x', note: CANARY },
          {},
        ],
        deniedMcpServers: { serverName: 'bad' },
      }),
    );
    const source = await sourceAt(managedLinux());
    expect(source.allowManagedMcpServersOnly).toBe(true);
    expect(source.allowedMcpServers).toEqual([
      { serverName: 'github' },
      { serverCommand: ['npx', '-y', 'pkg'] },
      { serverUrl: 'https://*.example.com/*' },
      { unrecognized: 'an entry is JSON string, not an object' },
      { unrecognized: 'an entry has more than one of serverName, serverUrl' },
      { unrecognized: 'serverCommand is not a non-empty array of strings' },
      { unrecognized: 'serverCommand is not a non-empty array of strings' },
      { unrecognized: 'serverName is JSON number, not a string' },
      { unrecognized: 'an entry has keys besides serverName' },
      { unrecognized: 'an entry has none of serverName, serverCommand, serverUrl' },
    ]);
    expect(source.deniedMcpServers).toEqual([{ unrecognized: 'deniedMcpServers is JSON object, not an array' }]);
    expect(JSON.stringify(source)).not.toContain(CANARY);
  });

  it('marks allowManagedMcpServersOnly unreadable when it is not a boolean', async () => {
    write(userPath(), JSON.stringify({ allowManagedMcpServersOnly: 'true', deniedMcpServers: [] }));
    const source = await sourceAt(userPath());
    expect(source.allowManagedMcpServersOnly).toBe('unreadable');
    expect(source.deniedMcpServers).toEqual([]);
  });
});

describe('readSettings with deferralPosture', () => {
  /** Every env block holds the canary in variables no rule reads, and ANTHROPIC_BASE_URL carries it as credentials. */
  function envBlock(extra: Record<string, unknown>): string {
    return JSON.stringify({ env: { GITHUB_TOKEN: CANARY, ANTHROPIC_AUTH_TOKEN: `Bearer ${CANARY}`, ...extra } });
  }

  it('reads deferral switched off in ~/.claude/settings.json, not only the shell', async () => {
    write(userPath(), envBlock({ ENABLE_TOOL_SEARCH: 'false' }));
    const posture = deferralPosture({ ENABLE_TOOL_SEARCH: 'true' }, await readSettings(roots));
    expect(posture).toMatchObject({ posture: 'up-front', evidence: [{ variable: 'ENABLE_TOOL_SEARCH', source: userPath(), value: 'false' }] });
  });

  it('refuses a conflict between the managed file and a drop-in', async () => {
    write(managedLinux(), envBlock({ ENABLE_TOOL_SEARCH: 'true' }));
    write(join(dropIns(), '50-team.json'), envBlock({ ENABLE_TOOL_SEARCH: 'auto' }));
    write(userPath(), envBlock({ ENABLE_TOOL_SEARCH: 'false' }));
    expect(deferralPosture({}, await readSettings(roots))).toMatchObject({ posture: 'refused', refusal: 'conflict' });
  });

  it('refuses when an unreadable file could decide, answers when it sits below the decider', async () => {
    write(userPath(), '{"env": {"ENABLE_TOOL_SEARCH": "false"');
    expect(deferralPosture({ ENABLE_TOOL_SEARCH: 'auto' }, await readSettings(roots))).toMatchObject({ posture: 'refused', refusal: 'unreadable-settings' });
    write(projectPath(), envBlock({ CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: 'off', ENABLE_TOOL_SEARCH: 'auto' }));
    expect(deferralPosture({}, await readSettings(roots))).toMatchObject({ posture: 'deferred', thresholdPercent: 10 });
  });

  it('keeps every env canary out of the posture and out of the sources but for the deciding values', async () => {
    const baseUrl = `https://user:${CANARY}@gateway.example.com/v1?k=${CANARY}`;
    write(managedLinux(), envBlock({}));
    write(join(dropIns(), '10.json'), envBlock({}));
    write(localPath(), envBlock({}));
    write(projectPath(), envBlock({ ANTHROPIC_BASE_URL: baseUrl }));
    write(userPath(), envBlock({ OPENAI_API_KEY: CANARY }));
    const sources = await readSettings(roots);
    expect(sources.every((source) => source.state.state === 'read')).toBe(true);
    const posture = deferralPosture({ GITHUB_TOKEN: CANARY }, sources);
    expect(posture).toMatchObject({ posture: 'up-front', evidence: [{ variable: 'ANTHROPIC_BASE_URL', source: projectPath(), value: 'gateway.example.com' }] });
    expect(JSON.stringify(posture)).not.toContain(CANARY);
    const withoutValues = sources.map((source) => ({ ...source, env: Object.keys(source.env) }));
    expect(JSON.stringify(withoutValues)).not.toContain(CANARY);
    expect(sources.find((source) => source.tier === 'user')?.otherEnvNames).toEqual(['ANTHROPIC_AUTH_TOKEN', 'GITHUB_TOKEN', 'OPENAI_API_KEY']);
  });
});
