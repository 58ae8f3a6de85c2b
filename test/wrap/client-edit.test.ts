// The client editor `gateway wrap` uses: for each client, a file in its documented format (with
// comments where the format has them) loses the fronted servers and gains the gateway's entry,
// and every byte outside the map, and inside the kept entries, stays as it was.
import { describe, expect, it } from 'vitest';
import type { ClientEdit, GatewayEntry } from '../../src/wrap/_client-edit.js';
import { edited, expectMap, expectOutsideUnchanged, parseAs } from './_client-edit-support.js';

const gateway: GatewayEntry = { name: 'mcpctx-gateway', command: 'npx', args: ['-y', 'mcpctx', 'gateway', 'run', '--config', '/home/me/.config/mcpctx/gateway.json'] };
const plainEntry = { command: gateway.command, args: [...gateway.args] };

describe('Claude Code ~/.claude.json', () => {
  const claudeJson = `{
  "numStartups": 42,
  "installMethod": "npm-global",
  "autoUpdates": true,
  "tipsHistory": {
    "memory-command": 3
  },
  "mcpServers": {
    "everything": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"],
      "env": {}
    }
  },
  "projects": {
    "/home/me/other": {
      "allowedTools": [],
      "mcpServers": {
        "other-only": { "type": "stdio", "command": "other", "args": [] }
      }
    },
    "/home/me/app": {
      "allowedTools": ["Bash(npm test)"],
      "history": [{ "display": "fix the build", "pastedContents": {} }],
      "mcpServers": {
        "filesystem": {
          "type": "stdio",
          "command": "npx",
          "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/app"],
          "env": {}
        },
        "memory": {
          "type": "stdio",
          "command": "npx",
          "args": ["-y", "@modelcontextprotocol/server-memory"],
          "env": { "MEMORY_FILE_PATH": "/home/me/.memory.json" }
        },
        "linear": {
          "type": "http",
          "url": "https://mcp.linear.app/mcp"
        }
      },
      "disabledMcpServers": ["linear"],
      "enabledMcpjsonServers": [],
      "hasTrustDialogAccepted": true
    }
  },
  "userID": "0f3c"
}
`;

  it('edits projects[cwd].mcpServers and nothing else', () => {
    const edit: ClientEdit = { client: 'claude-code', format: 'json', serversAt: ['projects', '/home/me/app', 'mcpServers'], remove: ['filesystem', 'memory'], add: gateway };
    const after = edited(claudeJson, edit);
    expectMap(after, 'json', edit.serversAt, parseAs(claudeJson, 'json'), ['linear'], { name: gateway.name, value: { type: 'stdio', ...plainEntry, env: {} } });
    expectOutsideUnchanged(claudeJson, after, '"history": [{ "display": "fix the build", "pastedContents": {} }],\n      "mcpServers": {', '\n      },\n      "disabledMcpServers"');
    // The user-scope map and the other project are untouched: the whole document but the map is equal.
    const before = parseAs(claudeJson, 'json') as { projects: Record<string, { mcpServers: unknown }> };
    const now = parseAs(after, 'json') as typeof before;
    now.projects['/home/me/app']!.mcpServers = before.projects['/home/me/app']!.mcpServers;
    expect(now).toEqual(before);
    expect(after).toContain('        "linear": {\n          "type": "http",\n          "url": "https://mcp.linear.app/mcp"\n        },\n        "mcpctx-gateway": {\n          "type": "stdio",\n');
  });

  it('edits the user-scope map at the top', () => {
    const edit: ClientEdit = { client: 'claude-code', format: 'json', serversAt: ['mcpServers'], remove: ['everything'], add: gateway };
    const after = edited(claudeJson, edit);
    expectMap(after, 'json', edit.serversAt, parseAs(claudeJson, 'json'), [], { name: gateway.name, value: { type: 'stdio', ...plainEntry, env: {} } });
    expectOutsideUnchanged(claudeJson, after, '"mcpServers": {', '\n  },\n  "projects"');
    expect(after).toContain('  "mcpServers": {\n    "mcpctx-gateway": {\n      "type": "stdio",\n      "command": "npx",\n      "args": [\n        "-y",\n');
  });

  it('writes projects[cwd].mcpServers when the project has none yet (nothing to remove)', () => {
    const edit: ClientEdit = { client: 'claude-code', format: 'json', serversAt: ['projects', '/home/me/new', 'mcpServers'], remove: [], add: gateway };
    const after = edited(claudeJson, edit);
    const map = (parseAs(after, 'json') as { projects: Record<string, { mcpServers: Record<string, unknown> }> }).projects['/home/me/new']!.mcpServers;
    expect(map).toEqual({ [gateway.name]: { type: 'stdio', ...plainEntry, env: {} } });
    expectOutsideUnchanged(claudeJson, after, '"hasTrustDialogAccepted": true\n    }', '\n  },\n  "userID"');
  });
});

describe('Claude Desktop claude_desktop_config.json', () => {
  const desktop = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "C:\\\\Users\\\\me\\\\Desktop"]
    },
    "weather": {
      "command": "uv",
      "args": ["--directory", "C:\\\\weather", "run", "weather.py"]
    },
    "memory": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-memory"]
    }
  }
}`;

  it('removes the first and last entries, keeps the middle one, keeps the missing final newline', () => {
    const edit: ClientEdit = { client: 'claude-desktop', format: 'json', serversAt: ['mcpServers'], remove: ['filesystem', 'memory'], add: gateway };
    const after = edited(desktop, edit);
    expectMap(after, 'json', edit.serversAt, parseAs(desktop, 'json'), ['weather'], { name: gateway.name, value: plainEntry });
    expectOutsideUnchanged(desktop, after, '"mcpServers": {', '\n  }\n}');
    expect(after.endsWith('  }\n}')).toBe(true);
    expect(after).toContain('    "weather": {\n      "command": "uv",\n      "args": ["--directory", "C:\\\\weather", "run", "weather.py"]\n    },\n    "mcpctx-gateway": {');
  });
});

describe('Cursor mcp.json', () => {
  const cursor = `{
  "mcpServers": {
    "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] },
    "postgres": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/db"], "disabled": true },
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": { "MEMORY_FILE_PATH": "/tmp/m.json" } }
  }
}
`;

  it('keeps a disabled entry, removes the others', () => {
    const edit: ClientEdit = { client: 'cursor', format: 'json', serversAt: ['mcpServers'], remove: ['everything', 'memory'], add: gateway };
    const after = edited(cursor, edit);
    expectMap(after, 'json', edit.serversAt, parseAs(cursor, 'json'), ['postgres'], { name: gateway.name, value: plainEntry });
    expectOutsideUnchanged(cursor, after, '"mcpServers": {', '\n  }\n}\n');
    expect(after).not.toContain('server-memory');
  });
});

describe('VS Code (JSONC)', () => {
  const mcpJson = `{
\t// Servers for this workspace. See https://code.visualstudio.com/docs/copilot/chat/mcp-servers
\t"inputs": [
\t\t{ "type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true }
\t],
\t"servers": {
\t\t/* The filesystem server, scoped to the workspace */
\t\t"filesystem": {
\t\t\t"type": "stdio",
\t\t\t"command": "npx",
\t\t\t// the folder it may read
\t\t\t"args": ["-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}"],
\t\t},
\t\t"github": {
\t\t\t"type": "http",
\t\t\t"url": "https://api.githubcopilot.com/mcp/", // remote, kept
\t\t\t"headers": { "Authorization": "Bearer \${input:gh-token}" },
\t\t},
\t\t"memory": {
\t\t\t"type": "stdio",
\t\t\t"command": "npx",
\t\t\t"args": ["-y", "@modelcontextprotocol/server-memory"], // memory across chats
\t\t}, // end of memory
\t},
}
`;

  it('keeps comments and trailing commas of mcp.json, drops comments inside removed entries', () => {
    const edit: ClientEdit = { client: 'vscode', format: 'jsonc', serversAt: ['servers'], remove: ['filesystem', 'memory'], add: gateway };
    const after = edited(mcpJson, edit);
    expectMap(after, 'jsonc', edit.serversAt, parseAs(mcpJson, 'jsonc'), ['github'], { name: gateway.name, value: { type: 'stdio', ...plainEntry } });
    expectOutsideUnchanged(mcpJson, after, '"servers": {', '\n\t},\n}\n');
    // The comment just above a removed entry stays (see _edit-json.ts); those inside it go.
    expect(after).toContain('/* The filesystem server, scoped to the workspace */');
    expect(after).not.toContain('the folder it may read');
    expect(after).not.toContain('memory across chats');
    expect(after).not.toContain('end of memory');
    expect(after).toContain('\t\t"github": {\n\t\t\t"type": "http",\n\t\t\t"url": "https://api.githubcopilot.com/mcp/", // remote, kept\n');
    // Tabs, and a trailing comma as the map had.
    expect(after).toContain('\t\t"mcpctx-gateway": {\n\t\t\t"type": "stdio",\n\t\t\t"command": "npx",\n\t\t\t"args": [\n\t\t\t\t"-y",');
    expect(after).toMatch(/\t\t\]\n\t\t},\n\t},\n}\n$/);
  });

  it('edits mcp.servers inside settings.json', () => {
    const settings = `{
    "editor.fontSize": 14,
    // MCP servers for every workspace
    "mcp": {
        "servers": {
            "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }
        }
    },
    "workbench.colorTheme": "Default Dark Modern"
}
`;
    const edit: ClientEdit = { client: 'vscode', format: 'jsonc', serversAt: ['mcp', 'servers'], remove: ['memory'], add: gateway };
    const after = edited(settings, edit);
    expectMap(after, 'jsonc', edit.serversAt, parseAs(settings, 'jsonc'), [], { name: gateway.name, value: { type: 'stdio', ...plainEntry } });
    expectOutsideUnchanged(settings, after, '"servers": {', '\n        }\n    },\n    "workbench');
    expect(after).toContain('        "servers": {\n            "mcpctx-gateway": {\n                "type": "stdio",');
  });
});

describe('Windsurf mcp_config.json', () => {
  const windsurf = `{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "<token>" },
      "disabled": true
    },
    "everything": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"],
      "disabledTools": ["longRunningOperation"]
    }
  }
}
`;

  it('removes the last entry, keeps the disabled first one', () => {
    const edit: ClientEdit = { client: 'windsurf', format: 'json', serversAt: ['mcpServers'], remove: ['everything'], add: gateway };
    const after = edited(windsurf, edit);
    expectMap(after, 'json', edit.serversAt, parseAs(windsurf, 'json'), ['github'], { name: gateway.name, value: plainEntry });
    expectOutsideUnchanged(windsurf, after, '"mcpServers": {', '\n  }\n}\n');
    expect(after).toContain('      "disabled": true\n    },\n    "mcpctx-gateway": {\n      "command": "npx",');
  });
});

describe('Gemini CLI settings.json', () => {
  const gemini = `{
  "theme": "GitHub",
  "selectedAuthType": "oauth-personal",
  "mcpServers": {
    "memory": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-memory"],
      "timeout": 30000,
      "trust": false
    },
    "everything": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"],
      "excludeTools": ["longRunningOperation"]
    }
  },
  "mcp": {
    "excluded": ["everything"]
  }
}
`;

  it('keeps the mcp section after the map', () => {
    const edit: ClientEdit = { client: 'gemini-cli', format: 'json', serversAt: ['mcpServers'], remove: ['memory', 'everything'], add: gateway };
    const after = edited(gemini, edit);
    expectMap(after, 'json', edit.serversAt, parseAs(gemini, 'json'), [], { name: gateway.name, value: plainEntry });
    expectOutsideUnchanged(gemini, after, '"mcpServers": {', '\n  },\n  "mcp": {');
  });
});

describe('Zed settings.json (JSONC)', () => {
  const zed = `// Zed settings
//
// For information on how to configure Zed, see the Zed
// documentation: https://zed.dev/docs/configuring-zed
{
  "ui_font_size": 16,
  "buffer_font_size": 15,
  "context_servers": {
    // From the extension store
    "mcp-server-context7": {
      "source": "extension",
      "enabled": true,
      "settings": {}
    },
    "filesystem": {
      "source": "custom",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/app"],
      "env": {}
    },
    "memory": {
      "source": "custom",
      "enabled": false,
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-memory"],
      "env": {}
    }
  },
  "theme": {
    "mode": "system",
    "light": "One Light",
    "dark": "One Dark"
  }
}
`;

  it('removes a custom server between the kept extension and the disabled one', () => {
    const edit: ClientEdit = { client: 'zed', format: 'jsonc', serversAt: ['context_servers'], remove: ['filesystem'], add: gateway };
    const after = edited(zed, edit);
    expectMap(after, 'jsonc', edit.serversAt, parseAs(zed, 'jsonc'), ['mcp-server-context7', 'memory'], { name: gateway.name, value: { source: 'custom', ...plainEntry, env: {} } });
    expectOutsideUnchanged(zed, after, '"context_servers": {', '\n  },\n  "theme"');
    expect(after).toContain('    // From the extension store\n    "mcp-server-context7": {');
    expect(after).toContain('      "env": {}\n    },\n    "mcpctx-gateway": {\n      "source": "custom",');
  });
});

describe('Goose config.yaml', () => {
  const goose = `# goose configuration
GOOSE_PROVIDER: anthropic
GOOSE_MODEL: claude-sonnet-4-5
extensions:
  developer:
    bundled: true
    display_name: Developer
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  # the memory server
  memory:
    args:
    - -y
    - '@modelcontextprotocol/server-memory'
    # stored next to the config
    cmd: npx
    enabled: true
    envs: {}
    name: memory
    timeout: 300
    type: stdio

  everything:
    args: [-y, '@modelcontextprotocol/server-everything']
    cmd: npx
    enabled: false
    envs: {}
    name: everything
    timeout: 300
    type: stdio
GOOSE_MODE: smart_approve
`;

  it('removes a block entry with its inner comment, keeps the disabled one and the builtin', () => {
    const edit: ClientEdit = { client: 'goose', format: 'yaml', serversAt: ['extensions'], remove: ['memory'], add: gateway };
    const after = edited(goose, edit);
    const value = { name: gateway.name, type: 'stdio', cmd: gateway.command, args: [...gateway.args], enabled: true, envs: {}, timeout: 300 };
    expectMap(after, 'yaml', edit.serversAt, parseAs(goose, 'yaml'), ['developer', 'everything'], { name: gateway.name, value });
    expectOutsideUnchanged(goose, after, 'extensions:\n', 'GOOSE_MODE: smart_approve\n');
    // The comment right above a removed entry's key is the entry's (see _edit-yaml.ts).
    expect(after).not.toContain('the memory server');
    expect(after).not.toContain('stored next to the config');
    expect(after).toContain("    args: [-y, '@modelcontextprotocol/server-everything']\n");
    expect(after).toContain('    type: stdio\n  mcpctx-gateway:\n    name: mcpctx-gateway\n    type: stdio\n    cmd: npx\n    args: ["-y", mcpctx, gateway, run, "--config", /home/me/.config/mcpctx/gateway.json]\n');
  });

  it('fills `extensions: {}` (what Goose writes when there are none)', () => {
    const empty = 'GOOSE_PROVIDER: openai\nextensions: {}\nGOOSE_MODE: auto\n';
    const after = edited(empty, { client: 'goose', format: 'yaml', serversAt: ['extensions'], remove: [], add: gateway });
    expect(after.startsWith('GOOSE_PROVIDER: openai\nextensions:\n  mcpctx-gateway:\n    name: mcpctx-gateway\n')).toBe(true);
    expect(after.endsWith('    timeout: 300\nGOOSE_MODE: auto\n')).toBe(true);
  });
});

describe('Codex config.toml', () => {
  const codex = `# Codex configuration
model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.everything]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]

# The memory server keeps notes across sessions.
[mcp_servers.memory]
command = "npx"
args = [
  "-y",
  "@modelcontextprotocol/server-memory", # the package
]
startup_timeout_sec = 20
# enabled = false

[mcp_servers.memory.env]
MEMORY_FILE_PATH = "/home/me/.codex/memory.json"

[mcp_servers."docs site"]
url = "https://docs.example.com/mcp"
enabled = false

[tui]
notifications = true
`;

  it('removes a server with its sub-table, keeps the quoted-name one, adds a table after the map', () => {
    const edit: ClientEdit = { client: 'codex-cli', format: 'toml', serversAt: ['mcp_servers'], remove: ['memory', 'everything'], add: gateway };
    const after = edited(codex, edit);
    expectMap(after, 'toml', edit.serversAt, parseAs(codex, 'toml'), ['docs site'], { name: gateway.name, value: plainEntry });
    expectOutsideUnchanged(codex, after, 'approval_policy = "on-request"\n', '\n[tui]\nnotifications = true\n');
    expect(after).not.toContain('MEMORY_FILE_PATH');
    expect(after).not.toContain('enabled = false\n\n[mcp_servers.memory.env]');
    // The comment right above a removed table's header is that table's (see _edit-toml.ts).
    expect(after).not.toContain('# The memory server keeps notes');
    expect(after).toContain('[mcp_servers."docs site"]\nurl = "https://docs.example.com/mcp"\nenabled = false\n\n[mcp_servers.mcpctx-gateway]\ncommand = "npx"\nargs = ["-y", "mcpctx", "gateway", "run", "--config", "/home/me/.config/mcpctx/gateway.json"]\n\n[tui]\n');
  });
});

describe('Kiro mcp.json', () => {
  const kiro = `{
  "mcpServers": {
    "fetch": {
      "command": "uvx",
      "args": ["mcp-server-fetch"],
      "env": {},
      "disabled": false,
      "autoApprove": ["fetch"]
    },
    "aws-docs": {
      "command": "uvx",
      "args": ["awslabs.aws-documentation-mcp-server@latest"],
      "env": { "FASTMCP_LOG_LEVEL": "ERROR" },
      "disabled": true,
      "autoApprove": []
    }
  }
}
`;

  it('keeps the disabled entry after the removed one', () => {
    const edit: ClientEdit = { client: 'kiro', format: 'json', serversAt: ['mcpServers'], remove: ['fetch'], add: gateway };
    const after = edited(kiro, edit);
    expectMap(after, 'json', edit.serversAt, parseAs(kiro, 'json'), ['aws-docs'], { name: gateway.name, value: plainEntry });
    expectOutsideUnchanged(kiro, after, '"mcpServers": {', '\n  }\n}\n');
    expect(after).toContain('      "autoApprove": []\n    },\n    "mcpctx-gateway": {');
  });
});

describe('a file of no known client (custom)', () => {
  it('uses the plain command/args shape', () => {
    const custom = '{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}\n';
    const after = edited(custom, { client: 'custom', format: 'jsonc', serversAt: ['mcpServers'], remove: ['a'], add: gateway });
    expect(parseAs(after, 'jsonc')).toEqual({ mcpServers: { b: { command: 'b' }, [gateway.name]: plainEntry } });
    expect(after.endsWith('}}\n')).toBe(true);
  });
});
