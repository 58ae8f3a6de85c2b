// A fixture home per client: that client's config in its real format (comments where the format
// allows them) holding server-everything, server-filesystem (a temp dir as its root) and
// server-memory (MEMORY_FILE_PATH in a temp dir), each `node <abs>/dist/index.js`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../support/real-servers.js';

export const WRAP_CLIENT_CASES = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'windsurf', 'gemini-cli', 'zed', 'goose', 'codex-cli', 'kiro'] as const;
export type WrapClientCase = (typeof WRAP_CLIENT_CASES)[number];

export interface ClientHome {
  home: string;
  cwd: string;
  /** The file wrap rewrites. */
  file: string;
  scope: string;
}

interface Server {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** `baseEnv`: what every entry's env holds (tests pass markedEnv(), so stray processes are found). */
export function referenceServers(dataDir: string, baseEnv: Record<string, string> = {}, extraEnv: Record<string, string> = {}): Record<string, Server> {
  const node = process.execPath;
  const script = (name: string): string => join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');
  mkdirSync(join(dataDir, 'files'), { recursive: true });
  return {
    everything: { command: node, args: [script('everything')], env: { ...baseEnv, ...extraEnv } },
    filesystem: { command: node, args: [script('filesystem'), join(dataDir, 'files')], env: { ...baseEnv } },
    memory: { command: node, args: [script('memory')], env: { ...baseEnv, MEMORY_FILE_PATH: join(dataDir, 'memory.jsonl') } },
  };
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const q = (value: unknown): string => JSON.stringify(value);

/** `"name": {command, args, env}` lines of a JSON object, indented. */
function jsonServers(servers: Record<string, Server>, indent: string, extra: (name: string) => string = () => ''): string {
  return Object.entries(servers)
    .map(([name, server]) => `${indent}${q(name)}: {${extra(name)} "command": ${q(server.command)}, "args": ${q(server.args)}, "env": ${q(server.env)} }`)
    .join(',\n');
}

/** Writes the client's config under `root` (home and project inside it) and says where it is. */
export function writeClientHome(client: WrapClientCase, root: string, servers: Record<string, Server>): ClientHome {
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const plainJson = (file: string, scope: string, key = 'mcpServers'): ClientHome => {
    write(file, `{\n  ${q(key)}: {\n${jsonServers(servers, '    ')}\n  }\n}\n`);
    return { home, cwd, file, scope };
  };
  switch (client) {
    case 'claude-code': {
      const file = join(home, '.claude.json');
      write(file, `{\n  "numStartups": 4,\n  "mcpServers": {\n${jsonServers(servers, '    ', () => ' "type": "stdio",')}\n  },\n  "projects": {}\n}\n`);
      return { home, cwd, file, scope: 'user' };
    }
    case 'claude-desktop':
      return plainJson(join(home, '.config', 'Claude', 'claude_desktop_config.json'), 'user');
    case 'cursor':
      return plainJson(join(cwd, '.cursor', 'mcp.json'), 'project');
    case 'windsurf':
      return plainJson(join(home, '.codeium', 'windsurf', 'mcp_config.json'), 'user');
    case 'gemini-cli':
      return plainJson(join(home, '.gemini', 'settings.json'), 'user');
    case 'kiro':
      return plainJson(join(home, '.kiro', 'settings', 'mcp.json'), 'user');
    case 'vscode': {
      const file = join(cwd, '.vscode', 'mcp.json');
      write(file, `// workspace MCP servers\n{\n  "servers": {\n    /* reference servers */\n${jsonServers(servers, '    ', () => ' "type": "stdio",')},\n  },\n  "inputs": [],\n}\n`);
      return { home, cwd, file, scope: 'workspace' };
    }
    case 'zed': {
      const file = join(home, '.config', 'zed', 'settings.json');
      write(file, `// Zed settings\n{\n  "theme": "One Dark",\n  // MCP servers\n  "context_servers": {\n${jsonServers(servers, '    ', () => ' "source": "custom",')}\n  }\n}\n`);
      return { home, cwd, file, scope: 'user' };
    }
    case 'goose': {
      const file = join(home, '.config', 'goose', 'config.yaml');
      const lines = ['# Goose config', 'GOOSE_PROVIDER: openai', 'extensions:'];
      for (const [name, server] of Object.entries(servers)) {
        lines.push(`  ${name}:`, '    type: stdio', `    name: ${name}`, '    enabled: true', `    cmd: ${q(server.command)}`, `    args: ${q(server.args)}`, `    envs: ${q(server.env)}`, '    timeout: 300');
      }
      write(file, `${lines.join('\n')}\n`);
      return { home, cwd, file, scope: 'user' };
    }
    case 'codex-cli': {
      const file = join(home, '.codex', 'config.toml');
      const lines = ['# Codex config', 'model = "gpt-5"', ''];
      for (const [name, server] of Object.entries(servers)) {
        lines.push(`# the ${name} server`, `[mcp_servers.${name}]`, `command = ${q(server.command)}`, `args = ${q(server.args)}`, `env = { ${Object.entries(server.env).map(([key, value]) => `${key} = ${q(value)}`).join(', ')} }`, '');
      }
      write(file, lines.join('\n'));
      return { home, cwd, file, scope: 'user' };
    }
  }
}
