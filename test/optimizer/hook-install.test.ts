// `mcpctx optimizer install|uninstall --client claude-code` on a temporary HOME and project: the
// compaction hook (SessionStart, matcher "compact") added beside others' hooks with every other
// byte kept (comments, CRLF), once; a dry run that shows the diff and writes nothing; uninstall
// that gives the settings back byte for byte; and `mcpctx hook install` installed beside it, each
// uninstalled in either order.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { installClaudeCode, installCompactionHook, uninstallClaudeCode, uninstallCompactionHook } from '../../src/host/claude-code/index.js';

const PROGRAM = { node: '/usr/local/bin/node', main: '/opt/mcpctx/dist/cli/main.js' };
const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

/** Team settings with comments, a trailing comma, others' hooks (one of them a SessionStart hook) and an env secret. */
const SETTINGS = [
  '{',
  '  // The team\'s settings: comments and odd spacing must survive.',
  '  "permissions": { "allow": ["Bash(npm test)"] },',
  '  "hooks": {',
  '    "SessionStart": [',
  '      { "matcher": "startup", "hooks": [ { "type": "command", "command": "cat NOTES.md" } ] } // team notes',
  '    ],',
  '    "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ]',
  '  },',
  '  "env": { "API_TOKEN": "sk-secret-value-123" }, // keep',
  '}',
  '',
].join('\n');
const SETTINGS_CRLF = SETTINGS.replace(/\n/g, '\r\n');
const NO_HOOKS = '{\r\n\t"model": "opus", /* chosen */\r\n\t"env": {"API_TOKEN": "sk-secret-value-123"}\r\n}\r\n';

function home(settings?: string): { home: string; cwd: string; settings: string } {
  const at = mkdtempSync(join(tmpdir(), 'mcpctx-opt-home-'));
  const cwd = mkdtempSync(join(tmpdir(), 'mcpctx-opt-project-'));
  const file = join(at, '.claude', 'settings.json');
  if (settings !== undefined) {
    mkdirSync(join(at, '.claude'), { recursive: true });
    writeFileSync(file, settings);
  }
  return { home: at, cwd, settings: file };
}

type SessionStartGroups = Array<{ matcher?: string; hooks: Array<{ type: string; command: string }> }>;

function sessionStart(file: string): SessionStartGroups {
  return ((parse(readFileSync(file, 'utf8')) as { hooks?: { SessionStart?: SessionStartGroups } }).hooks?.SessionStart ?? []);
}

describe('optimizer install / uninstall --client claude-code', () => {
  for (const [name, original] of [['LF', SETTINGS], ['CRLF', SETTINGS_CRLF], ['no hooks, tabs, CRLF', NO_HOOKS]] as const) {
    it(`adds the compaction hook beside others', once, and uninstall restores every byte (${name})`, () => {
      const at = home(original);
      const first = installCompactionHook({ scope: 'user', cwd: at.cwd, home: at.home, program: PROGRAM, budget: 2500 });
      expect(first.files[0]?.change).toBe('modified');
      const groups = sessionStart(at.settings);
      const ours = groups.filter((group) => group.matcher === 'compact');
      expect(ours).toEqual([{ matcher: 'compact', hooks: [{ type: 'command', command: '/usr/local/bin/node /opt/mcpctx/dist/cli/main.js optimizer hook --budget 2500' }] }]);
      const after = readFileSync(at.settings, 'utf8');
      // Others' entries and comments kept, line endings kept.
      if (original !== NO_HOOKS) expect(after).toContain('"command": "cat NOTES.md" } ] }, // team notes');
      expect(after.includes('\r\n')).toBe(original.includes('\r\n'));
      if (original.includes('\r\n')) expect(after.replace(/\r\n/g, '')).not.toContain('\n');

      const second = installCompactionHook({ scope: 'user', cwd: at.cwd, home: at.home, program: PROGRAM, budget: 2500 });
      expect(second.files[0]?.change).toBe('unchanged');
      expect(readFileSync(at.settings, 'utf8')).toBe(after);

      const backup = first.files[0]?.backup ?? '';
      expect(readFileSync(backup, 'utf8')).toBe(original);
      const undone = uninstallCompactionHook({ scope: 'user', cwd: at.cwd, home: at.home });
      expect(undone.files[0]?.change).toBe('restored');
      expect(readFileSync(at.settings, 'utf8')).toBe(original);
      expect(existsSync(backup)).toBe(false);
      expect(existsSync(first.stateFile)).toBe(false);
    });
  }

  it('a dry run reports the diff (env values redacted) and writes nothing', () => {
    for (const original of [SETTINGS, NO_HOOKS]) {
      const at = home(original);
      const report = installCompactionHook({ scope: 'user', cwd: at.cwd, home: at.home, program: PROGRAM, dryRun: true });
      const diff = report.files[0]?.diff ?? '';
      expect(diff).toMatch(/^\+.*"matcher": "compact"/m);
      expect(diff).toMatch(/^\+.*optimizer hook/m);
      // NO_HOOKS: the env line is beside the change, in the diff's context.
      if (original === NO_HOOKS) expect(diff).toContain('"API_TOKEN": "<redacted>"');
      expect(diff).not.toContain('sk-secret-value-123');
      expect(readFileSync(at.settings, 'utf8')).toBe(original);
      expect(existsSync(report.stateFile)).toBe(false);
      expect(readdirSync(join(at.home, '.claude'))).toEqual(['settings.json']);
    }
  });

  it('project scope on a folder without settings: creates .claude/settings.json, uninstall removes it', () => {
    const at = home();
    const report = installCompactionHook({ scope: 'project', cwd: at.cwd, home: at.home, program: PROGRAM });
    const file = join(at.cwd, '.claude', 'settings.json');
    expect(report.files[0]).toMatchObject({ file, change: 'created' });
    expect(sessionStart(file)[0]?.matcher).toBe('compact');
    expect(uninstallCompactionHook({ scope: 'project', cwd: at.cwd, home: at.home }).files[0]?.change).toBe('removed');
    expect(existsSync(file)).toBe(false);
  });

  it('after the settings changed, uninstall keeps the change and removes only the compaction hook', () => {
    const at = home(SETTINGS);
    installCompactionHook({ scope: 'user', cwd: at.cwd, home: at.home, program: PROGRAM });
    const changed = readFileSync(at.settings, 'utf8').replace('"Bash(npm test)"', '"Bash(npm test)", "Bash(npm run lint)"');
    writeFileSync(at.settings, changed);
    const undone = uninstallCompactionHook({ scope: 'user', cwd: at.cwd, home: at.home });
    expect(undone.files[0]?.change).toBe('entries-removed');
    expect(readFileSync(at.settings, 'utf8')).toBe(SETTINGS.replace('"Bash(npm test)"', '"Bash(npm test)", "Bash(npm run lint)"'));
  });

  for (const order of [['hook', 'optimizer'], ['optimizer', 'hook']] as const) {
    for (const installedFirst of ['hook', 'optimizer'] as const) {
      it(`coexists with mcpctx hook install: ${installedFirst} installed first, ${order.join(' then ')} uninstalled, settings and ~/.claude.json byte-identical`, async () => {
        const at = home(SETTINGS_CRLF);
        const claudeJson = join(at.home, '.claude.json');
        const claudeJsonText = '{\n  "numStartups": 3,\n  "mcpServers": {}\n}\n';
        writeFileSync(claudeJson, claudeJsonText, { mode: 0o600 });
        const installHook = (): Promise<unknown> => installClaudeCode({ scope: 'user', cwd: at.cwd, env: {}, home: at.home, program: PROGRAM, storeDir: join(at.home, 'store') });
        const installOptimizer = (): unknown => installCompactionHook({ scope: 'user', cwd: at.cwd, home: at.home, program: PROGRAM });
        if (installedFirst === 'hook') {
          await installHook();
          installOptimizer();
        } else {
          installOptimizer();
          await installHook();
        }
        const both = parse(readFileSync(at.settings, 'utf8')) as { hooks: Record<string, SessionStartGroups> };
        expect(both.hooks.PostToolUse?.[0]?.hooks[0]?.command).toMatch(/ hook post-tool-use /);
        expect(both.hooks.SessionStart?.at(-1)?.hooks[0]?.command).toMatch(/ optimizer hook$/);
        for (const which of order) {
          if (which === 'hook') uninstallClaudeCode({ scope: 'user', cwd: at.cwd, home: at.home });
          else uninstallCompactionHook({ scope: 'user', cwd: at.cwd, home: at.home });
        }
        expect(readFileSync(at.settings, 'utf8')).toBe(SETTINGS_CRLF);
        expect(readFileSync(claudeJson, 'utf8')).toBe(claudeJsonText);
        expect(readdirSync(join(at.home, '.claude', 'mcpctx'))).toEqual([]);
      });
    }
  }

  it('the built CLI: --dry-run prints the diff and writes nothing; install then uninstall round-trips', () => {
    const at = home(SETTINGS);
    const run = (args: string[]): { status: number | null; stdout: string; stderr: string } => {
      const result = spawnSync(process.execPath, [CLI, 'optimizer', ...args], { cwd: at.cwd, env: { ...process.env, HOME: at.home }, encoding: 'utf8', timeout: 60_000 });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    };
    const dry = run(['install', '--client', 'claude-code', '--dry-run']);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('(dry run: nothing written)');
    expect(dry.stdout).toMatch(/^\+.*"matcher": "compact"/m);
    expect(dry.stdout).not.toContain('sk-secret-value-123');
    expect(readFileSync(at.settings, 'utf8')).toBe(SETTINGS);
    const installed = run(['install', '--client', 'claude-code', '--json']);
    expect(installed.status, installed.stderr).toBe(0);
    expect((JSON.parse(installed.stdout) as { hookCommand: string }).hookCommand).toBe(`${process.execPath} ${CLI} optimizer hook`);
    // The command written into the settings runs as Claude Code runs it (sh -c, the input on stdin), and never exits 2.
    const command = sessionStart(at.settings).find((group) => group.matcher === 'compact')?.hooks[0]?.command ?? '';
    const hook = (input: object): { status: number | null; stderr: string } => {
      const result = spawnSync('/bin/sh', ['-c', command], { input: JSON.stringify(input), encoding: 'utf8', timeout: 60_000 });
      return { status: result.status, stderr: result.stderr };
    };
    const preCompact = hook({ session_id: 'abc123', transcript_path: '/nonexistent/t.jsonl', cwd: at.cwd, hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' });
    expect(preCompact.status).toBe(0);
    const compact = hook({ session_id: 'abc123', transcript_path: '/nonexistent/t.jsonl', cwd: at.cwd, hook_event_name: 'SessionStart', source: 'compact' });
    expect(compact.status).toBe(3);
    expect(compact.stderr).toMatch(/^mcpctx optimizer hook: nothing was added to the context: cannot read the transcript \/nonexistent\/t\.jsonl/);
    const removed = run(['uninstall', '--client', 'claude-code']);
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(at.settings, 'utf8')).toBe(SETTINGS);
  });
});
