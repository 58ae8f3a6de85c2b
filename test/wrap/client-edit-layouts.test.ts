// The client editor on layouts a hand-edited file has: one-line maps, comments around entries,
// blank lines, lists at the key's indent, headers inside multi-line strings, no final newline.
import { describe, expect, it } from 'vitest';
import type { ClientEdit, ClientFileFormat, GatewayEntry, WrapClientId } from '../../src/wrap/_client-edit.js';
import { editJsonText } from '../../src/wrap/_edit-json.js';
import { editTomlText } from '../../src/wrap/_edit-toml.js';
import { editYamlText } from '../../src/wrap/_edit-yaml.js';
import { edited, mapIn, parseAs } from './_client-edit-support.js';

const gateway: GatewayEntry = { name: 'gw', command: 'c', args: [] };
const gooseEntry = ['  gw:', '    name: gw', '    type: stdio', '    cmd: c', '    args: []', '    enabled: true', '    envs: {}', '    timeout: 300'].join('\n');

function edit(client: WrapClientId, format: ClientFileFormat, serversAt: string[], remove: string[]): ClientEdit {
  return { client, format, serversAt, remove, add: gateway };
}

describe('JSON layouts', () => {
  it('takes an entry that ends a line with the spaces before it, and one alone on its lines with a same-line comment', () => {
    expect(edited('{\n  "mcpServers": {\n    "a": 1, "b": 2,\n    "c": 3 // about c\n  }\n}\n', edit('cursor', 'json', ['mcpServers'], ['b', 'c']))).toBe(
      '{\n  "mcpServers": {\n    "a": 1,\n    "gw": {\n      "command": "c",\n      "args": []\n    }\n  }\n}\n',
    );
  });

  it('adds a comma after a kept last entry before its comment, and keeps a comment after it', () => {
    expect(edited('{\n  "servers": {\n    "a": {} /* a */\n    // the end\n  }\n}\n', edit('vscode', 'jsonc', ['servers'], []))).toBe(
      '{\n  "servers": {\n    "a": {}, /* a */\n    "gw": {\n      "type": "stdio",\n      "command": "c",\n      "args": []\n    }\n    // the end\n  }\n}\n',
    );
  });

  it('leaves one blank line where a blank-separated entry was', () => {
    expect(edited('{\n  "mcpServers": {\n    "a": {},\n\n    "b": {},\n\n    "c": {}\n  }\n}\n', edit('cursor', 'json', ['mcpServers'], ['b']))).toBe(
      '{\n  "mcpServers": {\n    "a": {},\n\n    "c": {},\n    "gw": {\n      "command": "c",\n      "args": []\n    }\n  }\n}\n',
    );
  });

  it('opens an empty one-line map and fills a null one', () => {
    expect(edited('{\n  "mcpServers": {}\n}\n', edit('cursor', 'json', ['mcpServers'], []))).toBe('{\n  "mcpServers": {\n    "gw": {\n      "command": "c",\n      "args": []\n    }\n  }\n}\n');
    expect(edited('{\n  "mcpServers": null\n}\n', edit('cursor', 'json', ['mcpServers'], []))).toBe('{\n  "mcpServers": {\n    "gw": {\n      "command": "c",\n      "args": []\n    }\n  }\n}\n');
  });

  it('takes the comment lines right above a removed entry, but not those right after the map\'s brace', () => {
    const text = '{\n  "servers": {\n    // servers of this workspace\n    "a": {},\n    // the b server\n    /* local */\n    "b": {},\n    "c": {}\n  }\n}\n';
    expect(edited(text, edit('vscode', 'jsonc', ['servers'], ['a', 'b']))).toBe(
      '{\n  "servers": {\n    // servers of this workspace\n    "c": {},\n    "gw": {\n      "type": "stdio",\n      "command": "c",\n      "args": []\n    }\n  }\n}\n',
    );
  });

  it('takes every copy of a duplicated name (the reader would see the last)', () => {
    expect(edited('{"mcpServers": {"a": 1, "b": 2, "a": 3}}', edit('cursor', 'json', ['mcpServers'], ['a']))).toBe('{"mcpServers": {"b": 2, "gw": {"command":"c","args":[]}}}');
  });
});

describe('YAML layouts', () => {
  it('takes a list written at the entry key\'s indent with the entry', () => {
    expect(edited('extensions:\n  a:\n  - y\n  b:\n    cmd: z\n', edit('goose', 'yaml', ['extensions'], ['a']))).toBe(`extensions:\n  b:\n    cmd: z\n${gooseEntry}\n`);
  });

  it('puts the entry in place of a removed last entry, keeping the missing final newline', () => {
    expect(edited('extensions:\n  a:\n    cmd: x', edit('goose', 'yaml', ['extensions'], ['a']))).toBe(`extensions:\n${gooseEntry}`);
  });

  it('keeps document markers, and a block scalar goes with its entry', () => {
    expect(edited('---\nextensions:\n  b:\n    cmd: |\n      multi\n\n      line\n  c:\n    cmd: c\n...\n', edit('goose', 'yaml', ['extensions'], ['b']))).toBe(`---\nextensions:\n  c:\n    cmd: c\n${gooseEntry}\n...\n`);
  });

  it('fills an empty `extensions:` and writes a missing one at the end', () => {
    expect(edited('extensions: # none yet\nGOOSE_MODE: auto\n', edit('goose', 'yaml', ['extensions'], []))).toBe(`extensions: # none yet\n${gooseEntry}\nGOOSE_MODE: auto\n`);
    expect(edited('GOOSE_MODE: auto', edit('goose', 'yaml', ['extensions'], []))).toBe(`GOOSE_MODE: auto\nextensions:\n${gooseEntry}`);
    expect(edited('# only comments\n', edit('goose', 'yaml', ['extensions'], []))).toBe(`# only comments\nextensions:\n${gooseEntry}\n`);
  });
});

describe('TOML layouts', () => {
  const table = '[mcp_servers.gw]\ncommand = "c"\nargs = []';

  it('does not read a header inside a multi-line string, and keeps nested arrays whole', () => {
    const text = '[mcp_servers.a]\ncommand = "a"\ndescription = """\n[mcp_servers.fake]\n"""\nargs = [\n  [1, 2], # pairs\n  [3],\n]\n\n[tui]\nx = 1\n';
    expect(edited(text, edit('codex-cli', 'toml', ['mcp_servers'], ['a']))).toBe(`${table}\n\n[tui]\nx = 1\n`);
  });

  it('keeps a comment right above the next header, takes trailing comments followed by a blank line', () => {
    const text = '[mcp_servers.a]\ncommand = "a"\n# enabled = false\n\n# about b\n[mcp_servers.b] # b!\ncommand = "b"\n';
    expect(edited(text, edit('codex-cli', 'toml', ['mcp_servers'], ['a']))).toBe(`# about b\n[mcp_servers.b] # b!\ncommand = "b"\n\n${table}\n`);
  });

  it('takes the comment lines right above a removed header, keeps those a blank line away', () => {
    const text = '# Codex\nmodel = "m"\n\n# servers below\n\n# the a server\n# (local)\n[mcp_servers.a]\ncommand = "a"\n\n# the b server\n[mcp_servers.b]\ncommand = "b"\n';
    expect(edited(text, edit('codex-cli', 'toml', ['mcp_servers'], ['a', 'b']))).toBe(`# Codex\nmodel = "m"\n\n# servers below\n\n${table}\n`);
  });

  it('puts the table in place of a removed last section, keeping the missing final newline', () => {
    expect(edited('[mcp_servers.a]\ncommand = "a"\n\n[mcp_servers.b]\ncommand = "b"', edit('codex-cli', 'toml', ['mcp_servers'], ['b']))).toBe(`[mcp_servers.a]\ncommand = "a"\n\n${table}`);
  });

  it('takes sub-tables of a removed server wherever they are', () => {
    const text = '[mcp_servers.a]\ncommand = "a"\n\n[profiles.x]\nmodel = "m"\n\n[mcp_servers.a.env]\nK = "v"\n\n[mcp_servers.keep]\ncommand = "k"\n';
    expect(edited(text, edit('codex-cli', 'toml', ['mcp_servers'], ['a']))).toBe(`[profiles.x]\nmodel = "m"\n\n[mcp_servers.keep]\ncommand = "k"\n\n${table}\n`);
  });

  it('adds after an empty [mcp_servers] header and at the end of a file without servers', () => {
    expect(edited('[mcp_servers]\n', edit('codex-cli', 'toml', ['mcp_servers'], []))).toBe(`[mcp_servers]\n\n${table}\n`);
    expect(edited('[projects."/x"]\ntrust_level = "trusted"\n', edit('codex-cli', 'toml', ['mcp_servers'], []))).toBe(`[projects."/x"]\ntrust_level = "trusted"\n\n${table}\n`);
    expect(edited('', edit('codex-cli', 'toml', ['mcp_servers'], []))).toBe(`${table}\n`);
  });
});

describe('YAML comments around entries', () => {
  it('takes the comment lines right above a removed key, but not those right under `extensions:`', () => {
    const text = 'extensions:\n  # my servers\n  a:\n    cmd: a\n  # the b server\n  b:\n    cmd: b\n  c:\n    cmd: c\n';
    expect(edited(text, edit('goose', 'yaml', ['extensions'], ['a', 'b']))).toBe(`extensions:\n  # my servers\n  c:\n    cmd: c\n${gooseEntry}\n`);
  });

  it('takes a shallow comment between two lines of a removed entry, keeps one after it', () => {
    const text = 'extensions:\n  a:\n    cmd: x\n# inside a\n    args: [1]\n  # above b\n  b:\n    cmd: y\n';
    expect(edited(text, edit('goose', 'yaml', ['extensions'], ['a']))).toBe(`extensions:\n  # above b\n  b:\n    cmd: y\n${gooseEntry}\n`);
  });
});

describe('entries with nested values (what unwrap --merge puts back through the same editors)', () => {
  const value = { command: 'npx', args: ['-y', 'pkg'], env: { KEY: 'v "q"', 'ODD KEY': 'C:\\x' }, timeout: 30, enabled: false, tools: { search: { approval: 'never' } }, list: [{ a: 1 }, { b: [true] }] };

  it.each<[ClientFileFormat, string[], string]>([
    ['jsonc', ['servers'], '{\n  // c\n  "servers": {\n    "a": {}\n  }\n}\n'],
    ['yaml', ['extensions'], 'extensions:\n  a:\n    cmd: a\n'],
    ['toml', ['mcp_servers'], '[mcp_servers.a]\ncommand = "a"\n'],
  ])('writes them so %s reads them back', (format, serversAt, text) => {
    const editor = format === 'yaml' ? editYamlText : format === 'toml' ? editTomlText : editJsonText;
    const result = editor(text, { serversAt, remove: ['a'], addName: 'restored one', addValue: value });
    if ('refused' in result) throw new Error(result.refused);
    expect(mapIn(parseAs(result.text, format), serversAt)).toEqual({ 'restored one': value });
  });
});
