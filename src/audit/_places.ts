import { posix, win32 } from 'node:path';
import { type AuditRoots, type ClientId, type ConfigFormat, type ConfigPlace } from './_types.js';

/**
 * Where each client keeps its MCP servers, per platform, as the vendors document them. Every path
 * is built from `AuditRoots`, so a test can point home, cwd and the system root at a temp folder.
 */

/** Every place, in the order of CLIENT_IDS and, within a client, user, local, project/workspace, managed. */
export function clientPlaces(roots: AuditRoots): ConfigPlace[] {
  const join = roots.platform === 'win32' ? win32.join : posix.join;
  const { home, cwd, platform } = roots;
  const appData = roots.appData ?? join(home, 'AppData', 'Roaming');
  const places: ConfigPlace[] = [];
  const add = (client: ClientId, scope: string, path: string, serversAt: readonly string[], format: ConfigFormat = 'json', extra: Partial<ConfigPlace> = {}): ConfigPlace => {
    const place: ConfigPlace = { client, scope, path, format, serversAt, ...extra };
    places.push(place);
    return place;
  };

  // Claude Code: ~/.claude.json holds user servers at the top and per-project ("local") servers
  // under projects.<cwd>; the project's .mcp.json is shared; managed-mcp.json is set by an admin.
  const claudeJson = join(home, '.claude.json');
  add('claude-code', 'user', claudeJson, ['mcpServers']);
  // Beside them, what /mcp and the .mcp.json approval prompt write for this project (_client-switches.ts).
  add('claude-code', 'local', claudeJson, ['projects', cwd, 'mcpServers'], 'json', {
    switchPaths: [['disabledMcpServers'], ['disabledMcpjsonServers'], ['enabledMcpjsonServers'], ['enableAllProjectMcpServers']],
  });
  add('claude-code', 'project', join(cwd, '.mcp.json'), ['mcpServers']);
  add('claude-code', 'managed', managedMcpPath(roots, join), ['mcpServers']);

  const desktopFolder =
    platform === 'win32' ? join(appData, 'Claude')
    : platform === 'darwin' ? join(home, 'Library', 'Application Support', 'Claude')
    : join(home, '.config', 'Claude');
  add('claude-desktop', 'user', join(desktopFolder, 'claude_desktop_config.json'), ['mcpServers']);

  add('cursor', 'user', join(home, '.cursor', 'mcp.json'), ['mcpServers']);
  add('cursor', 'project', join(cwd, '.cursor', 'mcp.json'), ['mcpServers']);

  const codeUser =
    platform === 'win32' ? join(appData, 'Code', 'User')
    : platform === 'darwin' ? join(home, 'Library', 'Application Support', 'Code', 'User')
    : join(home, '.config', 'Code', 'User');
  // VS Code substitutes its predefined variables in MCP entries ("You can use predefined variables
  // in the server configuration, for example to refer to the workspace folder (${workspaceFolder})":
  // code.visualstudio.com/docs/copilot/reference/mcp-configuration, read 2026-12-05; the names are
  // its variables reference's). In a workspace file ${workspaceFolder} is the folder audited; in a
  // user file it is whatever folder the window has open, so it stays unevaluated there.
  const separator = platform === 'win32' ? '\\' : '/';
  const userVariables = { userHome: home, pathSeparator: separator, '/': separator };
  const workspaceVariables = { ...userVariables, workspaceFolder: cwd, workspaceFolderBasename: (platform === 'win32' ? win32 : posix).basename(cwd) };
  add('vscode', 'user', join(codeUser, 'mcp.json'), ['servers'], 'jsonc', { substitutes: userVariables });
  add('vscode', 'user', join(codeUser, 'settings.json'), ['mcp', 'servers'], 'jsonc', { substitutes: userVariables });
  add('vscode', 'workspace', join(cwd, '.vscode', 'mcp.json'), ['servers'], 'jsonc', { substitutes: workspaceVariables });

  add('windsurf', 'user', join(home, '.codeium', 'windsurf', 'mcp_config.json'), ['mcpServers']);

  // Gemini CLI resolves $VAR as well as ${VAR} in every string of its settings (packages/cli/src/
  // utils/envVarResolver.ts at google-gemini/gemini-cli 5411f11, read 2026-12-05).
  const gemini = { bareDollarVariables: true, switchPaths: [['mcp', 'excluded'], ['mcp', 'allowed']] };
  add('gemini-cli', 'user', join(home, '.gemini', 'settings.json'), ['mcpServers'], 'json', gemini);
  add('gemini-cli', 'project', join(cwd, '.gemini', 'settings.json'), ['mcpServers'], 'json', gemini);

  const zedUser = platform === 'win32' ? join(appData, 'Zed', 'settings.json') : join(home, '.config', 'zed', 'settings.json');
  add('zed', 'user', zedUser, ['context_servers'], 'jsonc');
  add('zed', 'project', join(cwd, '.zed', 'settings.json'), ['context_servers'], 'jsonc');

  const gooseConfig =
    platform === 'win32' ? join(appData, 'Block', 'goose', 'config', 'config.yaml') : join(home, '.config', 'goose', 'config.yaml');
  add('goose', 'user', gooseConfig, ['extensions'], 'yaml');

  add('codex-cli', 'user', join(home, '.codex', 'config.toml'), ['mcp_servers'], 'toml');

  add('kiro', 'user', join(home, '.kiro', 'settings', 'mcp.json'), ['mcpServers']);
  add('kiro', 'workspace', join(cwd, '.kiro', 'settings', 'mcp.json'), ['mcpServers']);

  return places;
}

/** Claude Code's admin-deployed MCP file, under the system root. */
function managedMcpPath(roots: AuditRoots, join: (...parts: string[]) => string): string {
  switch (roots.platform) {
    case 'win32':
      return join(roots.systemRoot, 'Program Files', 'ClaudeCode', 'managed-mcp.json');
    case 'darwin':
      return join(roots.systemRoot, 'Library', 'Application Support', 'ClaudeCode', 'managed-mcp.json');
    case 'linux':
      return join(roots.systemRoot, 'etc', 'claude-code', 'managed-mcp.json');
  }
}

/**
 * A file given with `--config PATH`. Which client reads it cannot be known, so its format comes
 * from the extension and `serversAt` is empty: the reader looks for the servers under the keys
 * the known clients use.
 */
export function givenPlace(path: string): ConfigPlace {
  return { client: 'custom', scope: 'given', path, format: formatOf(path), serversAt: [] };
}

function formatOf(path: string): ConfigFormat {
  const lower = path.toLowerCase();
  if (lower.endsWith('.toml')) return 'toml';
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  return 'jsonc';
}
