/** An MCP tool as Claude Code names it to hooks: `mcp__<server>__<tool>`. */
export interface McpToolName {
  readonly server: string;
  readonly tool: string;
}

const PREFIX = 'mcp__';
const SEPARATOR = '__';

/**
 * The server and tool of a Claude Code tool name, or undefined when it is not an MCP tool's.
 * `serverName` (the hook input's `mcp_server.name`, the key in `mcpServers`) settles where the
 * server ends, since a server or tool name may itself hold `__`; Claude Code writes the server
 * into tool names with characters outside [A-Za-z0-9_-] made `_`, so that spelling is tried too.
 * Without it the server ends at the first `__`.
 */
export function mcpToolName(toolName: string, serverName?: string): McpToolName | undefined {
  if (!toolName.startsWith(PREFIX)) return undefined;
  const rest = toolName.slice(PREFIX.length);
  if (serverName !== undefined && serverName !== '') {
    for (const spelling of new Set([serverName, serverName.replace(/[^A-Za-z0-9_-]/g, '_')])) {
      const start = spelling.length + SEPARATOR.length;
      if (rest.startsWith(`${spelling}${SEPARATOR}`) && rest.length > start) return { server: serverName, tool: rest.slice(start) };
    }
  }
  const end = rest.indexOf(SEPARATOR);
  if (end <= 0 || end + SEPARATOR.length >= rest.length) return undefined;
  return { server: rest.slice(0, end), tool: rest.slice(end + SEPARATOR.length) };
}
