// `mcpctx hook install/uninstall --client claude-code` on a temporary HOME and project folder:
// files with comments and others' hooks keep every other byte, installing twice adds nothing,
// uninstall restores byte for byte (or, after Claude Code changed a file, removes only mcpctx's
// entries), and the hook command written into settings.json runs.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'jsonc-parser';
import { installClaudeCode, uninstallClaudeCode, type InstallOptions } from '../../src/host/claude-code/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { CLI, EXAMPLE_RULES, postToolUseInput, runWithStdin, tempDir } from './_claude-code.js';

const SETTINGS = `{
  // The team's settings: comments and odd spacing must survive.
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Write|Edit",
        "hooks": [ { "type": "command", "command": "npx prettier --write \\"$CLAUDE_FILE\\"" } ]
      }
    ],
    "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ]
  },
  "env": { "MAX_MCP_OUTPUT_TOKENS": "30000" }, // raised once already
}
`;
const CLAUDE_JSON = `{
  "numStartups": 12,
  "mcpServers": {
    "prs": { "type": "stdio", "command": "node", "args": ["server.js", "before"], "env": {} }
  },
  "projects": { "/home/u/x": { "allowedTools": [] } }
}
`;

function places(): { home: string; cwd: string } {
  const home = tempDir('mcpctx-cc-home-');
  const cwd = tempDir('mcpctx-cc-project-');
  return { home, cwd };
}

function options(at: { home: string; cwd: string }, extra: Partial<InstallOptions> = {}): InstallOptions {
  return { scope: 'user', cwd: at.cwd, env: {}, home: at.home, program: { node: process.execPath, main: CLI }, rulesFile: EXAMPLE_RULES, storeDir: join(at.home, 'store'), ...extra };
}

function seedUserFiles(home: string): { settings: string; claudeJson: string } {
  mkdirSync(join(home, '.claude'), { recursive: true });
  const settings = join(home, '.claude', 'settings.json');
  const claudeJson = join(home, '.claude.json');
  writeFileSync(settings, SETTINGS);
  writeFileSync(claudeJson, CLAUDE_JSON, { mode: 0o600 });
  return { settings, claudeJson };
}

type Hooks = { hooks: { PostToolUse: Array<{ matcher: string; hooks: Array<{ type: string; command: string }> }>; Stop: unknown[] }; env: Record<string, string> };

describe('hook install / uninstall --client claude-code', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('user scope: appends to others\' hooks, keeps comments, is idempotent, and uninstall restores every byte', async () => {
    const at = places();
    const { settings, claudeJson } = seedUserFiles(at.home);
    const report = await installClaudeCode(options(at, { maxMcpOutputTokens: 60_000 }));
    expect(report.files.map((file) => [file.file, file.change])).toEqual([
      [settings, 'modified'],
      [claudeJson, 'modified'],
    ]);
    const written = readFileSync(settings, 'utf8');
    expect(written).toContain('// The team\'s settings: comments and odd spacing must survive.');
    expect(written).toContain('// raised once already');
    const parsed = parse(written) as Hooks;
    expect(parsed.hooks.PostToolUse).toHaveLength(2);
    expect(parsed.hooks.PostToolUse[0]!.matcher).toBe('Write|Edit');
    expect(parsed.hooks.PostToolUse[1]).toMatchObject({ matcher: 'mcp__.*', hooks: [{ type: 'command' }] });
    expect(parsed.hooks.PostToolUse[1]!.hooks[0]!.command).toBe(`${process.execPath} ${CLI} hook post-tool-use --store ${join(at.home, 'store')} --rules ${EXAMPLE_RULES}`);
    expect(parsed.hooks.Stop).toHaveLength(1);
    expect(parsed.env.MAX_MCP_OUTPUT_TOKENS).toBe('60000');
    const servers = (parse(readFileSync(claudeJson, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers;
    expect(Object.keys(servers)).toEqual(['prs', 'mcpctx-results']);
    expect(servers['mcpctx-results']).toMatchObject({ command: process.execPath, args: [CLI, 'hook', 'results-server', '--store', join(at.home, 'store'), '--rules', EXAMPLE_RULES] });
    expect(statSync(claudeJson).mode & 0o777).toBe(0o600);
    expect(statSync(report.stateFile).mode & 0o777).toBe(0o600);

    const again = await installClaudeCode(options(at, { maxMcpOutputTokens: 60_000 }));
    expect(again.files.map((file) => file.change)).toEqual(['unchanged', 'unchanged']);
    expect(readFileSync(settings, 'utf8')).toBe(written);

    const undone = uninstallClaudeCode({ scope: 'user', cwd: at.cwd, home: at.home });
    expect(undone.files.map((file) => file.change)).toEqual(['restored', 'restored']);
    expect(readFileSync(settings, 'utf8')).toBe(SETTINGS);
    expect(readFileSync(claudeJson, 'utf8')).toBe(CLAUDE_JSON);
    expect(existsSync(report.stateFile)).toBe(false);
  });

  it('after Claude Code rewrote ~/.claude.json, uninstall keeps its change and removes only mcpctx\'s server and settings entries', async () => {
    const at = places();
    const { settings, claudeJson } = seedUserFiles(at.home);
    await installClaudeCode(options(at, { maxMcpOutputTokens: 60_000 }));
    // Claude Code counts start-ups and adds a project entry; the user adds a hook of their own.
    const rewritten = readFileSync(claudeJson, 'utf8').replace('"numStartups": 12', '"numStartups": 13');
    writeFileSync(claudeJson, rewritten);
    const hooked = JSON.parse(JSON.stringify(parse(readFileSync(settings, 'utf8')))) as Hooks;
    hooked.hooks.PostToolUse[1]!.hooks.push({ type: 'command', command: 'audit-log' });
    writeFileSync(settings, `${JSON.stringify(hooked, null, 2)}\n`);

    const undone = uninstallClaudeCode({ scope: 'user', cwd: at.cwd, home: at.home });
    expect(undone.files.map((file) => file.change)).toEqual(['entries-removed', 'entries-removed']);
    expect(undone.notes.join('\n')).toContain('changed since install');
    const servers = parse(readFileSync(claudeJson, 'utf8')) as { numStartups: number; mcpServers: Record<string, unknown> };
    expect(servers.numStartups).toBe(13);
    expect(Object.keys(servers.mcpServers)).toEqual(['prs']);
    expect(readFileSync(claudeJson, 'utf8')).toBe(CLAUDE_JSON.replace('"numStartups": 12', '"numStartups": 13'));
    const left = parse(readFileSync(settings, 'utf8')) as Hooks;
    expect(left.hooks.PostToolUse.map((group) => group.hooks.map((hook) => hook.command))).toEqual([['npx prettier --write "$CLAUDE_FILE"'], ['audit-log']]);
    expect(left.env.MAX_MCP_OUTPUT_TOKENS).toBe('30000');
  });

  it('project scope on a folder with no files: creates .claude/settings.json and .mcp.json, uninstall removes them', async () => {
    const at = places();
    const report = await installClaudeCode(options(at, { scope: 'project' }));
    const settings = join(at.cwd, '.claude', 'settings.json');
    const mcpJson = join(at.cwd, '.mcp.json');
    expect(report.files.map((file) => [file.file, file.change])).toEqual([
      [settings, 'created'],
      [mcpJson, 'created'],
    ]);
    expect(report.notes.join('\n')).toContain('MAX_MCP_OUTPUT_TOKENS');
    expect(Object.keys((parse(readFileSync(mcpJson, 'utf8')) as { mcpServers: object }).mcpServers)).toEqual(['mcpctx-results']);
    const dry = uninstallClaudeCode({ scope: 'project', cwd: at.cwd, home: at.home, dryRun: true });
    expect(dry.files.map((file) => file.change)).toEqual(['removed', 'removed']);
    expect(existsSync(settings)).toBe(true);
    uninstallClaudeCode({ scope: 'project', cwd: at.cwd, home: at.home });
    expect(existsSync(settings)).toBe(false);
    expect(existsSync(mcpJson)).toBe(false);
  });

  it('a file that is not JSON is refused and left as it is', async () => {
    const at = places();
    mkdirSync(join(at.home, '.claude'), { recursive: true });
    const settings = join(at.home, '.claude', 'settings.json');
    writeFileSync(settings, '{ "hooks": [ }');
    await expect(installClaudeCode(options(at))).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    expect(readFileSync(settings, 'utf8')).toBe('{ "hooks": [ }');
    expect(existsSync(join(at.home, '.claude.json'))).toBe(false);
  });

  it('the built CLI installs with --json, and the hook command it wrote runs on the documented input', async () => {
    const at = places();
    seedUserFiles(at.home);
    const install = await runWithStdin(process.execPath, [CLI, 'hook', 'install', '--client', 'claude-code', '--rules', EXAMPLE_RULES, '--store', join(at.home, 'store'), '--json'], '', { HOME: at.home });
    expect(install.code, install.stderr).toBe(0);
    const report = JSON.parse(install.stdout) as { hookCommand: string; files: Array<{ change: string }> };
    expect(report.files.map((file) => file.change)).toEqual(['modified', 'modified']);
    const command = (parse(readFileSync(join(at.home, '.claude', 'settings.json'), 'utf8')) as Hooks).hooks.PostToolUse[1]!.hooks[0]!.command;
    expect(command).toBe(report.hookCommand);
    // Claude Code runs a command hook through the shell, with the hook input on stdin.
    const rows = Array.from({ length: 400 }, (_, index) => ({ number: index + 1, title: `pull ${index + 1}`, body: 'text '.repeat(40), user: { login: 'u' } }));
    const run = await runWithStdin('/bin/sh', ['-c', command], JSON.stringify(postToolUseInput([{ type: 'text', text: JSON.stringify(rows) }])), { HOME: at.home }, at.cwd);
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout) as { hookSpecificOutput: { updatedMCPToolOutput: Array<{ text: string }> } };
    expect(JSON.parse(answer.hookSpecificOutput.updatedMCPToolOutput[0]!.text)).toHaveProperty('handle');
    const uninstall = await runWithStdin(process.execPath, [CLI, 'hook', 'uninstall', '--client', 'claude-code'], '', { HOME: at.home });
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stdout).toContain('restored');
    expect(readFileSync(join(at.home, '.claude', 'settings.json'), 'utf8')).toBe(SETTINGS);
  }, 60_000);
});
