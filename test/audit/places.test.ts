// Where each client keeps its MCP servers, on each platform, built from the audit roots.
import { describe, expect, it } from 'vitest';
import { clientPlaces, givenPlace } from '../../src/audit/_places.js';
import { CLIENT_IDS, type AuditRoots, type ConfigPlace } from '../../src/audit/_types.js';

const linux: AuditRoots = { home: '/home/ana', cwd: '/home/ana/work/app', platform: 'linux', systemRoot: '/' };
const darwin: AuditRoots = { home: '/Users/ana', cwd: '/Users/ana/work/app', platform: 'darwin', systemRoot: '/' };
const win32: AuditRoots = { home: 'C:\\Users\\ana', cwd: 'C:\\Users\\ana\\work\\app', platform: 'win32', systemRoot: 'C:\\' };

/** `client scope path [key path] format`, one per place, to compare lists at a glance. */
function lines(places: ConfigPlace[]): string[] {
  return places.map((place) => `${place.client} ${place.scope} ${place.path} [${place.serversAt.join(' > ')}] ${place.format}`);
}

describe('clientPlaces', () => {
  it('lists every place on linux, in client then scope order', () => {
    expect(lines(clientPlaces(linux))).toEqual([
      'claude-code user /home/ana/.claude.json [mcpServers] json',
      'claude-code local /home/ana/.claude.json [projects > /home/ana/work/app > mcpServers] json',
      'claude-code project /home/ana/work/app/.mcp.json [mcpServers] json',
      'claude-code managed /etc/claude-code/managed-mcp.json [mcpServers] json',
      'claude-desktop user /home/ana/.config/Claude/claude_desktop_config.json [mcpServers] json',
      'cursor user /home/ana/.cursor/mcp.json [mcpServers] json',
      'cursor project /home/ana/work/app/.cursor/mcp.json [mcpServers] json',
      'vscode user /home/ana/.config/Code/User/mcp.json [servers] jsonc',
      'vscode user /home/ana/.config/Code/User/settings.json [mcp > servers] jsonc',
      'vscode workspace /home/ana/work/app/.vscode/mcp.json [servers] jsonc',
      'windsurf user /home/ana/.codeium/windsurf/mcp_config.json [mcpServers] json',
      'gemini-cli user /home/ana/.gemini/settings.json [mcpServers] json',
      'gemini-cli project /home/ana/work/app/.gemini/settings.json [mcpServers] json',
      'zed user /home/ana/.config/zed/settings.json [context_servers] jsonc',
      'zed project /home/ana/work/app/.zed/settings.json [context_servers] jsonc',
      'goose user /home/ana/.config/goose/config.yaml [extensions] yaml',
      'codex-cli user /home/ana/.codex/config.toml [mcp_servers] toml',
      'kiro user /home/ana/.kiro/settings/mcp.json [mcpServers] json',
      'kiro workspace /home/ana/work/app/.kiro/settings/mcp.json [mcpServers] json',
    ]);
  });

  it('covers every known client, in the order of CLIENT_IDS', () => {
    const clients = [...new Set(clientPlaces(linux).map((place) => place.client))];
    expect(clients).toEqual(CLIENT_IDS.filter((client) => client !== 'custom'));
  });

  it('puts system-wide paths under the system root', () => {
    const managed = (roots: AuditRoots): string | undefined => clientPlaces(roots).find((place) => place.scope === 'managed')?.path;
    expect(managed({ ...linux, systemRoot: '/tmp/sys' })).toBe('/tmp/sys/etc/claude-code/managed-mcp.json');
    expect(managed({ ...darwin, systemRoot: '/tmp/sys' })).toBe('/tmp/sys/Library/Application Support/ClaudeCode/managed-mcp.json');
    expect(managed({ ...win32, systemRoot: 'D:\\' })).toBe('D:\\Program Files\\ClaudeCode\\managed-mcp.json');
  });

  it('uses the macOS folders on darwin', () => {
    const paths = clientPlaces(darwin).map((place) => place.path);
    expect(paths).toContain('/Users/ana/Library/Application Support/Claude/claude_desktop_config.json');
    expect(paths).toContain('/Users/ana/Library/Application Support/Code/User/mcp.json');
    expect(paths).toContain('/Users/ana/Library/Application Support/Code/User/settings.json');
    expect(paths).toContain('/Library/Application Support/ClaudeCode/managed-mcp.json');
    // Zed, Goose and Codex keep the same dot-folders as on linux.
    expect(paths).toContain('/Users/ana/.config/zed/settings.json');
    expect(paths).toContain('/Users/ana/.config/goose/config.yaml');
    expect(paths).toContain('/Users/ana/.codex/config.toml');
    expect(paths).toContain('/Users/ana/.claude.json');
  });

  it('uses %APPDATA% on win32, by default <home>/AppData/Roaming', () => {
    const paths = clientPlaces(win32).map((place) => place.path);
    expect(paths).toContain('C:\\Users\\ana\\AppData\\Roaming\\Claude\\claude_desktop_config.json');
    expect(paths).toContain('C:\\Users\\ana\\AppData\\Roaming\\Code\\User\\mcp.json');
    expect(paths).toContain('C:\\Users\\ana\\AppData\\Roaming\\Code\\User\\settings.json');
    expect(paths).toContain('C:\\Users\\ana\\AppData\\Roaming\\Zed\\settings.json');
    expect(paths).toContain('C:\\Users\\ana\\AppData\\Roaming\\Block\\goose\\config\\config.yaml');
    expect(paths).toContain('C:\\Users\\ana\\.claude.json');
    expect(paths).toContain('C:\\Users\\ana\\.codeium\\windsurf\\mcp_config.json');
    expect(paths).toContain('C:\\Users\\ana\\work\\app\\.vscode\\mcp.json');
    expect(paths).toContain('C:\\Users\\ana\\work\\app\\.kiro\\settings\\mcp.json');
  });

  it('takes a given %APPDATA% over the default', () => {
    const paths = clientPlaces({ ...win32, appData: 'E:\\Roaming' }).map((place) => place.path);
    expect(paths).toContain('E:\\Roaming\\Claude\\claude_desktop_config.json');
    expect(paths).toContain('E:\\Roaming\\Code\\User\\mcp.json');
    expect(paths.some((path) => path.includes('AppData'))).toBe(false);
  });

  it("keys Claude Code's local scope by the cwd exactly as given", () => {
    const roots: AuditRoots = { ...win32, cwd: 'C:/Users/ana/work/app/' };
    const local = clientPlaces(roots).find((place) => place.scope === 'local');
    expect(local?.serversAt).toEqual(['projects', 'C:/Users/ana/work/app/', 'mcpServers']);
  });
});

describe('givenPlace', () => {
  it('takes the format from the extension and leaves the key path to the reader', () => {
    expect(givenPlace('/x/codex.toml')).toEqual({ client: 'custom', scope: 'given', path: '/x/codex.toml', format: 'toml', serversAt: [] });
    expect(givenPlace('/x/config.yaml').format).toBe('yaml');
    expect(givenPlace('/x/CONFIG.YML').format).toBe('yaml');
    expect(givenPlace('/x/mcp.json').format).toBe('jsonc');
    expect(givenPlace('/x/servers').format).toBe('jsonc');
    expect(givenPlace('/x.toml/servers.json').format).toBe('jsonc');
  });
});
