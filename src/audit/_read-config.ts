import type * as SmolToml from 'smol-toml';
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { lazyRequire } from '../lazy/index.js';
import { EXPANSION, SERVER_MAP_PATHS, URL_KEYS, expansionName, firstLine, parseJsonText, parseYamlText } from '../config/index.js';
import { isPlainObject, type JsonObject, setOwn } from '../json/index.js';
import type { ConfigEntry, ConfigFormat, ConfigPlace, EntryTransport, Expansion, PlaceReport, PlaceState, ToolFilter } from './_types.js';

const toml = lazyRequire<typeof SmolToml>('smol-toml');

/**
 * Reads one config place into its server entries. Three steps, each refusing with a reason rather
 * than throwing: the bytes (bounded), the document (json/jsonc/yaml/toml, with the line and column
 * of a parse error), the entries (every client's field names, read leniently: an entry that cannot
 * be launched is kept with `problem` set). Values of env variables and headers go only into
 * `launchEnv` (env) or nowhere (headers): every other field is safe to print.
 */

/** A config is a few kilobytes; ~/.claude.json grows with history, but not past this. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

type Step<T> = { ok: T } | { state: PlaceState };

export async function readPlaces(places: ConfigPlace[]): Promise<PlaceReport[]> {
  return Promise.all(places.map((place) => readPlace(place)));
}

export async function readPlace(place: ConfigPlace): Promise<PlaceReport> {
  const report = (state: PlaceState, entries: ConfigEntry[] = [], serversAt = place.serversAt): PlaceReport => ({
    ...place,
    serversAt,
    state,
    entries,
  });
  const loaded = await loadText(place.path);
  if ('state' in loaded) return report(loaded.state);
  const parsed = parseText(loaded.ok, place.format);
  if ('state' in parsed) return report(parsed.state);
  const located = locateServers(parsed.ok, place.serversAt);
  if ('state' in located) return report(located.state);
  const { servers, at, holder } = located.ok;
  const entries = servers === undefined ? [] : Object.entries(servers).map(([name, raw]) => readEntry(place, name, raw));
  const read = report({ state: 'read' }, entries, at);
  if (holder !== undefined && place.switchPaths !== undefined) read.switches = switchesIn(holder, place.switchPaths);
  return read;
}

/** Lists of names and booleans at `paths` under `holder`; nothing else is kept (a value could be a secret). */
function switchesIn(holder: JsonObject, paths: ReadonlyArray<readonly string[]>): Record<string, string[] | boolean> {
  const switches: Record<string, string[] | boolean> = {};
  for (const path of paths) {
    let node: unknown = holder;
    for (const key of path) node = isPlainObject(node) ? field(node, key) : undefined;
    if (typeof node === 'boolean') setOwn(switches, path.join('.'), node);
    else if (Array.isArray(node)) setOwn(switches, path.join('.'), node.filter((item): item is string => typeof item === 'string'));
  }
  return switches;
}

// ---------------------------------------------------------------------------------------------
// The bytes
// ---------------------------------------------------------------------------------------------

function unreadable(why: string, where?: { line: number; column: number }): { state: PlaceState } {
  return { state: { state: 'unreadable', why, ...where } };
}

async function loadText(path: string): Promise<Step<string>> {
  let handle: FileHandle;
  try {
    // Non-blocking, so a FIFO nobody writes to opens at once (and is then refused) instead of hanging.
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return failed(error);
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) return unreadable('is a directory, not a file (EISDIR)');
    if (!info.isFile()) return unreadable('is not a regular file (a FIFO, socket or device is not read)');
    if (info.size > MAX_CONFIG_BYTES) return unreadable(tooLarge(`${info.size} bytes`));
    const bytes = await readAtMost(handle, MAX_CONFIG_BYTES);
    if (bytes === undefined) return unreadable(tooLarge(`more than ${MAX_CONFIG_BYTES} bytes`));
    // A UTF-8 byte order mark is not part of the document (editors on Windows write one).
    const text = bytes.toString('utf8');
    return { ok: text.startsWith('\uFEFF') ? text.slice(1) : text };
  } catch (error) {
    return failed(error);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function tooLarge(size: string): string {
  return `is ${size}, over the ${MAX_CONFIG_BYTES / (1024 * 1024)} MiB a config file is read up to`;
}

/** A missing file (or a missing folder on its path) is absent; anything else is a reason to show. */
function failed(error: unknown): { state: PlaceState } {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { state: { state: 'absent' } };
  return unreadable(error instanceof Error ? error.message : String(error));
}

/** The file's bytes, or undefined when it holds more than `maxBytes` (it may grow after the size check). */
async function readAtMost(handle: FileHandle, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    total += bytesRead;
    if (total > maxBytes) return undefined;
    chunks.push(chunk.subarray(0, bytesRead));
  }
}

// ---------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------

/**
 * Parse errors name the kind of error and where, never the text around it: the line could hold a
 * secret (the libraries' own messages quote the source, so only their first line is kept).
 */
function parseText(text: string, format: ConfigFormat): Step<JsonObject> {
  let document: unknown;
  if (format === 'toml') {
    try {
      document = toml().parse(text);
    } catch (error) {
      if (error instanceof toml().TomlError) {
        const message = firstLine(error.message).replace(/^Invalid TOML document: /, '');
        return unreadable(`not valid TOML: ${message}`, { line: error.line, column: error.column });
      }
      // A nesting deep enough to overflow the parser's stack.
      return unreadable(`cannot be parsed as TOML: ${error instanceof Error ? firstLine(error.message) : String(error)}`);
    }
  } else {
    // Claude's and Cursor's files are plain JSON, but their readers tolerate comments and
    // trailing commas the way VS Code's do, so one lenient parser reads both.
    const parsed = format === 'yaml' ? parseYamlText(text) : parseJsonText(text);
    if ('syntaxErrors' in parsed) {
      const { message, code, line, column } = parsed.syntaxErrors[0];
      return unreadable(format === 'yaml' ? `not valid YAML: ${message} (${code})` : `not valid JSON: ${message}`, { line, column });
    }
    // A nesting deep enough to overflow the parser's stack, an alias bomb in YAML.
    if ('unparsable' in parsed) return unreadable(`cannot be parsed as ${format.toUpperCase()}: ${parsed.unparsable}`);
    document = parsed.value;
  }
  if (!isPlainObject(document)) return unreadable(`expected an object at the top, found ${kindOf(document)}`);
  return { ok: document };
}

function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (isPlainObject(value)) return 'an object';
  return `a ${typeof value}`;
}

/** Own properties only: a key named like an Object.prototype member is just a key. */
function field(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** `projects["/home/me/app"].mcpServers`: keys that are not plain words are quoted. */
function keyPathText(path: readonly string[]): string {
  return path.map((key, index) => (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? (index === 0 ? key : `.${key}`) : `[${JSON.stringify(key)}]`)).join('');
}

interface Located {
  /** Undefined when the key path is not in the document: read, no entries. */
  servers: JsonObject | undefined;
  at: readonly string[];
  /** The object the last key is looked up in, when the path reaches it (the client's switches sit there). */
  holder?: JsonObject;
}

function locateServers(document: JsonObject, serversAt: readonly string[]): Step<Located> {
  if (serversAt.length > 0) return serversUnder(document, serversAt);
  for (const candidate of SERVER_MAP_PATHS) {
    const found = serversUnder(document, candidate);
    if ('state' in found || found.ok.servers !== undefined) return found;
  }
  return { ok: { servers: undefined, at: [] } };
}

function serversUnder(document: JsonObject, path: readonly string[]): Step<Located> {
  let node: unknown = document;
  let holder: JsonObject | undefined;
  for (const [depth, key] of path.entries()) {
    if (!isPlainObject(node)) return unreadable(`${keyPathText(path.slice(0, depth))} is ${kindOf(node)}, not an object`);
    if (depth === path.length - 1) holder = node;
    node = field(node, key);
    // An empty YAML section (`extensions:`) is null: nothing configured there, as when the key is missing.
    if (node === undefined || node === null) return { ok: holder === undefined ? { servers: undefined, at: path } : { servers: undefined, at: path, holder } };
  }
  if (!isPlainObject(node)) return unreadable(`${keyPathText(path)} is ${kindOf(node)}, not an object of servers by name`);
  return { ok: holder === undefined ? { servers: node, at: path } : { servers: node, at: path, holder } };
}

// ---------------------------------------------------------------------------------------------
// The entries
// ---------------------------------------------------------------------------------------------

/** Goose's extensions that run inside Goose itself: nothing to launch. */
const BUILTIN_TYPES = new Set(['builtin', 'platform']);
/** `type`/`transport` values that mean a URL, across clients (`streamable_http` is Goose's). */
const REMOTE_TYPE = /^(?:http|sse|streamable[-_]?http)$/i;

/** Gemini CLI's bare `$VAR` (a word after a dollar sign), beside the `${...}` form every client has. */
const BARE_DOLLAR = /\$(\w+)/g;

/**
 * Every variable the `${...}` references of a value name (`${VAR}`, `${env:VAR}`, `${VAR:-default}`),
 * and with `bareDollar` also `$VAR`, in order.
 */
function expansionVariables(value: string, bareDollar: boolean): string[] {
  const variables: string[] = [];
  for (const match of value.matchAll(EXPANSION)) {
    const { name } = expansionName(match[1] ?? '');
    if (name !== '' && !variables.includes(name)) variables.push(name);
  }
  if (bareDollar) {
    for (const match of value.matchAll(BARE_DOLLAR)) {
      const name = match[1] ?? '';
      if (!variables.includes(name)) variables.push(name);
    }
  }
  return variables;
}

/** What each client variable `ConfigPlace.substitutes` may hold stands for, for the note. */
const SUBSTITUTED_AS: Readonly<Record<string, string>> = {
  workspaceFolder: 'the audited folder',
  workspaceFolderBasename: "the audited folder's name",
  userHome: 'the home audited',
  pathSeparator: 'the path separator',
  '/': 'the path separator',
};

/** Collects what an entry says, and why it cannot be launched as written. */
class EntryReading {
  readonly expansions: Expansion[] = [];
  /** Reasons the entry cannot be launched. */
  readonly blockers: string[] = [];
  /** Lesser findings, told only alongside a blocker (a skipped variable does not stop a launch). */
  readonly notes: string[] = [];
  /** Findings told whether or not the entry launches (`ConfigEntry.notes`). */
  readonly told: string[] = [];
  /** Names of the client's own variables substituted, for one note. */
  readonly substituted = new Set<string>();

  constructor(private readonly place: ConfigPlace) {}

  /** The value with the client's own variables substituted (VS Code's `${workspaceFolder}`), scanned for the rest. */
  resolve(where: string, value: string): string {
    const substitutes = this.place.substitutes ?? {};
    const resolved = value.replace(EXPANSION, (match, inside: string) => {
      const name = inside.trim();
      if (!Object.hasOwn(substitutes, name)) return match;
      this.substituted.add(name);
      return substitutes[name] ?? match;
    });
    this.scan(where, resolved);
    return resolved;
  }

  scan(where: string, value: string): void {
    const variables = expansionVariables(value, this.place.bareDollarVariables === true);
    if (variables.length > 0) this.expansions.push({ where, variables });
  }

  /** Notes for `ConfigEntry.notes`: what was substituted, and a client variable left for a folder not known here. */
  finalNotes(): string[] {
    const notes = [...this.told];
    if (this.substituted.size > 0) {
      const names = [...this.substituted].map((name) => `\${${name}} as ${SUBSTITUTED_AS[name] ?? 'the client sets it'}`).join(', ');
      notes.push(`${names}: substituted as ${this.place.client === 'vscode' ? 'VS Code' : this.place.client} does in a ${this.place.scope} file`);
    }
    if (this.place.client === 'vscode' && this.place.scope !== 'workspace' && this.expansions.some((expansion) => expansion.variables.includes('workspaceFolder'))) {
      notes.push('${workspaceFolder} in a user VS Code file is the folder the window has open; audit does not assume one');
    }
    return notes;
  }

  problem(): string | undefined {
    return this.blockers.length === 0 ? undefined : [...this.blockers, ...this.notes].join('; ');
  }
}

function absent(value: unknown): boolean {
  return value === undefined || value === null;
}

function readEntry(place: ConfigPlace, name: string, raw: unknown): ConfigEntry {
  const entry: ConfigEntry = {
    name,
    client: place.client,
    scope: place.scope,
    path: place.path,
    transport: 'stdio',
    envNames: [],
    headerNames: [],
    disabled: false,
    alwaysLoad: false,
    expansions: [],
    launchEnv: {},
  };
  if (!isPlainObject(raw)) return { ...entry, problem: `the entry is ${kindOf(raw)}, not an object` };
  const reading = new EntryReading(place);

  // Zed's older form nests the launch in `command: { path, args, env }`; Goose calls it `cmd`.
  let commandValue = field(raw, 'command') ?? field(raw, 'cmd');
  let argsValue = field(raw, 'args');
  let envValue = field(raw, 'env') ?? field(raw, 'envs');
  if (isPlainObject(commandValue)) {
    const nested = commandValue;
    commandValue = field(nested, 'path');
    argsValue = field(nested, 'args') ?? argsValue;
    envValue = field(nested, 'env') ?? envValue;
  }
  const command = readCommand(commandValue, reading);
  const args = readArgs(argsValue, reading);
  readEnv(envValue, entry, reading);
  const url = readUrl(raw, reading);
  readHeaders(raw, entry, reading);

  const stated = field(raw, 'type') ?? field(raw, 'transport');
  const type = typeof stated === 'string' ? stated : undefined;
  const transport = transportOf(type, command, url?.value);
  if (transport === 'remote') {
    const remoteType = type !== undefined && REMOTE_TYPE.test(type) ? type : impliedRemoteType(place, url?.key);
    if (remoteType !== undefined) entry.remoteType = remoteType;
  }
  // A command or url of the wrong type already has its blocker; these are for ones not written at all.
  if (transport === 'stdio' && command === undefined && absent(commandValue)) reading.blockers.push(missingLaunch(raw, type, url !== undefined));
  if (transport === 'remote' && url === undefined && !URL_KEYS.some((key) => !absent(field(raw, key)))) {
    reading.blockers.push(`its type is "${type ?? ''}" but it has no url`);
  }

  entry.transport = transport;
  if (command !== undefined) entry.command = command;
  if (args !== undefined) entry.args = args;
  if (url !== undefined) entry.url = url.value;
  entry.disabled = field(raw, 'disabled') === true || field(raw, 'enabled') === false;
  entry.alwaysLoad = field(raw, 'alwaysLoad') === true;
  const filter = readToolFilter(raw, reading, TOOL_FILTER_KEYS[place.client]);
  if (filter !== undefined) entry.toolFilter = filter;
  entry.expansions = reading.expansions;
  entry.envNames.sort();
  entry.headerNames = [...new Set(entry.headerNames)].sort();
  const problem = reading.problem();
  if (problem !== undefined) entry.problem = problem;
  const notes = reading.finalNotes();
  if (notes.length > 0) entry.notes = notes;
  return entry;
}

/**
 * The keys each client reads as a per-server tool filter: Gemini CLI's `includeTools`/`excludeTools`
 * (its MCP configuration page), Codex CLI's `enabled_tools`/`disabled_tools` (openai/codex pull
 * request #5367, merged 2025-10-20), Kiro's and Windsurf's `disabledTools` (their MCP pages). Read
 * 2026-12-05. Other clients have none, so the same keys in their files are not applied.
 */
const TOOL_FILTER_KEYS: Partial<Record<ConfigPlace['client'], { include?: string; exclude: string }>> = {
  'gemini-cli': { include: 'includeTools', exclude: 'excludeTools' },
  'codex-cli': { include: 'enabled_tools', exclude: 'disabled_tools' },
  kiro: { exclude: 'disabledTools' },
  windsurf: { exclude: 'disabledTools' },
};

/**
 * A client's tool filter (lists of tool names). A list of the wrong type is told and left out: the
 * client would refuse its settings file, which this does not model.
 */
function readToolFilter(raw: JsonObject, reading: EntryReading, keys: { include?: string; exclude: string } | undefined): ToolFilter | undefined {
  if (keys === undefined) return undefined;
  const lists: { include?: string[]; exclude?: string[] } = {};
  const applied: string[] = [];
  for (const [side, key] of [['include', keys.include], ['exclude', keys.exclude]] as const) {
    if (key === undefined) continue;
    const value = field(raw, key);
    if (absent(value)) continue;
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      reading.told.push(`${key} is ${kindOf(value)}, not a list of tool names, and is not applied`);
      continue;
    }
    lists[side] = [...(value as string[])];
    applied.push(key);
  }
  return applied.length === 0 ? undefined : { ...lists, keys: applied.join('/') };
}

function transportOf(type: string | undefined, command: string | undefined, url: string | undefined): EntryTransport {
  if (type !== undefined && BUILTIN_TYPES.has(type)) return 'builtin';
  if (type !== undefined && REMOTE_TYPE.test(type)) return 'remote';
  if (type === 'stdio' || command !== undefined) return 'stdio';
  return url !== undefined ? 'remote' : 'stdio';
}

/**
 * Gemini CLI states the transport through the field name: `httpUrl` is streamable HTTP, `url` is
 * SSE. Other clients without a `type` leave it to the reader to try.
 */
function impliedRemoteType(place: ConfigPlace, urlKey: string | undefined): string | undefined {
  if (place.client !== 'gemini-cli') return undefined;
  if (urlKey === 'httpUrl') return 'http';
  if (urlKey === 'url') return 'sse';
  return undefined;
}

function missingLaunch(raw: JsonObject, type: string | undefined, hasUrl: boolean): string {
  // Zed extensions carry only their settings: the extension supplies the command.
  if (field(raw, 'source') === 'extension') return 'a Zed extension provides its command; the config holds only its settings';
  if (type === 'stdio' && hasUrl) return 'its type is "stdio" but it has a url and no command';
  if (type !== undefined && type !== 'stdio') return `its type "${type}" is not one mcpctx knows, and it has neither a command nor a url`;
  return 'it has neither a command nor a url';
}

function readCommand(value: unknown, reading: EntryReading): string | undefined {
  if (absent(value)) return undefined;
  if (typeof value !== 'string') {
    reading.blockers.push(`command is ${kindOf(value)}, not a string`);
    return undefined;
  }
  if (value.trim() === '') {
    reading.blockers.push('command is empty');
    return undefined;
  }
  return reading.resolve('command', value);
}

function readArgs(value: unknown, reading: EntryReading): string[] | undefined {
  if (absent(value)) return undefined;
  if (!Array.isArray(value)) {
    reading.blockers.push(`args is ${kindOf(value)}, not a list of strings`);
    return undefined;
  }
  const wrong = value.findIndex((arg) => typeof arg !== 'string');
  if (wrong !== -1) {
    reading.blockers.push(`args[${wrong}] is ${kindOf(value[wrong])}, not a string`);
    return undefined;
  }
  return (value as string[]).map((arg, index) => reading.resolve(`args[${index}]`, arg));
}

/** Literal values go to `launchEnv`; a value holding an expansion is named, never evaluated. */
function readEnv(value: unknown, entry: ConfigEntry, reading: EntryReading): void {
  if (absent(value)) return;
  if (!isPlainObject(value)) {
    reading.blockers.push(`env is ${kindOf(value)}, not a map of names to strings`);
    return;
  }
  for (const [name, setting] of Object.entries(value)) {
    entry.envNames.push(name);
    if (typeof setting !== 'string') {
      reading.notes.push(`env.${name} is ${kindOf(setting)}, not a string, and is left out`);
      continue;
    }
    const before = reading.expansions.length;
    const resolved = reading.resolve(`env.${name}`, setting);
    if (reading.expansions.length === before) setOwn(entry.launchEnv, name, resolved);
  }
}

/** The first of `URL_KEYS` the entry has. */
function readUrl(raw: JsonObject, reading: EntryReading): { key: string; value: string } | undefined {
  for (const key of URL_KEYS) {
    const value = field(raw, key);
    if (absent(value)) continue;
    if (typeof value !== 'string' || value.trim() === '') {
      reading.blockers.push(`${key} is ${typeof value === 'string' ? 'empty' : `${kindOf(value)}, not a string`}`);
      return undefined;
    }
    return { key, value: checkedUrl(value, reading) };
  }
  return undefined;
}

/** The scheme and the authority's user information (`https://user:pass@`): what a client would send as Basic credentials. */
const URL_USERINFO = /^(\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/\\?#]*@/;

/**
 * The url as audit reaches it. A user and password in it are dropped, never kept or printed: audit
 * sends no credential from a config (header values are not sent either), and `fetch` refuses a
 * URL holding one, which used to end the whole audit. A url that is not http(s) cannot be launched
 * and says why, without repeating it (it may hold a secret).
 */
function checkedUrl(value: string, reading: EntryReading): string {
  let url = value;
  const userinfo = URL_USERINFO.exec(url);
  if (userinfo !== null) {
    const what = userinfo[0].slice(userinfo[1]?.length ?? 0, -1).includes(':') ? 'a user name and password' : 'a user name';
    url = url.replace(URL_USERINFO, '$1');
    reading.told.push(
      `the url holds ${what}; audit does not send credentials from a url and reaches the server without them (put them in a header read from an environment variable)`,
    );
  }
  url = reading.resolve('url', url);
  if (reading.expansions.some((expansion) => expansion.where === 'url')) return url;
  if (!URL.canParse(url.trim())) {
    reading.blockers.push('url is not a valid URL');
    return url;
  }
  const parsed = new URL(url.trim());
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') reading.blockers.push(`url must start with http:// or https://, not ${parsed.protocol}`);
  return url;
}

/**
 * Header names only: their values are credentials. Codex spells them `http_headers`, and also
 * sends headers from variables (`env_http_headers`, `bearer_token_env_var`), told as expansions.
 */
function readHeaders(raw: JsonObject, entry: ConfigEntry, reading: EntryReading): void {
  for (const key of ['headers', 'http_headers']) {
    const headers = field(raw, key);
    if (absent(headers)) continue;
    if (!isPlainObject(headers)) {
      reading.blockers.push(`${key} is ${kindOf(headers)}, not a map of names to strings`);
      continue;
    }
    for (const [name, value] of Object.entries(headers)) {
      entry.headerNames.push(name);
      if (typeof value === 'string') reading.scan(`headers.${name}`, value);
      else reading.notes.push(`headers.${name} is ${kindOf(value)}, not a string, and is left out`);
    }
  }
  const fromVariables = field(raw, 'env_http_headers');
  if (isPlainObject(fromVariables)) {
    for (const [name, variable] of Object.entries(fromVariables)) {
      entry.headerNames.push(name);
      if (typeof variable === 'string' && variable !== '') reading.expansions.push({ where: `headers.${name}`, variables: [variable] });
    }
  }
  const bearer = field(raw, 'bearer_token_env_var');
  if (typeof bearer === 'string' && bearer !== '') {
    entry.headerNames.push('Authorization');
    reading.expansions.push({ where: 'headers.Authorization', variables: [bearer] });
  }
}
