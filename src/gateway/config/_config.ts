import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, extname, resolve } from 'node:path';
import { CLIENT_TOP_KEYS, Problems, childPath, configError, parseConfigText, type ConfigProblem, type ConfigSyntax } from '../../config/index.js';
import { McpctxError } from '../../errors/index.js';
import type { LaunchSpec } from '../../mcp/index.js';
import { isPlainObject } from '../../json/index.js';
import { MAX_SAFETY_FACTOR } from '../../tokens/index.js';
import { parseNamePatterns, parseSearch, parseToolRules, type Naming } from './_config-rules.js';
import { DEFAULT_CAP_TOKENS, DEFAULT_SEPARATOR, type GatewayConfig, type PinSettings } from './_config-types.js';
import { SERVER_NAME, parseServers, type EntryContext } from './_config-upstreams.js';
import { foreignKeys, ignoredKeysNote } from './_foreign-keys.js';

/** A config is a few kilobytes, but a client's whole file may be given: ~/.claude.json grows with history. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;
/** The error's message opens `Invalid gateway config <file>`. */
const WHAT = 'gateway config';

const TOP_KEYS = ['mcpServers', 'allow', 'deny', 'capTokens', 'claudeSafetyFactor', 'offload', 'search', 'tools', 'separator', 'pin', 'scan', 'confirmDestructive'];
const PIN_KEYS = ['file', 'mode'];
/** Where the servers may be, besides `mcpServers`: VS Code's mcp.json (`servers`) and settings.json (`mcp.servers`). */
const SERVER_MAPS = [['mcpServers'], ['servers'], ['mcp', 'servers']] as const;
/** Rules of one tool written at the top level, where they would apply to nothing. */
const TOOL_RULES_AT_TOP = Object.fromEntries(
  ['description', 'maxDescriptionTokens', 'dropOutputSchema', 'drop', 'project', 'format', 'pageTokens', 'maxTokens'].map((key) => [key, `is a rule of one tool; write it under tools.NAME.${key}`]),
);

/**
 * Parses and checks a gateway config, YAML or JSON (JSON may have comments and trailing commas,
 * as VS Code writes it), or a client's whole config file as it is (Claude Desktop, Claude Code,
 * Cursor, VS Code, Cline, Windsurf): its own settings are noted in `notes` and ignored. Every
 * problem is collected; any problem throws INVALID_CONFIG with `data.problems` (each a path and a
 * reason) and `data.file`.
 */
export function parseGatewayConfig(text: string, options: { file?: string } = {}): GatewayConfig {
  const file = options.file;
  if (text.length > MAX_CONFIG_BYTES) throw invalidConfig([{ path: '(file)', reason: `is over ${MAX_CONFIG_BYTES} characters; a gateway config is a few kilobytes` }], file);
  const document = parseConfigText(text, file ?? null, WHAT, gatewaySyntax(text, file));
  const problems = new Problems();
  if (!isPlainObject(document)) {
    problems.add('(file)', 'must be a mapping with at least mcpServers');
    throw invalidConfig(problems.list, file);
  }
  const baseDir = file === undefined ? process.cwd() : dirname(resolve(file));
  const notes: string[] = [];
  const map = serverMap(document, problems);
  const ignored = foreignKeys(document, map === undefined || TOP_KEYS.includes(map.key) ? TOP_KEYS : [...TOP_KEYS, map.key], '', problems, TOOL_RULES_AT_TOP);
  const clientKeys = Object.fromEntries(Object.entries(CLIENT_TOP_KEYS).map(([key, client]) => [key, `${client}'s`]));
  const note = ignoredKeysNote('top level', ignored, clientKeys);
  if (note !== undefined) notes.push(note);
  const separator = parseSeparator(document.separator, problems);
  const context: EntryContext = { baseDir, folders: { workspaceFolder: workspaceFolderOf(baseDir), userHome: homedir() }, notes };
  const servers = map === undefined ? { upstreams: [], skipped: [], names: [] } : parseServers(map.value, map.path, problems, context);
  const naming: Naming = { separator, servers: servers.names };
  if (servers.upstreams.length > 1) {
    for (const name of servers.names) {
      if (name.includes(separator)) problems.add(childPath(map?.path ?? 'mcpServers', name), `contains the separator "${separator}"; rename the server or set another separator`);
    }
  }
  const config: GatewayConfig = {
    upstreams: servers.upstreams,
    skipped: servers.skipped,
    separator,
    allow: parseNamePatterns(document.allow, 'allow', problems, naming),
    deny: parseNamePatterns(document.deny, 'deny', problems, naming),
    capTokens: document.capTokens === undefined ? DEFAULT_CAP_TOKENS : (problems.integer(document.capTokens, 'capTokens', 50, 10_000_000) ?? DEFAULT_CAP_TOKENS),
    ...claudeSafetyFactorOf(document.claudeSafetyFactor, problems),
    offload: document.offload === undefined ? true : (problems.boolean(document.offload, 'offload') ?? true),
    search: parseSearch(document.search, problems, naming),
    ...parsePin(document.pin, problems, file === undefined ? undefined : dirname(resolve(file))),
    scan: document.scan === undefined ? 'warn' : (problems.oneOf(document.scan, 'scan', ['off', 'warn', 'hold'] as const) ?? 'warn'),
    confirmDestructive: document.confirmDestructive === undefined ? false : (problems.boolean(document.confirmDestructive, 'confirmDestructive') ?? false),
    tools: parseToolRules(document.tools, problems, naming),
    notes,
    ...(file === undefined ? {} : { file }),
  };
  if (problems.list.length > 0) throw invalidConfig(problems.list, file);
  return config;
}

/** Reads and checks a config file. An unreadable file is IO; a bad one INVALID_CONFIG. */
export async function loadGatewayConfig(file: string): Promise<GatewayConfig> {
  let text: string;
  try {
    const info = await stat(file);
    if (info.isFile() && info.size > MAX_CONFIG_BYTES) {
      throw invalidConfig([{ path: '(file)', reason: `is ${info.size} bytes, over ${MAX_CONFIG_BYTES}; a gateway config is a few kilobytes` }], file);
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof McpctxError) throw error;
    throw new McpctxError('IO', `Cannot read the gateway config ${file}: ${(error as Error).message}`, { file }, { cause: error });
  }
  return parseGatewayConfig(text, { file });
}

/**
 * The config of `mcpctx gateway -- <command>`: one stdio upstream named after the command's
 * file name (sanitised to a server name), every setting at its default.
 */
export function configForCommand(launch: LaunchSpec): GatewayConfig {
  const file = basename(launch.command.replace(/\\/g, '/'));
  const stem = file.slice(0, file.length - extname(file).length) || file;
  const sanitised = stem.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);
  const name = SERVER_NAME.test(sanitised) ? sanitised : 'upstream';
  return {
    upstreams: [{ name, kind: 'stdio', launch }],
    skipped: [],
    separator: DEFAULT_SEPARATOR,
    allow: undefined,
    deny: undefined,
    capTokens: DEFAULT_CAP_TOKENS,
    offload: true,
    search: { enabled: false, topK: 5, pinned: [] },
    scan: 'warn',
    confirmDestructive: false,
    tools: Object.create(null) as GatewayConfig['tools'],
    notes: [],
  };
}

/**
 * The server map: `mcpServers` (Claude Desktop, Claude Code, Cursor, Cline, Windsurf), VS Code's
 * `servers`, or `mcp.servers` of a VS Code settings.json. Exactly one: two would leave it unclear
 * which servers are meant.
 */
function serverMap(document: Readonly<Record<string, unknown>>, problems: Problems): { key: string; path: string; value: unknown } | undefined {
  const found = SERVER_MAPS.flatMap((keys) => {
    const [key, inner] = keys;
    const value = Object.hasOwn(document, key) ? document[key] : undefined;
    if (inner === undefined) return value === undefined ? [] : [{ key, path: key as string, value }];
    return isPlainObject(value) && Object.hasOwn(value, inner) ? [{ key, path: `${key}.${inner}`, value: value[inner] }] : [];
  });
  const [first, second] = found;
  if (first === undefined) {
    problems.add('mcpServers', 'is required: a mapping of server name to { command, args?, env?, cwd? } or { url, headers? } (VS Code\'s servers map is read too)');
    return undefined;
  }
  if (second !== undefined) problems.add(second.path, `holds servers as ${first.path} does; keep one map of servers`);
  return first;
}

/** VS Code's `${workspaceFolder}`: the folder that holds `.vscode/mcp.json`, else the config's own folder. */
function workspaceFolderOf(baseDir: string): string {
  return basename(baseDir) === '.vscode' ? dirname(baseDir) : baseDir;
}

function parseSeparator(value: unknown, problems: Problems): string {
  if (value === undefined) return DEFAULT_SEPARATOR;
  if (typeof value !== 'string' || value === '' || /\s/.test(value)) {
    problems.add('separator', 'must be a non-empty string without whitespace (default "__")');
    return DEFAULT_SEPARATOR;
  }
  return value;
}

/**
 * The gateway's own rule for the syntax: JSON for `.json`/`.jsonc` files and for any text that
 * opens with `{`, even in a `.yaml` file (the shared `configSyntax` reads that one as a YAML flow
 * mapping); YAML otherwise.
 */
function gatewaySyntax(text: string, file: string | undefined): ConfigSyntax {
  return (file !== undefined && /\.jsonc?$/i.test(file)) || text.trimStart().startsWith('{') ? 'json' : 'yaml';
}

function invalidConfig(problems: readonly ConfigProblem[], file: string | undefined): McpctxError {
  return configError(problems, file ?? null, WHAT);
}

/** `pin: { file, mode }`: the pin file (relative to the config's folder) and how a first contact is treated. */
function parsePin(value: unknown, problems: Problems, baseDir: string | undefined): { pin?: PinSettings } {
  if (value === undefined) return {};
  const given = problems.mapping(value, 'pin', 'file and mode');
  if (given === undefined) return {};
  problems.unknownKeys(given, PIN_KEYS, 'pin');
  const file = problems.text(given.file, 'pin.file', true);
  const mode = given.mode === undefined ? 'tofu' : problems.oneOf(given.mode, 'pin.mode', ['tofu', 'strict'] as const);
  if (file === undefined || mode === undefined) return {};
  return { pin: { file: baseDir === undefined ? resolve(file) : resolve(baseDir, file), mode } };
}

/** `claudeSafetyFactor`: absent, or a calibrated factor (0 < f <= MAX_SAFETY_FACTOR). */
export function claudeSafetyFactorOf(value: unknown, problems: Problems): { claudeSafetyFactor?: number } {
  if (value === undefined) return {};
  const factor = problems.numberIn(value, 'claudeSafetyFactor', 0, MAX_SAFETY_FACTOR);
  return factor === undefined ? {} : { claudeSafetyFactor: factor };
}
