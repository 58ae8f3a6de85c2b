/**
 * What MCP clients write in their config files, as their vendors document them: where the server
 * map sits, which keys name a server's URL, the `${...}` references they expand, and the settings
 * of their own (top-level and per server) that only the client reads. Shared by the audit, which
 * reads client files to measure them, and the gateway, which serves a client file as it is.
 */

/** Where a client file keeps its servers, tried in this order: Claude Code, Claude Desktop, Cursor, Cline, Windsurf, Gemini and Kiro; VS Code's mcp.json; Codex; Zed; Goose; VS Code's settings.json. */
export const SERVER_MAP_PATHS: readonly (readonly string[])[] = [['mcpServers'], ['servers'], ['mcp_servers'], ['context_servers'], ['extensions'], ['mcp', 'servers']];

/** Windsurf `serverUrl`, Gemini `httpUrl` (before its `url`), Goose `uri`, everyone else `url`. */
export const URL_KEYS = ['httpUrl', 'serverUrl', 'url', 'uri'] as const;

/**
 * Top-level keys of client files that are the client's own settings, with the client that writes
 * them (the server maps are not here: they are `SERVER_MAP_PATHS`).
 */
export const CLIENT_TOP_KEYS: Readonly<Record<string, string>> = {
  globalShortcut: 'Claude Desktop',
  preferences: 'Claude Desktop',
  isUsingBuiltInNodeForMcp: 'Claude Desktop',
  inputs: 'VS Code',
  projects: 'Claude Code',
  numStartups: 'Claude Code',
  userID: 'Claude Code',
  oauthAccount: 'Claude Code',
  theme: 'Claude Code',
  autoUpdates: 'Claude Code',
  hasCompletedOnboarding: 'Claude Code',
  tipsHistory: 'Claude Code',
};

/**
 * Per-server keys clients read and a proxy does not need: approval lists, timeouts, tool toggles,
 * debug settings. What each means, for the note that says it is not applied.
 */
export const CLIENT_ENTRY_KEYS: Readonly<Record<string, string>> = {
  autoApprove: "the client's list of tools it runs without asking (Cline, Kiro)",
  alwaysAllow: "the client's list of tools it runs without asking (Roo Code)",
  timeout: "the client's timeout (Cline, Gemini); the gateway's is --request-timeout",
  disabledTools: "the client's tool toggles (Roo Code, Kiro, Windsurf); deny them in the gateway's deny",
  watchPaths: "the client's restart trigger (Roo Code)",
  description: 'a label for people',
  dev: "VS Code's watch and debug settings",
  gallery: "VS Code's gallery record",
  version: "VS Code's gallery version",
  oauth: "Claude Code's OAuth client settings",
  trust: "Gemini's confirmation bypass",
  includeTools: "Gemini's tool filter; use the gateway's allow",
  excludeTools: "Gemini's tool filter; use the gateway's deny",
};

/** A `${...}` reference anywhere in a string; its inside is group 1. */
export const EXPANSION = /\$\{([^}]*)\}/g;

/**
 * The variable a `${...}` reference names and its fallback: `VAR`, `env:VAR` (VS Code, Cursor,
 * Windsurf) and `VAR:-default` (Claude Code). Other forms (`input:ID`, `workspaceFolder`) come
 * back as written, for the reader to tell apart.
 */
export function expansionName(inside: string): { name: string; fallback?: string } {
  let name = inside.trim();
  if (name.startsWith('env:')) name = name.slice('env:'.length);
  const at = name.indexOf(':-');
  return at === -1 ? { name } : { name: name.slice(0, at), fallback: name.slice(at + 2) };
}
