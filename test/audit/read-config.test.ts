// Reading client configs: every entry of every client's format found once, with what it launches;
// broken files refused with where; env and header values never outside launchEnv.
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientPlaces, givenPlace } from '../../src/audit/_places.js';
import { MAX_CONFIG_BYTES, readPlace, readPlaces } from '../../src/audit/_read-config.js';
import type { AuditRoots, ConfigEntry, ConfigPlace, PlaceReport } from '../../src/audit/_types.js';

const CANARY = 'canary-7f3a9c-secret';

let scratch = '';
let roots: AuditRoots;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'mcpctx-audit-'));
  roots = { home: join(scratch, 'home'), cwd: join(scratch, 'work', 'app'), platform: 'linux', systemRoot: join(scratch, 'root') };
});
afterEach(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function place(client: string, scope: string): ConfigPlace {
  const found = clientPlaces(roots).find((candidate) => candidate.client === client && candidate.scope === scope);
  if (found === undefined) throw new Error(`no place ${client} ${scope}`);
  return found;
}

/** Everything returned, with the one field allowed to hold values taken out. */
function withoutLaunchEnv(reports: PlaceReport[]): unknown {
  return reports.map((report) => ({ ...report, entries: report.entries.map(({ launchEnv: _launchEnv, ...rest }) => rest) }));
}

/** One home with every client's config, written the way each client writes it. */
function writeFixtureHome(): void {
  const { home, cwd, systemRoot } = roots;
  write(
    join(home, '.claude.json'),
    `{
  // Claude Code writes plain JSON; a hand edit may leave a comment or a trailing comma.
  "numStartups": 12,
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_TOKEN": "${CANARY}", "FROM_SHELL": "\${GH_TOKEN}", "LOG": "debug" },
      "alwaysLoad": true
    },
    "linear": {
      "type": "http",
      "url": "https://mcp.linear.app/mcp",
      "headers": { "Authorization": "Bearer \${env:LINEAR_KEY}", "X-Static": "${CANARY}" },
    },
  },
  "projects": {
    ${JSON.stringify(cwd)}: {
      "mcpServers": { "local-db": { "command": "node", "args": ["db.js", "--root=\${PROJECT_ROOT}"], "disabled": true } }
    },
    "/somewhere/else": { "mcpServers": { "elsewhere": { "command": "never-read" } } }
  }
}`,
  );
  write(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: { shared: { command: 'uvx', args: ['mcp-server-fetch'], env: { FETCH_KEY: CANARY } } } }));
  write(join(systemRoot, 'etc', 'claude-code', 'managed-mcp.json'), JSON.stringify({ mcpServers: { corp: { type: 'sse', url: 'https://corp.example/sse' } } }));
  write(
    join(home, '.config', 'Claude', 'claude_desktop_config.json'),
    JSON.stringify({
      mcpServers: {
        filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/ana'], env: { DEBUG: 1, KEY: CANARY } },
        notAnObject: 'npx server',
        nothing: { env: { KEY: CANARY, COUNT: 3 } },
        badArgs: { command: 'node', args: ['ok', 7] },
      },
    }),
  );
  write(join(home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { 'cursor-remote': { url: 'https://cursor.example/mcp', headers: { 'X-Key': CANARY } } } }));
  write(join(cwd, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { 'cursor-proj': { command: './bin/server', env: { TOKEN: `\${env:CURSOR_TOKEN}` } } } }));
  write(
    join(home, '.config', 'Code', 'User', 'mcp.json'),
    `// VS Code's user mcp.json is JSON with comments
{
  "servers": {
    "vs-user": { "type": "stdio", "command": "node", "args": ["server.js"], "env": { "TOKEN": "\${input:vs-token}", "PLAIN": "${CANARY}" } },
  },
  "inputs": [],
}`,
  );
  write(
    join(home, '.config', 'Code', 'User', 'settings.json'),
    `{
  "editor.fontSize": 13, /* a block comment */
  "mcp": { "servers": { "vs-settings": { "type": "http", "url": "https://vs.example/mcp", "headers": { "Authorization": "${CANARY}" } } } },
}`,
  );
  write(join(cwd, '.vscode', 'mcp.json'), `{ "servers": { "vs-ws": { "type": "sse", "url": "http://localhost:3000/sse" } } }`);
  write(
    join(home, '.codeium', 'windsurf', 'mcp_config.json'),
    JSON.stringify({
      mcpServers: {
        wind: { serverUrl: 'https://wind.example/mcp', headers: { Authorization: `Bearer ${CANARY}` } },
        'wind-off': { command: 'wind-server', disabled: true, env: { K: CANARY } },
      },
    }),
  );
  write(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      theme: 'Dracula',
      mcpServers: {
        'gem-http': { httpUrl: 'https://gem.example/mcp', headers: { Authorization: CANARY } },
        'gem-sse': { url: 'https://gem.example/sse' },
        'gem-stdio': { command: 'python', args: ['-m', 'gem_server'], env: { API_KEY: CANARY }, cwd: './srv', trust: false },
      },
    }),
  );
  write(join(cwd, '.gemini', 'settings.json'), JSON.stringify({ mcpServers: { 'gem-proj': { command: 'deno', args: ['run', 'x.ts'] } } }));
  write(
    join(home, '.config', 'zed', 'settings.json'),
    `// Zed settings
{
  "theme": "One Dark",
  "context_servers": {
    "zed-old": { "command": { "path": "/usr/bin/zed-srv", "args": ["--stdio"], "env": { "ZED_KEY": "${CANARY}" } }, "settings": {} },
    "zed-new": { "source": "custom", "command": "npx", "args": ["-y", "zed-mcp"], "env": { "ZED_KEY": "${CANARY}" }, "enabled": false },
    "zed-ext": { "source": "extension", "settings": { "token": "not read" } },
  },
}`,
  );
  write(join(cwd, '.zed', 'settings.json'), JSON.stringify({ context_servers: { 'zed-remote': { url: 'https://zed.example/mcp', headers: { 'X-Key': CANARY } } } }));
  write(
    join(home, '.config', 'goose', 'config.yaml'),
    `GOOSE_PROVIDER: anthropic
extensions:
  developer:
    enabled: true
    type: builtin
    name: developer
    timeout: 300
  github:
    enabled: true
    type: stdio
    name: github
    cmd: npx
    args: [-y, "@modelcontextprotocol/server-github"]
    envs:
      GITHUB_PERSONAL_ACCESS_TOKEN: ${CANARY}
  goose-remote:
    enabled: false
    type: streamable_http
    uri: https://goose.example/mcp
    headers:
      Authorization: Bearer ${CANARY}
`,
  );
  write(
    join(home, '.codex', 'config.toml'),
    `model = "o3"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env = { "DOCS_KEY" = "${CANARY}", "HOME_DIR" = "\${HOME}" }

[mcp_servers.api]
url = "https://api.example/mcp"
bearer_token_env_var = "API_TOKEN"
http_headers = { "X-Team" = "${CANARY}" }
enabled = false
`,
  );
  write(
    join(home, '.kiro', 'settings', 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        'kiro-aws': { command: 'uvx', args: ['awslabs.aws-documentation-mcp-server@latest'], env: { FASTMCP_LOG_LEVEL: 'ERROR', AWS_KEY: CANARY }, disabled: false, autoApprove: [] },
      },
    }),
  );
  write(
    join(cwd, '.kiro', 'settings', 'mcp.json'),
    JSON.stringify({ mcpServers: { 'kiro-remote': { url: 'https://kiro.example/mcp', headers: { Authorization: 'Bearer ${env:KIRO_TOKEN}' } } } }),
  );
}

function entry(reports: PlaceReport[], client: string, scope: string, name: string): ConfigEntry {
  const found = reports.flatMap((report) => report.entries).filter((candidate) => candidate.client === client && candidate.scope === scope && candidate.name === name);
  expect(found, `${client} ${scope} ${name}`).toHaveLength(1);
  return found[0] as ConfigEntry;
}

describe('readPlaces over one home with every client', () => {
  it('reads every place and finds each entry exactly once, in place and file order', async () => {
    writeFixtureHome();
    const reports = await readPlaces(clientPlaces(roots));
    expect(reports.map((report) => [report.client, report.scope, report.state])).toEqual(
      clientPlaces(roots).map((expected) => [expected.client, expected.scope, { state: 'read' }]),
    );
    expect(reports.flatMap((report) => report.entries.map((found) => `${found.client} ${found.scope} ${found.name}`))).toEqual([
      'claude-code user github',
      'claude-code user linear',
      'claude-code local local-db',
      'claude-code project shared',
      'claude-code managed corp',
      'claude-desktop user filesystem',
      'claude-desktop user notAnObject',
      'claude-desktop user nothing',
      'claude-desktop user badArgs',
      'cursor user cursor-remote',
      'cursor project cursor-proj',
      'vscode user vs-user',
      'vscode user vs-settings',
      'vscode workspace vs-ws',
      'windsurf user wind',
      'windsurf user wind-off',
      'gemini-cli user gem-http',
      'gemini-cli user gem-sse',
      'gemini-cli user gem-stdio',
      'gemini-cli project gem-proj',
      'zed user zed-old',
      'zed user zed-new',
      'zed user zed-ext',
      'zed project zed-remote',
      'goose user developer',
      'goose user github',
      'goose user goose-remote',
      'codex-cli user docs',
      'codex-cli user api',
      'kiro user kiro-aws',
      'kiro workspace kiro-remote',
    ]);
  });

  it('reads Claude Code user, local (this cwd only), project and managed entries', async () => {
    writeFixtureHome();
    const reports = await readPlaces(clientPlaces(roots));
    expect(entry(reports, 'claude-code', 'user', 'github')).toEqual({
      name: 'github',
      client: 'claude-code',
      scope: 'user',
      path: join(roots.home, '.claude.json'),
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      envNames: ['FROM_SHELL', 'GITHUB_TOKEN', 'LOG'],
      headerNames: [],
      disabled: false,
      alwaysLoad: true,
      expansions: [{ where: 'env.FROM_SHELL', variables: ['GH_TOKEN'] }],
      launchEnv: { GITHUB_TOKEN: CANARY, LOG: 'debug' },
    });
    expect(entry(reports, 'claude-code', 'user', 'linear')).toMatchObject({
      transport: 'remote',
      url: 'https://mcp.linear.app/mcp',
      remoteType: 'http',
      headerNames: ['Authorization', 'X-Static'],
      expansions: [{ where: 'headers.Authorization', variables: ['LINEAR_KEY'] }],
      launchEnv: {},
      alwaysLoad: false,
    });
    expect(entry(reports, 'claude-code', 'local', 'local-db')).toMatchObject({
      command: 'node',
      args: ['db.js', '--root=${PROJECT_ROOT}'],
      disabled: true,
      expansions: [{ where: 'args[1]', variables: ['PROJECT_ROOT'] }],
    });
    expect(entry(reports, 'claude-code', 'project', 'shared')).toMatchObject({ command: 'uvx', envNames: ['FETCH_KEY'], launchEnv: { FETCH_KEY: CANARY } });
    expect(entry(reports, 'claude-code', 'managed', 'corp')).toMatchObject({ transport: 'remote', url: 'https://corp.example/sse', remoteType: 'sse' });
  });

  it('keeps entries that cannot be launched, with why, and skips non-string variables', async () => {
    writeFixtureHome();
    const reports = await readPlaces(clientPlaces(roots));
    const filesystem = entry(reports, 'claude-desktop', 'user', 'filesystem');
    // A number in env does not stop the launch: named, left out of launchEnv, no problem.
    expect(filesystem.problem).toBeUndefined();
    expect(filesystem.envNames).toEqual(['DEBUG', 'KEY']);
    expect(filesystem.launchEnv).toEqual({ KEY: CANARY });
    expect(entry(reports, 'claude-desktop', 'user', 'notAnObject').problem).toBe('the entry is a string, not an object');
    const nothing = entry(reports, 'claude-desktop', 'user', 'nothing');
    expect(nothing.problem).toBe('it has neither a command nor a url; env.COUNT is a number, not a string, and is left out');
    expect(nothing.envNames).toEqual(['COUNT', 'KEY']);
    const badArgs = entry(reports, 'claude-desktop', 'user', 'badArgs');
    expect(badArgs.problem).toBe('args[1] is a number, not a string');
    expect(badArgs.command).toBe('node');
    expect(badArgs.args).toBeUndefined();
  });

  it('reads Cursor, VS Code (mcp.json, settings.json, workspace) and Windsurf', async () => {
    writeFixtureHome();
    const reports = await readPlaces(clientPlaces(roots));
    expect(entry(reports, 'cursor', 'user', 'cursor-remote')).toMatchObject({ transport: 'remote', url: 'https://cursor.example/mcp', headerNames: ['X-Key'] });
    expect(entry(reports, 'cursor', 'user', 'cursor-remote').remoteType).toBeUndefined();
    expect(entry(reports, 'cursor', 'project', 'cursor-proj')).toMatchObject({
      command: './bin/server',
      envNames: ['TOKEN'],
      expansions: [{ where: 'env.TOKEN', variables: ['CURSOR_TOKEN'] }],
      launchEnv: {},
    });
    expect(entry(reports, 'vscode', 'user', 'vs-user')).toMatchObject({
      transport: 'stdio',
      command: 'node',
      args: ['server.js'],
      envNames: ['PLAIN', 'TOKEN'],
      expansions: [{ where: 'env.TOKEN', variables: ['input:vs-token'] }],
      launchEnv: { PLAIN: CANARY },
    });
    expect(entry(reports, 'vscode', 'user', 'vs-settings')).toMatchObject({ transport: 'remote', url: 'https://vs.example/mcp', remoteType: 'http', headerNames: ['Authorization'] });
    expect(entry(reports, 'vscode', 'workspace', 'vs-ws')).toMatchObject({ transport: 'remote', url: 'http://localhost:3000/sse', remoteType: 'sse' });
    expect(entry(reports, 'windsurf', 'user', 'wind')).toMatchObject({ transport: 'remote', url: 'https://wind.example/mcp', headerNames: ['Authorization'], disabled: false });
    expect(entry(reports, 'windsurf', 'user', 'wind-off')).toMatchObject({ transport: 'stdio', command: 'wind-server', disabled: true });
  });

  it('reads Gemini CLI httpUrl as streamable HTTP and url as SSE', async () => {
    writeFixtureHome();
    const reports = await readPlaces(clientPlaces(roots));
    expect(entry(reports, 'gemini-cli', 'user', 'gem-http')).toMatchObject({ transport: 'remote', url: 'https://gem.example/mcp', remoteType: 'http', headerNames: ['Authorization'] });
    expect(entry(reports, 'gemini-cli', 'user', 'gem-sse')).toMatchObject({ transport: 'remote', url: 'https://gem.example/sse', remoteType: 'sse' });
    expect(entry(reports, 'gemini-cli', 'user', 'gem-stdio')).toMatchObject({ transport: 'stdio', command: 'python', args: ['-m', 'gem_server'], envNames: ['API_KEY'] });
    expect(entry(reports, 'gemini-cli', 'project', 'gem-proj')).toMatchObject({ command: 'deno', args: ['run', 'x.ts'] });
  });

  it("reads Zed's older command object, its enabled flag and its extension entries", async () => {
    writeFixtureHome();
    const reports = await readPlaces(clientPlaces(roots));
    expect(entry(reports, 'zed', 'user', 'zed-old')).toMatchObject({
      transport: 'stdio',
      command: '/usr/bin/zed-srv',
      args: ['--stdio'],
      envNames: ['ZED_KEY'],
      launchEnv: { ZED_KEY: CANARY },
      disabled: false,
    });
    expect(entry(reports, 'zed', 'user', 'zed-old').problem).toBeUndefined();
    expect(entry(reports, 'zed', 'user', 'zed-new')).toMatchObject({ command: 'npx', args: ['-y', 'zed-mcp'], disabled: true });
    expect(entry(reports, 'zed', 'user', 'zed-ext').problem).toBe('a Zed extension provides its command; the config holds only its settings');
    expect(entry(reports, 'zed', 'project', 'zed-remote')).toMatchObject({ transport: 'remote', url: 'https://zed.example/mcp', headerNames: ['X-Key'] });
  });

  it("reads Goose's extensions: builtin, cmd/envs, uri, enabled: false", async () => {
    writeFixtureHome();
    const reports = await readPlaces(clientPlaces(roots));
    const developer = entry(reports, 'goose', 'user', 'developer');
    expect(developer).toMatchObject({ transport: 'builtin', disabled: false });
    expect(developer.problem).toBeUndefined();
    expect(developer.command).toBeUndefined();
    expect(entry(reports, 'goose', 'user', 'github')).toMatchObject({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      envNames: ['GITHUB_PERSONAL_ACCESS_TOKEN'],
      launchEnv: { GITHUB_PERSONAL_ACCESS_TOKEN: CANARY },
    });
    expect(entry(reports, 'goose', 'user', 'goose-remote')).toMatchObject({
      transport: 'remote',
      url: 'https://goose.example/mcp',
      remoteType: 'streamable_http',
      headerNames: ['Authorization'],
      disabled: true,
    });
  });

  it("reads Codex's [mcp_servers.x] tables, its header fields and enabled = false", async () => {
    writeFixtureHome();
    const reports = await readPlaces(clientPlaces(roots));
    expect(entry(reports, 'codex-cli', 'user', 'docs')).toMatchObject({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', 'docs-mcp'],
      envNames: ['DOCS_KEY', 'HOME_DIR'],
      expansions: [{ where: 'env.HOME_DIR', variables: ['HOME'] }],
      launchEnv: { DOCS_KEY: CANARY },
      disabled: false,
    });
    expect(entry(reports, 'codex-cli', 'user', 'api')).toMatchObject({
      transport: 'remote',
      url: 'https://api.example/mcp',
      headerNames: ['Authorization', 'X-Team'],
      expansions: [{ where: 'headers.Authorization', variables: ['API_TOKEN'] }],
      disabled: true,
    });
  });

  it('reads Kiro user and workspace entries', async () => {
    writeFixtureHome();
    const reports = await readPlaces(clientPlaces(roots));
    expect(entry(reports, 'kiro', 'user', 'kiro-aws')).toMatchObject({
      command: 'uvx',
      envNames: ['AWS_KEY', 'FASTMCP_LOG_LEVEL'],
      launchEnv: { AWS_KEY: CANARY, FASTMCP_LOG_LEVEL: 'ERROR' },
      disabled: false,
    });
    expect(entry(reports, 'kiro', 'workspace', 'kiro-remote')).toMatchObject({
      transport: 'remote',
      expansions: [{ where: 'headers.Authorization', variables: ['KIRO_TOKEN'] }],
    });
  });

  it('never lets an env or header value out of launchEnv, and launchEnv holds only literal values', async () => {
    writeFixtureHome();
    const reports = await readPlaces(clientPlaces(roots));
    expect(JSON.stringify(reports)).toContain(CANARY);
    expect(JSON.stringify(withoutLaunchEnv(reports))).not.toContain(CANARY);
    for (const found of reports.flatMap((report) => report.entries)) {
      for (const [name, value] of Object.entries(found.launchEnv)) {
        expect(value, `${found.name} ${name}`).not.toContain('${');
        expect(found.envNames).toContain(name);
      }
      for (const expansion of found.expansions.filter((candidate) => candidate.where.startsWith('env.'))) {
        expect(found.launchEnv).not.toHaveProperty(expansion.where.slice('env.'.length));
      }
    }
  });
});

describe('readPlace on broken and missing files', () => {
  it('refuses malformed JSON, JSONC, YAML and TOML with the line and column, and still reads the rest', async () => {
    write(join(roots.home, '.claude.json'), `{\n  "mcpServers": {\n    "a": { "command": "x", "env": { "K": "${CANARY}" } }\n    "b": { "command": "y" }\n  }\n}\n`);
    write(join(roots.home, '.config', 'Code', 'User', 'mcp.json'), `// comment\n{\n  "servers": {\n    "a": { "command": "x" },\n    "b": { "command": "${CANARY}" ]\n  }\n}\n`);
    write(join(roots.home, '.config', 'goose', 'config.yaml'), `extensions:\n  github:\n    cmd: npx\n    envs: { K: ${CANARY} }\n    cmd: node\n`);
    write(join(roots.home, '.codex', 'config.toml'), `[mcp_servers.docs]\ncommand = "npx"\nenv = { "K" = "${CANARY}" }\nargs = [ "-y" "docs" ]\n`);
    write(join(roots.home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { fine: { command: 'ok' } } }));
    const reports = await readPlaces(clientPlaces(roots));
    const state = (client: string, scope: string): unknown => reports.find((report) => report.client === client && report.scope === scope)?.state;

    // The missing comma: `"b"` opens line 4 at column 5.
    expect(state('claude-code', 'user')).toEqual({ state: 'unreadable', why: 'not valid JSON: CommaExpected', line: 4, column: 5 });
    // The `]` closing nothing, after the 22-character quoted canary: line 5, column 46 (the comment is line 1).
    expect(state('vscode', 'user')).toMatchObject({ state: 'unreadable', line: 5, column: 46 });
    expect((state('vscode', 'user') as { why: string }).why).toMatch(/^not valid JSON: /);
    // The second `cmd` of one mapping: line 5, column 5.
    expect(state('goose', 'user')).toEqual({ state: 'unreadable', why: 'not valid YAML: Map keys must be unique (DUPLICATE_KEY)', line: 5, column: 5 });
    // No comma between the two strings: line 4, at the second string (column 15).
    expect(state('codex-cli', 'user')).toMatchObject({ state: 'unreadable', line: 4, column: 15 });
    expect((state('codex-cli', 'user') as { why: string }).why).toMatch(/^not valid TOML: /);

    expect(state('cursor', 'user')).toEqual({ state: 'read' });
    expect(reports.find((report) => report.client === 'cursor' && report.scope === 'user')?.entries.map((found) => found.name)).toEqual(['fine']);
    expect(state('kiro', 'user')).toEqual({ state: 'absent' });
    // The error messages quote none of the source around the error.
    expect(JSON.stringify(reports)).not.toContain(CANARY);
  });

  it('refuses a document that is not an object, or servers that are not an object', async () => {
    const top = write(join(scratch, 'list.json'), '[1, 2]');
    expect((await readPlace(givenPlace(top))).state).toEqual({ state: 'unreadable', why: 'expected an object at the top, found a list' });
    const servers = write(join(roots.home, '.cursor', 'mcp.json'), '{ "mcpServers": ["a"] }');
    expect((await readPlace({ ...place('cursor', 'user'), path: servers })).state).toEqual({
      state: 'unreadable',
      why: 'mcpServers is a list, not an object of servers by name',
    });
    const settings = write(join(roots.home, '.config', 'Code', 'User', 'settings.json'), '{ "mcp": true }');
    const settingsPlace = clientPlaces(roots).find((candidate) => candidate.path === settings);
    expect(settingsPlace?.serversAt).toEqual(['mcp', 'servers']);
    expect((await readPlace(settingsPlace as ConfigPlace)).state).toMatchObject({ state: 'unreadable', why: 'mcp is a boolean, not an object' });
  });

  it('reads a file without the key path as holding no servers', async () => {
    write(join(roots.home, '.claude.json'), JSON.stringify({ numStartups: 1, projects: { '/other': { mcpServers: { x: { command: 'x' } } } } }));
    const reports = await readPlaces([place('claude-code', 'user'), place('claude-code', 'local')]);
    expect(reports.map((report) => [report.state, report.entries])).toEqual([
      [{ state: 'read' }, []],
      [{ state: 'read' }, []],
    ]);
    write(join(roots.home, '.config', 'goose', 'config.yaml'), 'GOOSE_PROVIDER: openai\nextensions:\n');
    expect(await readPlace(place('goose', 'user'))).toMatchObject({ state: { state: 'read' }, entries: [] });
  });

  it('finds the servers of a --config file under any client key', async () => {
    const json = write(join(scratch, 'vscode-style.json'), '// c\n{ "servers": { "a": { "command": "x" } } }');
    const yaml = write(join(scratch, 'goose.yaml'), 'extensions:\n  dev:\n    type: builtin\n');
    const toml = write(join(scratch, 'codex.toml'), '[mcp_servers.t]\nurl = "https://t.example/mcp"\n');
    const none = write(join(scratch, 'none.json'), '{ "theme": "dark" }');
    const [a, b, c, d] = await readPlaces([givenPlace(json), givenPlace(yaml), givenPlace(toml), givenPlace(none)]);
    expect(a).toMatchObject({ client: 'custom', scope: 'given', serversAt: ['servers'], entries: [{ name: 'a', command: 'x', client: 'custom', scope: 'given' }] });
    expect(b).toMatchObject({ serversAt: ['extensions'], entries: [{ name: 'dev', transport: 'builtin' }] });
    expect(c).toMatchObject({ serversAt: ['mcp_servers'], entries: [{ name: 't', transport: 'remote', url: 'https://t.example/mcp' }] });
    expect(d).toMatchObject({ state: { state: 'read' }, serversAt: [], entries: [] });
  });

  it('reads a server named __proto__ (JSON.parse gives the client one) and takes the last of duplicate keys', async () => {
    write(join(roots.home, '.cursor', 'mcp.json'), '{ "mcpServers": { "__proto__": { "command": "hidden" }, "a": { "command": "first" }, "a": { "command": "second" } } }');
    const report = await readPlace(place('cursor', 'user'));
    expect(report.entries.map((entry) => [entry.name, entry.command])).toEqual([
      ['__proto__', 'hidden'],
      ['a', 'second'],
    ]);
  });

  it('tells absent from unreadable', async () => {
    expect((await readPlace(givenPlace(join(scratch, 'missing.json')))).state).toEqual({ state: 'absent' });
    const file = write(join(scratch, 'file.json'), '{}');
    // A path through a file (ENOTDIR) is absent too: the folder it names does not exist.
    expect((await readPlace(givenPlace(join(file, 'mcp.json')))).state).toEqual({ state: 'absent' });
    const folder = join(scratch, 'folder.json');
    mkdirSync(folder);
    expect((await readPlace(givenPlace(folder))).state).toEqual({ state: 'unreadable', why: 'is a directory, not a file (EISDIR)' });
  });

  it.skipIf(process.getuid?.() === 0)('reports a file it may not read (not run as root: root reads anything)', async () => {
    const locked = write(join(scratch, 'locked.json'), '{}');
    chmodSync(locked, 0o000);
    const state = (await readPlace(givenPlace(locked))).state;
    expect(state).toMatchObject({ state: 'unreadable' });
    expect((state as { why: string }).why).toContain('EACCES');
  });

  it('refuses a file over 16 MiB without reading it', async () => {
    const big = write(join(scratch, 'big.json'), '');
    truncateSync(big, MAX_CONFIG_BYTES + 1);
    const state = (await readPlace(givenPlace(big))).state;
    expect(state).toEqual({ state: 'unreadable', why: `is ${MAX_CONFIG_BYTES + 1} bytes, over the 16 MiB a config file is read up to` });
    truncateSync(big, 0);
    writeFileSync(big, `{"mcpServers":{"a":{"command":"x"}}}${' '.repeat(MAX_CONFIG_BYTES - 36)}`);
    expect((await readPlace(givenPlace(big))).entries).toHaveLength(1);
  });
});
