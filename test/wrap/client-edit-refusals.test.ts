// The client editor on line endings, byte order marks and escapes, and every case it refuses
// (with a reason, never a throw).
import { describe, expect, it } from 'vitest';
import { editClientText, type ClientEdit, type ClientFileFormat, type GatewayEntry, type WrapClientId } from '../../src/wrap/_client-edit.js';
import { edited, expectMap, parseAs, refusal } from './_client-edit-support.js';

const gateway: GatewayEntry = { name: 'gw', command: 'mcpctx', args: ['gateway', 'run'] };

function edit(client: WrapClientId, format: ClientFileFormat, serversAt: string[], remove: string[], add: GatewayEntry = gateway): ClientEdit {
  return { client, format, serversAt, remove, add };
}

describe('line endings, BOM, final newline', () => {
  it('keeps CRLF and a BOM in JSON, and writes the new lines with CRLF', () => {
    const text = '\uFEFF{\r\n  "mcpServers": {\r\n    "a": { "command": "a" },\r\n    "b": { "command": "b" }\r\n  }\r\n}\r\n';
    const after = edited(text, edit('cursor', 'json', ['mcpServers'], ['a']));
    expect(after.startsWith('\uFEFF{\r\n  "mcpServers": {\r\n    "b": { "command": "b" },\r\n    "gw": {\r\n')).toBe(true);
    expect(after.endsWith('\r\n    }\r\n  }\r\n}\r\n')).toBe(true);
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
    expectMap(after, 'json', ['mcpServers'], parseAs(text, 'json'), ['b'], { name: 'gw', value: { command: 'mcpctx', args: ['gateway', 'run'] } });
  });

  it('keeps CRLF and a BOM in YAML', () => {
    const text = '\uFEFFextensions:\r\n  a:\r\n    cmd: a\r\n    type: stdio\r\nGOOSE_MODE: auto\r\n';
    const after = edited(text, edit('goose', 'yaml', ['extensions'], ['a']));
    expect(after).toBe('\uFEFFextensions:\r\n  gw:\r\n    name: gw\r\n    type: stdio\r\n    cmd: mcpctx\r\n    args: [gateway, run]\r\n    enabled: true\r\n    envs: {}\r\n    timeout: 300\r\nGOOSE_MODE: auto\r\n');
  });

  it('keeps CRLF and a BOM in TOML, and a missing final newline', () => {
    const text = '\uFEFFmodel = "o3"\r\n\r\n[mcp_servers.a]\r\ncommand = "a"';
    const after = edited(text, edit('codex-cli', 'toml', ['mcp_servers'], []));
    expect(after).toBe('\uFEFFmodel = "o3"\r\n\r\n[mcp_servers.a]\r\ncommand = "a"\r\n\r\n[mcp_servers.gw]\r\ncommand = "mcpctx"\r\nargs = ["gateway", "run"]');
  });

  it('keeps a JSON file without a final newline without one', () => {
    const after = edited('{"mcpServers": {"a": {"command": "a"}}}', edit('kiro', 'json', ['mcpServers'], ['a']));
    expect(after).toBe('{"mcpServers": {"gw": {"command":"mcpctx","args":["gateway","run"]}}}');
  });
});

describe('escapes', () => {
  const awkward: GatewayEntry = { name: 'gate "way" é', command: 'C:\\Program Files\\mcpctx\\mcpctx.cmd', args: ['--config', 'C:\\Users\\Zoë\\gw "1".json', 'tab\there', 'line\nbreak', '日本', 'true', '300', '# not a comment', 'del\u007f'] };
  const value = { command: awkward.command, args: [...awkward.args] };

  it.each<[ClientFileFormat, WrapClientId, string, string[]]>([
    ['json', 'cursor', '{\n  "mcpServers": {\n    "a": {"command": "a"}\n  }\n}\n', ['mcpServers']],
    ['jsonc', 'custom', '{\n  // c\n  "mcpServers": {}\n}\n', ['mcpServers']],
    ['toml', 'codex-cli', '[mcp_servers.a]\ncommand = "a"\n', ['mcp_servers']],
  ])('writes Windows paths, quotes and unicode so %s reads them back', (format, client, text, at) => {
    const after = edited(text, { client, format, serversAt: at, remove: [], add: awkward });
    expect(mapIn(parseAs(after, format), at)[awkward.name]).toEqual(value);
  });

  it('writes them in YAML too', () => {
    const after = edited('extensions:\n  a:\n    cmd: a\n', { client: 'goose', format: 'yaml', serversAt: ['extensions'], remove: [], add: awkward });
    expect(mapIn(parseAs(after, 'yaml'), ['extensions'])[awkward.name]).toEqual({ name: awkward.name, type: 'stdio', cmd: awkward.command, args: [...awkward.args], enabled: true, envs: {}, timeout: 300 });
  });
});

function mapIn(document: unknown, path: readonly string[]): Record<string, unknown> {
  let node = document;
  for (const key of path) node = (node as Record<string, unknown>)[key];
  return node as Record<string, unknown>;
}

describe('refusals', () => {
  it('refuses a map that is missing where entries must be removed', () => {
    expect(refusal('{"other": 1}', edit('cursor', 'json', ['mcpServers'], ['a']))).toMatch(/no mcpServers in the file/);
    expect(refusal('GOOSE_MODE: auto\n', edit('goose', 'yaml', ['extensions'], ['a']))).toMatch(/no extensions in the file/);
    expect(refusal('model = "o3"\n', edit('codex-cli', 'toml', ['mcp_servers'], ['a']))).toMatch(/"a" is not in mcp_servers/);
  });

  it('refuses a map that is not an object / mapping / table', () => {
    expect(refusal('{"mcpServers": []}', edit('cursor', 'json', ['mcpServers'], ['a']))).toMatch(/mcpServers is a JSON array, not an object/);
    expect(refusal('{"projects": {"/app": 3}}', edit('claude-code', 'json', ['projects', '/app', 'mcpServers'], []))).toMatch(/projects\["\/app"\] is a JSON number/);
    expect(refusal('extensions:\n  - a\n', edit('goose', 'yaml', ['extensions'], ['a']))).toMatch(/extensions is a list, not a mapping/);
    expect(refusal('mcp_servers = 3\n', edit('codex-cli', 'toml', ['mcp_servers'], []))).toMatch(/mcp_servers is a number, not a table/);
    expect(refusal('[1]', edit('cursor', 'json', ['mcpServers'], []))).toMatch(/not an object at the top/);
  });

  it('refuses a name to remove that is not there, naming it', () => {
    expect(refusal('{"mcpServers": {"a": {}}}', edit('cursor', 'json', ['mcpServers'], ['a', 'ghost']))).toBe('"ghost" is not in mcpServers');
    expect(refusal('extensions:\n  a:\n    cmd: a\n', edit('goose', 'yaml', ['extensions'], ['ghost']))).toBe('"ghost" is not in extensions');
    expect(refusal('[mcp_servers.a]\ncommand = "a"\n', edit('codex-cli', 'toml', ['mcp_servers'], ['ghost']))).toBe('"ghost" is not in mcp_servers');
  });

  it('refuses an added name already present and not removed, and allows it when it is removed', () => {
    expect(refusal('{"mcpServers": {"gw": {}}}', edit('cursor', 'json', ['mcpServers'], []))).toMatch(/already has a server named "gw"/);
    expect(refusal('extensions:\n  gw:\n    cmd: a\n', edit('goose', 'yaml', ['extensions'], []))).toMatch(/already has a server named "gw"/);
    expect(refusal('[mcp_servers.gw]\ncommand = "a"\n', edit('codex-cli', 'toml', ['mcp_servers'], []))).toMatch(/already has a server named "gw"/);
    expect(parseAs(edited('{"mcpServers": {"gw": {}}}', edit('cursor', 'json', ['mcpServers'], ['gw'])), 'json')).toEqual({ mcpServers: { gw: { command: 'mcpctx', args: ['gateway', 'run'] } } });
  });

  it('refuses TOML forms it does not split safely, by name and with why', () => {
    expect(refusal('mcp_servers = { a = { command = "a" } }\n', edit('codex-cli', 'toml', ['mcp_servers'], ['a']))).toMatch(/mcp_servers is written as one inline table \(line 1\).*\[mcp_servers\.NAME\] table/);
    expect(refusal('[mcp_servers]\na = { command = "a" }\n', edit('codex-cli', 'toml', ['mcp_servers'], ['a']))).toMatch(/server "a" is written as an inline table under \[mcp_servers\] \(line 2\)/);
    expect(refusal('mcp_servers.a.command = "a"\n', edit('codex-cli', 'toml', ['mcp_servers'], ['a']))).toMatch(/server "a" is written as dotted keys under the top of the file \(line 1\)/);
    expect(refusal('[[mcp_servers]]\ncommand = "a"\n', edit('codex-cli', 'toml', ['mcp_servers'], []))).toMatch(/mcp_servers is an array of tables/);
    expect(refusal('[[mcp_servers.a]]\ncommand = "a"\n', edit('codex-cli', 'toml', ['mcp_servers'], ['a']))).toMatch(/line 1 makes mcp_servers an array of tables/);
    expect(refusal('[mcp_servers.a]\ncommand = "a"\n[mcp_servers]\nb.command = "b"\n', edit('codex-cli', 'toml', ['mcp_servers'], ['a']))).toMatch(/server "b" is written as dotted keys under \[mcp_servers\] \(line 4\)/);
  });

  it('refuses YAML flow mappings and anchors/aliases in the map', () => {
    expect(refusal('extensions: {a: {cmd: a}}\n', edit('goose', 'yaml', ['extensions'], ['a']))).toMatch(/extensions is a flow mapping/);
    expect(refusal('base: &b {cmd: a}\nextensions:\n  a: *b\n', edit('goose', 'yaml', ['extensions'], ['a']))).toMatch(/holds an alias \(\*b\)/);
    expect(refusal('extensions:\n  a: &x\n    cmd: a\n  b: *x\n', edit('goose', 'yaml', ['extensions'], ['a']))).toMatch(/holds an (anchor|alias)/);
    expect(refusal('extensions: &e\n  a:\n    cmd: a\nother: *e\n', edit('goose', 'yaml', ['extensions'], ['a']))).toMatch(/anchor \(&e\)/);
    expect(refusal('extensions:\n  ? a\n  : cmd: a\n', edit('goose', 'yaml', ['extensions'], ['a']))).toMatch(/does not start its own line \(a\)/);
    expect(refusal('extensions:\n  ? [a, b]\n  : cmd: a\n', edit('goose', 'yaml', ['extensions'], []))).toMatch(/a key that is not a plain name/);
  });

  it('refuses a document that does not parse, saying where', () => {
    expect(refusal('{"mcpServers": {"a": }', edit('cursor', 'json', ['mcpServers'], ['a']))).toMatch(/not valid JSON \(ValueExpected at line 1, column 22\)/);
    expect(refusal('extensions:\n  a: [\n', edit('goose', 'yaml', ['extensions'], ['a']))).toMatch(/not valid YAML/);
    expect(refusal('[mcp_servers.a\ncommand = "a"\n', edit('codex-cli', 'toml', ['mcp_servers'], ['a']))).toMatch(/not valid TOML .*line 1/);
  });

  it('never throws, even on a nesting deep enough to overflow a parser or the check', () => {
    // Depths where the parser, the rebuilding of the parsed value and the comparison each overflow first.
    for (const depth of [1_000, 1_250, 1_500, 2_000, 2_250, 3_000, 6_000, 200_000]) {
      const deep = `{"mcpServers": {"a": {}, "b": ${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      const result = editClientText(deep, edit('cursor', 'json', ['mcpServers'], ['a']));
      expect('text' in result || /^the (file|edited file)/.test(result.refused), `depth ${depth}`).toBe(true);
    }
  });
});
