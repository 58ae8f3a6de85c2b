import { isDeepStrictEqual } from 'node:util';
import type * as SmolToml from 'smol-toml';
import { lazyRequire } from '../lazy/index.js';
import { parseJsonText, parseYamlText } from '../config/index.js';
import { isPlainObject, setOwn, type JsonObject } from '../json/index.js';
import type { ServerMapEdit } from './_edit-types.js';
import { keyPathText } from './_edit-text.js';
import { editJsonText } from './_edit-json.js';
import { editYamlText } from './_edit-yaml.js';
import { editTomlText } from './_edit-toml.js';

const toml = lazyRequire<typeof SmolToml>('smol-toml');

/**
 * The format-preserving editor `mcpctx gateway wrap` uses on a client's MCP config: it takes the
 * servers the gateway fronts out of the client's server map and puts the one entry that starts the
 * gateway in, splicing text at offsets so every other byte (comments, key order, indentation,
 * blank lines, trailing commas, CRLF, a BOM, the final newline or its absence) stays as it was.
 * The result is then parsed again and must give exactly the intended document (the map with the
 * removed entries gone and the added one last, everything else equal), or the edit is refused.
 * It never throws: a file it cannot edit safely comes back as `refused` with the reason.
 */

export type ClientFileFormat = 'json' | 'jsonc' | 'yaml' | 'toml';
export type WrapClientId = 'claude-code' | 'claude-desktop' | 'cursor' | 'vscode' | 'windsurf' | 'gemini-cli' | 'zed' | 'goose' | 'codex-cli' | 'kiro' | 'custom';
export interface GatewayEntry {
  name: string;
  command: string;
  args: readonly string[];
}
export interface ClientEdit {
  /** Decides the shape of the added entry. */
  client: WrapClientId;
  format: ClientFileFormat;
  /** Key path of the server map: ['mcpServers'], ['projects', '/abs/cwd', 'mcpServers'], ['mcp', 'servers'], ['servers'], ['context_servers'], ['extensions'], ['mcp_servers']. */
  serversAt: readonly string[];
  /** Names of the server entries to take out (the ones the gateway fronts). */
  remove: readonly string[];
  /** The one entry that starts the gateway. */
  add: GatewayEntry;
}
export type EditResult = { text: string } | { refused: string };

/** A config is a few kilobytes; ~/.claude.json grows with history, but not past this (as the audit reads). */
const MAX_EDIT_CHARS = 16 * 1024 * 1024;

export function editClientText(text: string, edit: ClientEdit): EditResult {
  try {
    return editChecked(text, edit);
  } catch (error) {
    // A parser's stack overflow on a hostile nesting, or a bug: refused, never thrown at the command.
    return { refused: `the file could not be edited (${error instanceof Error ? error.message.split('\n')[0]?.slice(0, 200) : String(error)}); edit it by hand` };
  }
}

function editChecked(text: string, edit: ClientEdit): EditResult {
  if (text.length > MAX_EDIT_CHARS) return { refused: `the file is over ${MAX_EDIT_CHARS / (1024 * 1024)} MiB, more than a client config holds; edit it by hand` };
  if (edit.serversAt.length === 0) return { refused: 'no key path of the server map was given' };
  if (edit.add.name === '') return { refused: "the gateway's entry needs a name" };
  if (new Set(edit.remove).size !== edit.remove.length) return { refused: 'a server is named twice in the list to remove' };
  if (edit.format === 'toml' && edit.client !== 'codex-cli' && edit.client !== 'custom') return { refused: `${edit.client} does not read TOML` };

  // A UTF-8 byte order mark is not part of the document: edit after it, put it back in front.
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = text.slice(bom.length);
  const mapEdit: ServerMapEdit = { serversAt: edit.serversAt, remove: edit.remove, addName: edit.add.name, addValue: entryFor(edit.client, edit.add) };
  const spliced = spliceServerMap(body, edit.format, mapEdit);
  if ('refused' in spliced) return spliced;
  const mismatch = checkResult(body, spliced.text, edit.format, mapEdit);
  if (mismatch !== undefined) return { refused: `the edited file would not read as intended (${mismatch}); nothing was changed: edit it by hand` };
  return { text: bom + spliced.text };
}

/** One splice of the server map by the format's editor, unchecked (the caller checks the whole result). */
export function spliceServerMap(body: string, format: ClientFileFormat, edit: ServerMapEdit): EditResult {
  if (format === 'yaml') return editYamlText(body, edit);
  if (format === 'toml') return editTomlText(body, edit);
  return editJsonText(body, edit);
}

/**
 * The entry that starts the gateway, in the shape each client documents (and the audit reads back).
 * Checked on 2026-12-05 against the vendors' own pages:
 * - Claude Code: `type: "stdio"` and `env` are what `claude mcp add` writes
 *   (https://docs.anthropic.com/en/docs/claude-code/mcp).
 * - VS Code: `type` is required in mcp.json (https://code.visualstudio.com/docs/copilot/chat/mcp-servers).
 * - Zed: a server that is not an extension is `"source": "custom"` with command, args, env
 *   ("As Custom Servers", https://zed.dev/docs/ai/mcp, zed-industries/zed docs/src/ai/mcp.md).
 * - Goose: a stdio extension in config.yaml carries type, name, enabled, cmd, args, envs, timeout
 *   (https://block.github.io/goose/docs/guides/config-files, "Common extension shapes"; its
 *   `env_keys: []` is optional and left out).
 * - Codex: `[mcp_servers.NAME]` with `command` and `args` (https://developers.openai.com/codex/mcp,
 *   "Configure with config.toml").
 * - Claude Desktop, Cursor, Windsurf, Gemini CLI, Kiro and a file of no known client: `command` and `args`.
 */
export function entryFor(client: WrapClientId, add: GatewayEntry): JsonObject {
  const args = [...add.args];
  switch (client) {
    case 'claude-code':
      return { type: 'stdio', command: add.command, args, env: {} };
    case 'vscode':
      return { type: 'stdio', command: add.command, args };
    case 'zed':
      return { source: 'custom', command: add.command, args, env: {} };
    case 'goose':
      return { name: add.name, type: 'stdio', cmd: add.command, args, enabled: true, envs: {}, timeout: 300 };
    default:
      return { command: add.command, args };
  }
}

function parseFormat(text: string, format: ClientFileFormat): { value: unknown } | { failed: string } {
  if (format === 'toml') {
    try {
      return { value: toml().parse(text) };
    } catch (error) {
      return { failed: `not valid TOML: ${error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)}` };
    }
  }
  const parsed = format === 'yaml' ? parseYamlText(text) : parseJsonText(text);
  if ('value' in parsed) return parsed;
  if ('unparsable' in parsed) return { failed: parsed.unparsable };
  const { message, line, column } = parsed.syntaxErrors[0];
  return { failed: `${message} at line ${line}, column ${column}` };
}

/** Why `after` does not parse to `before` with the map edited, or undefined when it does. */
function checkResult(before: string, after: string, format: ClientFileFormat, edit: ServerMapEdit): string | undefined {
  // Parsed afresh, so the intended document is built on a copy of its own (TOML dates stay TOML dates).
  const old = parseFormat(before, format);
  const now = parseFormat(after, format);
  if ('failed' in now) return now.failed;
  if ('failed' in old) return old.failed;
  const expected = withMap(old.value, edit);
  if (expected === undefined) return `${keyPathText(edit.serversAt)} is not where it was expected`;
  if (!isDeepStrictEqual(plainValue(now.value), plainValue(expected))) return `${keyPathText(edit.serversAt)} or the rest of the file came out different`;
  // A strict JSON file (Claude Desktop reads its file with JSON.parse) stays strict: no comma or comment of ours may creep in.
  if (format === 'json' && strictJson(before) && !strictJson(after)) return 'the result is no longer strict JSON';
  const map = mapOf(now.value, edit.serversAt);
  const names = map === undefined ? [] : Object.keys(map);
  if (names.at(-1) !== edit.addName) return `the entry ${JSON.stringify(edit.addName)} is not the map's last`;
  return undefined;
}

function strictJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function mapOf(document: unknown, path: readonly string[]): JsonObject | undefined {
  let node = document;
  for (const key of path) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return isPlainObject(node) ? node : undefined;
}

/** `document` changed in place to hold the server map as the edit intends it (missing levels created). */
function withMap(document: unknown, edit: ServerMapEdit): unknown {
  let node: unknown = document ?? {};
  const top = node;
  for (const [depth, key] of edit.serversAt.entries()) {
    if (!isPlainObject(node)) return undefined;
    const last = depth === edit.serversAt.length - 1;
    const existing = Object.hasOwn(node, key) ? node[key] : undefined;
    if (last) {
      const old = isPlainObject(existing) ? existing : {};
      const map: JsonObject = {};
      for (const [name, value] of Object.entries(old)) if (!edit.remove.includes(name)) setOwn<unknown>(map, name, value);
      setOwn<unknown>(map, edit.addName, edit.addValue);
      setOwn<unknown>(node, key, map);
    } else {
      if (existing === undefined || existing === null) setOwn<unknown>(node, key, {});
      node = node[key];
    }
  }
  return top;
}

/**
 * Objects rebuilt with the ordinary prototype (smol-toml builds null-prototype tables, the intended
 * map is built with `{}`), so the comparison sees keys and values only. A stack overflow on a
 * hostile nesting is caught by editClientText.
 */
export function plainValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainValue);
  if (!isPlainObject(value)) return value;
  const copy: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) setOwn<unknown>(copy, key, plainValue(inner));
  return copy;
}
