import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpctxError, describeEffectiveRules, loadGatewayConfig, parseGatewayConfig, type ConfigProblem, type GatewayConfig } from '../../src/gateway/index.js';
import { configForCommand, isToolAllowed, resolveUpstream, splitVisibleName, toolRulesFor, visibleToolName } from '../../src/gateway/config/index.js';

/** The problems parseGatewayConfig throws for `text` (fails the test when it does not throw). */
function problemsOf(text: string, file?: string): ConfigProblem[] {
  try {
    parseGatewayConfig(text, file === undefined ? {} : { file });
  } catch (error) {
    expect(error).toBeInstanceOf(McpctxError);
    expect((error as McpctxError).code).toBe('INVALID_CONFIG');
    return (error as McpctxError).data.problems as ConfigProblem[];
  }
  throw new Error('expected INVALID_CONFIG');
}

const paths = (problems: readonly ConfigProblem[]): string[] => problems.map(({ path }) => path);

const ONE = 'mcpServers:\n  gh:\n    command: node\n    args: [server.js]\n';
const TWO = `mcpServers:
  github:
    command: npx
    args: ["-y", "@scope/github"]
    env: { GITHUB_TOKEN: "\${GH_TOKEN}", LOG: debug }
  remote:
    url: https://example.com/mcp
    headers: { Authorization: "Bearer \${API_KEY}" }
`;

describe('parseGatewayConfig: defaults and shapes', () => {
  it('applies every default', () => {
    const config = parseGatewayConfig(ONE);
    expect(config).toMatchObject({ separator: '__', capTokens: 25000, offload: true, allow: undefined, deny: undefined, skipped: [] });
    expect(config.search).toEqual({ enabled: false, topK: 5, pinned: [] });
    expect(Object.keys(config.tools)).toEqual([]);
    expect(config.upstreams).toEqual([{ name: 'gh', kind: 'stdio', launch: { command: 'node', args: ['server.js'] } }]);
  });

  it('reads both kinds of upstream, keeps ${VAR} templates unresolved, and skips disabled entries', () => {
    const config = parseGatewayConfig(`${TWO}  old:\n    disabled: true\n    type: sse\n    url: https://x\n`);
    expect(config.upstreams).toEqual([
      { name: 'github', kind: 'stdio', launch: { command: 'npx', args: ['-y', '@scope/github'], env: { GITHUB_TOKEN: '${GH_TOKEN}', LOG: 'debug' } } },
      { name: 'remote', kind: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${API_KEY}' } },
    ]);
    expect(config.skipped).toEqual(['old']);
  });

  it('reads auth: oauth or none on a url upstream, and refuses anything else naming the field', () => {
    const config = parseGatewayConfig('mcpServers:\n  a:\n    url: https://a.example/mcp\n    auth: oauth\n  b:\n    url: https://b.example/mcp\n    auth: none\n');
    expect(config.upstreams).toEqual([
      { name: 'a', kind: 'http', url: 'https://a.example/mcp', headers: {}, auth: 'oauth' },
      { name: 'b', kind: 'http', url: 'https://b.example/mcp', headers: {}, auth: 'none' },
    ]);
    expect(() => parseGatewayConfig('mcpServers:\n  a:\n    url: https://a.example/mcp\n    auth: basic\n')).toThrow(/mcpServers\.a\.auth.*must be oauth/);
    expect(() => parseGatewayConfig('mcpServers:\n  a:\n    command: node\n    auth: oauth\n')).toThrow(/auth.*belongs to url servers/);
  });

  it('reads the JSON clients write, comments and trailing commas included, with line numbers for errors', () => {
    const jsonc = `{
  // the servers, as in mcp.json
  "mcpServers": {
    "fs": { "command": "npx", "args": ["-y", "server-filesystem", "/tmp//x"], }, /* trailing comma */
  },
  "capTokens": 8000,
}`;
    const config = parseGatewayConfig(jsonc, { file: 'mcp.json' });
    expect(config.capTokens).toBe(8000);
    expect(config.upstreams[0]).toMatchObject({ name: 'fs', launch: { args: ['-y', 'server-filesystem', '/tmp//x'] } });
    const broken = problemsOf('{\n  // note\n  "mcpServers": { "fs": { "command": "x" } \n', 'mcp.json');
    expect(broken).toHaveLength(1);
    expect(broken[0]?.reason).toMatch(/not valid JSON.*line \d+, column \d+/);
  });

  it('reports YAML syntax errors and duplicate keys with a line', () => {
    const [problem] = problemsOf('mcpServers:\n  a:\n    command: x\n  a:\n    command: y\n');
    expect(problem?.reason).toMatch(/line 4/);
  });

  it('configForCommand names the single upstream after the command', () => {
    const config = configForCommand({ command: '/usr/local/bin/my.server.mjs', args: ['--flag'] });
    expect(config.upstreams).toEqual([{ name: 'my-server', kind: 'stdio', launch: { command: '/usr/local/bin/my.server.mjs', args: ['--flag'] } }]);
    expect(config.capTokens).toBe(25000);
    expect(configForCommand({ command: '@@@' }).upstreams[0]?.name).toBe('upstream');
  });
});

describe('parseGatewayConfig: every problem at once, with its path', () => {
  it('collects problems from every level in one error', () => {
    const text = `${TWO}capTokens: 10
offload: "yes"
deyn: [x]
separator: "a b"
search: { enabled: 1, topK: 0, pinned: [nope, "zz/x"], extra: 1 }
tools:
  github__list_prs: { pageTokens: 20, format: xml, drop: [title, body], frobnicate: true, maxTokens: 0 }
  unknown__tool: { description: 5 }
  list_prs: {}
  "remote/": {}
  github__: {}
`;
    const problems = problemsOf(text);
    expect(paths(problems)).toEqual(
      expect.arrayContaining([
        'deyn',
        'separator',
        'capTokens',
        'offload',
        'search.enabled',
        'search.topK',
        'search.pinned[1]',
        'search.extra',
        'tools.github__list_prs.pageTokens',
        'tools.github__list_prs.format',
        'tools.github__list_prs.drop[1]',
        'tools.github__list_prs.frobnicate',
        'tools.github__list_prs.maxTokens',
        'tools.unknown__tool.description',
        'tools["remote/"]',
        'tools.github__',
      ]),
    );
    // A name that starts with no configured server is a bare name: that tool on every upstream.
    expect(paths(problems)).not.toEqual(expect.arrayContaining(['search.pinned[0]']));
    expect(paths(problems)).not.toEqual(expect.arrayContaining(['tools.unknown__tool']));
    expect(paths(problems)).not.toEqual(expect.arrayContaining(['tools.list_prs']));
    expect(problems.find(({ path }) => path === 'tools.github__list_prs.pageTokens')?.reason).toBe('must be an integer from 50 to 1,000,000');
  });

  it('lists every problem in the message too, and the file', () => {
    try {
      parseGatewayConfig('mcpServers: {}\noffLoad: 1\n', { file: 'gw.yaml' });
      expect.unreachable();
    } catch (error) {
      expect((error as McpctxError).message).toMatch(/gw\.yaml: 2 problems\n {2}- offLoad: unknown key; did you mean offload\?.*\n {2}- mcpServers: must name at least one server/s);
      expect((error as McpctxError).data.file).toBe('gw.yaml');
    }
  });

  it('refuses unknown keys inside its own sections, and a near miss of its own keys at the top and in an entry', () => {
    const text = `mcpServers:
  a: { command: x, arg: [] }
tools:
  t: { project: [{ path: id, rename: x }] }
search: { ranking: bm25 }
capToken: 100
pageTokens: 500
`;
    const problems = problemsOf(text);
    expect(paths(problems)).toEqual(['capToken', 'pageTokens', 'mcpServers.a.arg', 'search.ranking', 'tools.t.project[0].rename']);
    expect(problems[0]?.reason).toMatch(/did you mean capTokens\?/);
    expect(problems[1]?.reason).toMatch(/under tools\.NAME\.pageTokens/);
    expect(problems[2]?.reason).toMatch(/did you mean args\?/);
  });

  it('requires mcpServers with at least one enabled server', () => {
    expect(paths(problemsOf('capTokens: 100\n'))).toEqual(['mcpServers']);
    expect(problemsOf('mcpServers: { a: { command: x, disabled: true } }')[0]?.reason).toMatch(/every server is disabled/);
    expect(problemsOf('[1, 2]')[0]?.path).toBe('(file)');
  });

  it('checks server entries: names, type, command or url, fields of the other kind', () => {
    const text = `mcpServers:
  "bad name": { command: x }
  legacy: { type: sse, url: "https://x/sse" }
  studio: { type: studio, command: x }
  both: { command: x, url: "https://x" }
  none: { args: [a] }
  wrongType: { type: http, command: x }
  mixed: { url: "https://x", env: { A: b } }
  ftp: { url: "ftp://x" }
  badEnv: { command: x, env: { "1A": v, B: "\${lower-case}", C: [1] }, args: [a, {}], cwd: "" }
`;
    const problems = problemsOf(text);
    expect(paths(problems)).toEqual([
      'mcpServers["bad name"]',
      'mcpServers.studio.type',
      'mcpServers.both',
      'mcpServers.none',
      'mcpServers.wrongType.type',
      'mcpServers.mixed.env',
      'mcpServers.ftp.url',
      'mcpServers.badEnv.args[1]',
      'mcpServers.badEnv.env.1A',
      'mcpServers.badEnv.env.B',
      'mcpServers.badEnv.env.C',
      'mcpServers.badEnv.cwd',
    ]);
    expect(problems[1]?.reason).toMatch(/must be stdio, http .* or sse, got "studio"/);
  });

  it('refuses a header value that does not come from the environment, without echoing it', () => {
    const problems = problemsOf('mcpServers:\n  r: { url: "https://x/mcp", headers: { Authorization: "Bearer sk-live-CANARY", X-Key: "${1X}" } }\n');
    expect(problems).toEqual([
      { path: 'mcpServers.r.headers.Authorization', reason: expect.stringMatching(/header values come from the environment; write \$\{NAME\}/) },
      { path: 'mcpServers.r.headers.X-Key', reason: expect.stringMatching(/names no variable/) },
    ]);
    expect(JSON.stringify(problems)).not.toContain('CANARY');
  });

  it('checks names against the servers when there are several', () => {
    const text = `mcpServers:
  git__hub: { command: x }
  fs: { command: y }
allow: { nothere: ["*"], fs: [read_*] }
deny: ["nothere/x", "f*/x", "z*/x", "*/x"]
search: { pinned: [fs__read, read, "fs/read", "fs/"] }
tools:
  fs__: {}
  fs__read_file: { description: short }
`;
    expect(paths(problemsOf(text))).toEqual(['mcpServers.git__hub', 'allow.nothere', 'deny[0]', 'deny[2]', 'search.pinned[3]', 'tools.fs__']);
    expect(problemsOf(text).find((problem) => problem.path === 'deny[0]')?.reason).toBe('"nothere" names no configured server; servers: git__hub, fs');
    // One server: names are not namespaced, so any name goes and the separator may appear in the server name.
    expect(() => parseGatewayConfig('mcpServers: { git__hub: { command: x } }\ntools: { read: {} }\n')).not.toThrow();
  });

  it('validates project through defineProjection', () => {
    const problems = problemsOf(`${ONE}tools:
  a: { project: [number, { path: title, as: number }] }
  b: { project: [] }
  c: { project: [{ path: body, maxChars: 0 }] }
  d: { project: ["a..b"] }
`);
    expect(paths(problems)).toEqual(['tools.a.project', 'tools.b.project', 'tools.c.project', 'tools.d.project']);
    expect(problems[0]?.reason).toMatch(/produced twice/);
    expect(problems[2]?.reason).toMatch(/maxChars must be a positive integer/);
  });

  it('accepts every rule and keeps them as written', () => {
    const config = parseGatewayConfig(`${ONE}tools:
  list_prs:
    description: Lists pull requests.
    maxDescriptionTokens: 40
    dropOutputSchema: true
    drop: [title, icons]
    project: [number, { path: user.login, as: author }, { path: body, maxChars: 200 }]
    format: toon
    pageTokens: 2000
    maxTokens: 9000
`);
    expect(toolRulesFor(config, 'gh', 'list_prs')).toEqual({
      description: 'Lists pull requests.',
      maxDescriptionTokens: 40,
      dropOutputSchema: true,
      drop: ['title', 'icons'],
      project: ['number', { path: 'user.login', as: 'author' }, { path: 'body', maxChars: 200 }],
      format: 'toon',
      pageTokens: 2000,
      maxTokens: 9000,
    });
    expect(toolRulesFor(config, 'gh', 'constructor')).toBeUndefined();
    expect(toolRulesFor(config, 'gh', 'toString')).toBeUndefined();
    const odd = parseGatewayConfig(`${ONE}tools:\n  __proto__: { pageTokens: 60 }\n`);
    expect(toolRulesFor(odd, 'gh', '__proto__')).toEqual({ pageTokens: 60 });
  });
});

describe('allow and deny', () => {
  const several = (extra: string): GatewayConfig => parseGatewayConfig(`mcpServers:\n  gh: { command: x }\n  fs: { command: y }\n${extra}`);
  const allowed = (config: GatewayConfig, upstream: string, own: string): boolean => isToolAllowed(config, upstream, own, visibleToolName(config, upstream, own));

  it('matches visible names with * and ? only; deny wins', () => {
    const config = several('allow: ["gh__list_*", "fs__read_?ile", "gh__get.x"]\ndeny: ["*delete*"]\n');
    expect(allowed(config, 'gh', 'list_prs')).toBe(true);
    expect(allowed(config, 'gh', 'list_delete')).toBe(false);
    expect(allowed(config, 'fs', 'read_file')).toBe(true);
    expect(allowed(config, 'fs', 'read_fiile')).toBe(false);
    expect(allowed(config, 'gh', 'get_pr')).toBe(false);
    // "." is literal, not "any character".
    expect(allowed(config, 'gh', 'get.x')).toBe(true);
    expect(allowed(config, 'gh', 'getXx')).toBe(false);
  });

  it('a per-server map matches own names; a server it does not name offers nothing under allow', () => {
    const config = several('allow: { gh: ["list_*"] }\ndeny: { gh: [list_secrets], fs: ["write_*"] }\n');
    expect(allowed(config, 'gh', 'list_prs')).toBe(true);
    expect(allowed(config, 'gh', 'list_secrets')).toBe(false);
    expect(allowed(config, 'fs', 'read_file')).toBe(false);
    const denyOnly = several('deny: { fs: ["write_*"] }\n');
    expect(allowed(denyOnly, 'fs', 'read_file')).toBe(true);
    expect(allowed(denyOnly, 'fs', 'write_file')).toBe(false);
    expect(allowed(denyOnly, 'gh', 'write_file')).toBe(true);
  });

  it('everything is allowed with neither set; an empty allow list is refused', () => {
    const config = parseGatewayConfig(ONE);
    expect(isToolAllowed(config, 'gh', 'anything', 'anything')).toBe(true);
    expect(paths(problemsOf(`${ONE}allow: []\n`))).toEqual(['allow']);
  });

  it('splits a visible name back into upstream and own name', () => {
    const config = several('');
    expect(splitVisibleName(config, 'gh__list__prs')).toEqual({ upstream: 'gh', ownName: 'list__prs' });
    expect(splitVisibleName(config, 'zz__x')).toBeUndefined();
    expect(splitVisibleName(parseGatewayConfig(ONE), 'gh__x')).toEqual({ upstream: 'gh', ownName: 'gh__x' });
  });
});

describe('resolveUpstream', () => {
  const config = parseGatewayConfig(TWO);
  const [github, remote] = config.upstreams;

  it('expands ${VAR} in env values and headers from the given environment', () => {
    const env = { GH_TOKEN: 'ghp_canary', API_KEY: 'key-canary' };
    expect(resolveUpstream(github!, env)).toMatchObject({ launch: { env: { GITHUB_TOKEN: 'ghp_canary', LOG: 'debug' } } });
    const resolved = resolveUpstream(remote!, env);
    expect(resolved).toMatchObject({ headers: { Authorization: 'Bearer ${API_KEY}' }, resolvedHeaders: { Authorization: 'Bearer key-canary' } });
    // The spec itself is left as configured.
    expect(remote).toMatchObject({ headers: { Authorization: 'Bearer ${API_KEY}' } });
  });

  it('names a missing variable, never a value', () => {
    const attempt = (): unknown => resolveUpstream(remote!, { GH_TOKEN: 'ghp_canary', API_KEY: '' });
    expect(attempt).toThrow(McpctxError);
    try {
      attempt();
    } catch (error) {
      expect((error as McpctxError).code).toBe('INVALID_CONFIG');
      expect((error as McpctxError).message).toMatch(/API_KEY \(header Authorization\)/);
      expect((error as McpctxError).data.missing).toEqual(['API_KEY']);
      expect(JSON.stringify([(error as McpctxError).message, (error as McpctxError).data])).not.toContain('canary');
    }
    expect(() => resolveUpstream(github!, {})).toThrow(/GH_TOKEN \(env GITHUB_TOKEN\)/);
  });
});

describe('describeEffectiveRules', () => {
  it('shows every setting with defaults and never an env or header value', () => {
    const text = `mcpServers:
  github:
    command: npx
    args: ["-y", "gh-server", "--api-key", "sk-live-CANARY1234567890abcd"]
    env: { GITHUB_TOKEN: "ghp_CANARYliteralTokenValue0123456789", OTHER: "\${FROM_ENV}" }
  remote:
    url: "https://user:CANARYpw@example.com/mcp?token=CANARYq"
    headers: { Authorization: "Bearer \${API_KEY}" }
  off: { disabled: true }
deny: ["*__delete_*"]
tools:
  github__list_prs: { pageTokens: 500 }
`;
    const config = parseGatewayConfig(text);
    const rules = describeEffectiveRules(config);
    expect(JSON.stringify(rules)).not.toMatch(/CANARY/);
    expect(rules).toMatchObject({
      file: null,
      namespaced: true,
      separator: '__',
      skipped: ['off'],
      allow: null,
      deny: { kind: 'names', patterns: ['*__delete_*'] },
      capTokens: 25000,
      offload: true,
      search: { enabled: false, topK: 5, pinned: [] },
      tools: [{ name: 'github__list_prs', upstream: 'github', rules: { pageTokens: 500 } }],
    });
    expect(rules.upstreams[0]).toMatchObject({ name: 'github', kind: 'stdio', command: 'npx', envNames: ['GITHUB_TOKEN', 'OTHER'], requiredEnv: ['FROM_ENV'] });
    expect(rules.upstreams[1]).toMatchObject({ name: 'remote', kind: 'http', headerNames: ['Authorization'], requiredEnv: ['API_KEY'] });
    // Even after resolving, the config still holds templates only.
    resolveUpstream(config.upstreams[1]!, { API_KEY: 'CANARY-resolved' });
    expect(JSON.stringify(describeEffectiveRules(config))).not.toMatch(/CANARY/);
    expect(rules.warnings).toEqual([]);
  });

  it('warns when a rule drops annotations: the client loses destructiveHint, and says whether confirmation still asks', () => {
    const rules = (confirm: boolean) =>
      describeEffectiveRules(parseGatewayConfig(`mcpServers: { gh: { command: gh } }\nconfirmDestructive: ${confirm}\ntools:\n  delete_repo: { drop: [annotations] }\n  list_repos: { drop: [title] }\n`)).warnings;
    expect(rules(true)).toEqual([expect.stringMatching(/^tools\.delete_repo drops annotations: .*destructive.*confirmDestructive still reads the server's own annotations/)]);
    expect(rules(false)).toEqual([expect.stringMatching(/^tools\.delete_repo drops annotations: .*confirmDestructive is off/)]);
  });
});

describe('loadGatewayConfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpctx-gw-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file, resolves a relative cwd from its folder, and records the file', async () => {
    const file = join(dir, 'gateway.yaml');
    await writeFile(file, 'mcpServers:\n  a: { command: node, cwd: sub }\n');
    const config = await loadGatewayConfig(file);
    expect(config.file).toBe(file);
    expect(config.upstreams[0]).toMatchObject({ launch: { cwd: join(dir, 'sub') } });
  });

  it('an unreadable file is IO; a bad one INVALID_CONFIG naming the file', async () => {
    await expect(loadGatewayConfig(join(dir, 'missing.yaml'))).rejects.toMatchObject({ code: 'IO' });
    const file = join(dir, 'bad.json');
    await writeFile(file, '{ "mcpServers": { "a": { "command": "x", "env": { "K": 1.5 } } }, "tool": 1 }');
    await expect(loadGatewayConfig(file)).rejects.toMatchObject({ code: 'INVALID_CONFIG', data: { file, problems: [{ path: 'tool' }] } });
  });
});
