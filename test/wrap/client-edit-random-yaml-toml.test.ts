// 100 random Goose-style YAML files and 100 random Codex-style TOML files (comments, blank lines,
// indents, list styles, sub-tables placed elsewhere, CRLF): after the edit the server map parses
// to exactly the intended entries, the rest of the file to what it was, and the text before the
// map's first entry is unchanged. Seeded, so a failure names the file that broke.
import { describe, expect, it } from 'vitest';
import { editClientText, type ClientFileFormat } from '../../src/wrap/_client-edit.js';
import { generator, parseAs } from './_client-edit-support.js';

interface Written {
  text: string;
  names: string[];
  /** Where the map's first entry (YAML) or first server table (TOML) starts: the text before it must not change. */
  firstEntryAt: number;
  /** Each entry's own text by name (comments inside it included): a kept one must be in the result as it was. */
  own: Record<string, string>;
}

const NAMES = ['developer', 'memory', 'fs', 'github', 'x-y', 'everything', 'z9'];
const COMMANDS = ['npx', 'uvx', 'C:\\tools\\srv.exe', '/usr/bin/env'];

function randomYaml(random: () => number): Written {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const eol = random() < 0.3 ? '\r\n' : '\n';
  const unit = pick(['  ', '    ']);
  const lines: string[] = ['# goose config', 'GOOSE_PROVIDER: anthropic'];
  if (random() < 0.5) lines.push('GOOSE_SEARCH_PATHS:', '- /usr/local/bin', `${unit}# trailing comment`);
  lines.push(pick(['extensions:', 'extensions: # servers']));
  const names = NAMES.filter(() => random() < 0.5);
  const before = lines.join(eol) + eol;
  const entries: string[] = [];
  const ownText: Record<string, string> = {};
  for (const name of names) {
    const own: string[] = [];
    if (random() < 0.3) own.push(`${unit}# about ${name}`);
    own.push(`${unit}${name}:`);
    const inner = unit + unit;
    own.push(`${inner}name: ${name}`, `${inner}type: stdio`, `${inner}cmd: ${JSON.stringify(pick(COMMANDS))}`);
    const style = pick(['flow', 'block', 'indentless']);
    if (style === 'flow') own.push(`${inner}args: ["-y", "pkg-${name}"]`);
    else if (style === 'block') own.push(`${inner}args:`, `${inner}${unit}- -y`, `${inner}${unit}- pkg-${name}`);
    else own.push(`${inner}args:`, `${inner}- -y`, `${inner}- pkg-${name}`);
    if (random() < 0.3) own.push(`${inner}# inside ${name}`);
    own.push(`${inner}enabled: ${pick(['true', 'false'])}`);
    if (random() < 0.5) own.push(`${inner}envs: {}`);
    else own.push(`${inner}envs:`, `${inner}${unit}KEY: value`);
    own.push(`${inner}timeout: 300`);
    ownText[name] = own.join(eol);
    if (random() < 0.3) own.push('');
    entries.push(own.join(eol));
  }
  const after = [random() < 0.5 ? 'GOOSE_MODE: smart_approve' : '# the end', ''].join(eol);
  if (names.length === 0) return { text: `${before}${unit}placeholder:${eol}${unit}${unit}cmd: x${eol}${after}`, names: ['placeholder'], firstEntryAt: before.length, own: {} };
  const text = before + entries.join(eol) + eol + after;
  const firstEntryAt = before.length;
  return { text: random() < 0.2 ? text.replace(/(\r?\n)$/, '') : text, names, firstEntryAt, own: ownText };
}

function randomToml(random: () => number): Written {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const eol = random() < 0.3 ? '\r\n' : '\n';
  const head = ['# codex config', 'model = "gpt-5-codex"', `approval_policy = ${JSON.stringify('on-request')}`, ''].join(eol) + eol;
  const names = NAMES.filter(() => random() < 0.5);
  if (names.length === 0) names.push('only');
  const blocks: string[] = [];
  const later: string[] = [];
  const ownText: Record<string, string> = {};
  for (const name of names) {
    const own: string[] = [];
    if (random() < 0.3) own.push(`# about ${name}`);
    own.push(random() < 0.2 ? `[mcp_servers."${name}"]` : `[mcp_servers.${name}] ${random() < 0.3 ? '# table' : ''}`.trimEnd());
    own.push(`command = ${JSON.stringify(pick(COMMANDS))}`);
    if (random() < 0.5) own.push(`args = ["-y", "pkg-${name}"]`);
    else own.push('args = [', '  "-y", # flag', `  "pkg-${name}",`, ']');
    if (random() < 0.3) own.push('description = """', `[mcp_servers.not-${name}]`, 'multi-line"""');
    if (random() < 0.3) own.push('# enabled = false');
    const env = [`[mcp_servers.${name}.env]`, 'KEY = "value"'];
    const envPlace = random();
    if (envPlace < 0.3) later.push(env.join(eol));
    else if (envPlace < 0.5) own.push('', ...env);
    ownText[name] = own.join(eol);
    blocks.push(own.join(eol));
  }
  const tail = ['[tui]', 'notifications = true', ...later.flatMap((block) => ['', block])].join(eol);
  const text = head + blocks.join(eol + eol) + eol + eol + tail + (random() < 0.2 ? '' : eol);
  return { text, names, firstEntryAt: head.length, own: ownText };
}

function check(format: ClientFileFormat, client: 'goose' | 'codex-cli', serversAt: string[], written: Written, random: () => number, label: string): void {
  const { text, names, firstEntryAt, own } = written;
  const remove = names.filter(() => random() < 0.5);
  const add = { name: 'mcpctx-gateway', command: 'mcpctx', args: ['gateway', 'run'] };
  const result = editClientText(text, { client, format, serversAt, remove, add });
  const context = `${label}:\n${text}\n--- result:\n${'text' in result ? result.text : result.refused}`;
  expect('text' in result, context).toBe(true);
  if (!('text' in result)) return;
  const before = parseAs(text, format) as Record<string, Record<string, unknown>>;
  const after = parseAs(result.text, format) as Record<string, Record<string, unknown>>;
  const oldMap = before[serversAt[0] as string] as Record<string, unknown>;
  const newMap = after[serversAt[0] as string] as Record<string, unknown>;
  const kept = names.filter((name) => !remove.includes(name));
  expect(Object.keys(newMap), context).toEqual([...kept, add.name]);
  for (const name of kept) expect(newMap[name], context).toEqual(oldMap[name]);
  after[serversAt[0] as string] = oldMap;
  expect(after, context).toEqual(before);
  expect(result.text.slice(0, firstEntryAt), context).toBe(text.slice(0, firstEntryAt));
  for (const name of kept) if (own[name] !== undefined) expect(result.text, context).toContain(own[name]);
  if (text.includes('\r\n')) expect(result.text.replace(/\r\n/g, ''), context).not.toContain('\n');
}

describe('random YAML and TOML client files', () => {
  it('edits 100 Goose config.yaml files exactly', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const random = generator(seed);
      check('yaml', 'goose', ['extensions'], randomYaml(random), random, `yaml seed ${seed}`);
    }
  });

  it('edits 100 Codex config.toml files exactly', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const random = generator(seed);
      check('toml', 'codex-cli', ['mcp_servers'], randomToml(random), random, `toml seed ${seed}`);
    }
  });
});
