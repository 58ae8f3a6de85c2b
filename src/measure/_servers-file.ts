import type * as Yaml from 'yaml';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { McpctxError } from '../errors/index.js';
import { lazyRequire } from '../lazy/index.js';
import { checkBudgetMs, checkRemoteSpec, isEnvName, type RemoteSpec } from '../mcp/index.js';
import { isPlainObject, setOwn } from '../json/index.js';
import { safeSegment } from './_files.js';
import type { MeasureOptions } from './_measure.js';

const yaml = lazyRequire<typeof Yaml>('yaml');

/**
 * Declared by an entry this harness cannot run (a platform the package does not ship for, a backing
 * service the sweep does not provide). A sweep publishes `not-applicable` only when the failure's
 * own words contain `expect`; otherwise the real failure is published.
 */
export interface NotApplicable {
  reason: string;
  expect: string;
}

/** One server of a servers file: how to measure it, and what the file declares about it. */
export interface ServerEntry extends MeasureOptions {
  notApplicable?: NotApplicable;
}

export interface ServersFile {
  /** The entries to measure, in file order: `launch` has `command` (stdio) or `url` (remote). */
  servers: ServerEntry[];
}

const LAUNCH_KEYS = ['command', 'args', 'env', 'cwd'];
const OPTION_KEYS = ['capabilities', 'protocolVersion', 'timeoutMs', 'runs', 'notApplicable'];
/** Keys that name a remote server instead of a command. */
const REMOTE_KEYS = ['url', 'headers', 'type', 'transportType', 'auth'];
const LIST_KEYS = new Set(['name', ...LAUNCH_KEYS, ...OPTION_KEYS, ...REMOTE_KEYS]);
// Settings MCP clients keep beside a server in their config (Claude Desktop, Cursor, Cline,
// Windsurf): about how the client uses the server, not how it starts, so they are ignored.
const CLIENT_SETTINGS = ['disabled', 'autoApprove', 'alwaysAllow', 'disabledTools', 'timeout', 'description'];
const MAP_KEYS = new Set([...LAUNCH_KEYS, ...OPTION_KEYS, ...REMOTE_KEYS, ...CLIENT_SETTINGS]);
const STDIO_TYPES = new Set(['stdio']);
/** `type` (or Cline's `transportType`) of a remote entry: `sse` forces the older HTTP+SSE transport, the others streamable HTTP. */
const REMOTE_TYPES: ReadonlyMap<string, RemoteSpec['transport']> = new Map([
  ['sse', 'sse'],
  ['http', 'streamable-http'],
  ['streamable-http', 'streamable-http'],
  ['streamableHttp', 'streamable-http'],
]);

/** The transport a client config's `type` names for a url entry (`sse`, `http`, `streamable-http`...); undefined for any other value. */
export function remoteTransportOfType(type: string): RemoteSpec['transport'] | undefined {
  return REMOTE_TYPES.get(type);
}

/**
 * Reads a servers file, YAML or JSON, in either form:
 * - a list of servers (`name`, `command`, `args`, `env`, `cwd`, and optionally `capabilities`,
 *   `protocolVersion`, `timeoutMs`, `runs`), bare or under `servers:`;
 * - an MCP client's map, `{"mcpServers": {"<name>": {"command", "args", "env"}}}` as Claude
 *   Desktop and Cursor write it (or VS Code's `{"servers": {...}}`); client settings such as
 *   `disabled` or `autoApprove` are ignored.
 * An entry with `url` instead of `command` is a remote server: `headers` maps a header name to the
 * NAME of the environment variable holding its value (never the value: a value that is not a
 * variable name is refused), `type: sse` forces the older HTTP+SSE transport, `http` or
 * `streamable-http` streamable HTTP, and without `type` the transport is detected. A relative
 * `cwd` is taken from the file's folder, which is also the default.
 */
export async function loadServersFile(file: string): Promise<ServersFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const usage = code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
    throw new McpctxError(usage ? 'USAGE' : 'IO', `cannot read servers file ${file}: ${(error as Error).message}`, { file });
  }
  let document: unknown;
  try {
    document = yaml().parse(text);
  } catch (error) {
    throw invalid(file, `not valid YAML or JSON: ${(error as Error).message}`);
  }
  const entries = serverEntries(document);
  if (!entries || entries.length === 0) {
    throw invalid(
      file,
      'expected a non-empty list of servers (each with at least name and command), or an MCP client config with a non-empty "mcpServers" map',
    );
  }
  const folder = dirname(resolve(file));
  const seen = new Map<string, string>();
  const result: ServersFile = { servers: [] };
  for (const [index, { name, entry, fromMap }] of entries.entries()) {
    const where = fromMap ? `${file}: server "${name ?? ''}"` : `${file}: entry ${index + 1}`;
    const parsed = serverEntry(entry, name, where, folder, fromMap);
    const label = parsed.name;
    const segment = safeSegment(label);
    const clash = seen.get(segment);
    if (clash !== undefined) throw invalid(file, `${fromMap ? `server "${label}"` : `entry ${index + 1}`}: name "${label}" collides with "${clash}"; names must be unique`);
    seen.set(segment, label);
    result.servers.push(parsed);
  }
  return result;
}

interface RawEntry {
  name: string | undefined;
  entry: unknown;
  fromMap: boolean;
}

function serverEntries(document: unknown): RawEntry[] | undefined {
  const list = Array.isArray(document) ? document : isPlainObject(document) ? (document.mcpServers ?? document.servers) : undefined;
  if (Array.isArray(list)) return list.map((entry) => ({ name: undefined, entry, fromMap: false }));
  if (isPlainObject(list)) return Object.entries(list).map(([name, entry]) => ({ name, entry, fromMap: true }));
  return undefined;
}

function serverEntry(entry: unknown, mapName: string | undefined, where: string, folder: string, fromMap: boolean): ServerEntry {
  if (!isPlainObject(entry)) throw invalidEntry(where, 'is not a mapping');
  const allowed = fromMap ? MAP_KEYS : LIST_KEYS;
  const unknown = Object.keys(entry).filter((key) => !allowed.has(key));
  if (unknown.length > 0) throw invalidEntry(where, `has unknown key(s) ${unknown.join(', ')}; allowed: ${[...allowed].join(', ')}`);
  const name = mapName ?? requiredString(entry.name, where, 'name');
  if (name.trim() === '') throw invalidEntry(where, 'needs a non-empty name');
  // The name becomes a table cell, a CSV field and a file name: one printable line.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalidEntry(where, `name ${JSON.stringify(name)} holds a control character (a line break, a tab); use a plain one-line name`);
  const place = fromMap ? where : `${where} (${name})`;
  const type = entry.type ?? entry.transportType;
  if (type !== undefined && (typeof type !== 'string' || (!STDIO_TYPES.has(type) && !REMOTE_TYPES.has(type)))) {
    throw invalidEntry(place, `has type ${JSON.stringify(type)}; known: stdio, ${[...REMOTE_TYPES.keys()].join(', ')}`);
  }
  if (entry.command !== undefined && entry.url !== undefined) throw invalidEntry(place, 'has both command and url; give command for a server to launch, url for a remote one');
  const remote = entry.url !== undefined || (typeof type === 'string' && REMOTE_TYPES.has(type) && entry.command === undefined);
  const options: ServerEntry = {
    name,
    launch: remote ? remoteLaunch(entry, place, typeof type === 'string' ? type : undefined) : stdioLaunch(entry, place, folder, typeof type === 'string' ? type : undefined),
  };
  // A cwd is recorded relative to the file's folder, as the file gives it.
  if (!remote) options.cwdBase = folder;
  if (entry.capabilities !== undefined) options.capabilities = stringList(entry.capabilities, place, 'capabilities');
  if (entry.protocolVersion !== undefined) options.protocolVersion = requiredString(entry.protocolVersion, place, 'protocolVersion');
  if (entry.timeoutMs !== undefined) {
    try {
      options.timeoutMs = checkBudgetMs(entry.timeoutMs, 'timeoutMs');
    } catch (error) {
      throw invalidEntry(place, (error as Error).message);
    }
  }
  if (entry.runs !== undefined) options.runs = positiveInteger(entry.runs, place, 'runs');
  if (entry.notApplicable !== undefined) options.notApplicable = notApplicable(entry.notApplicable, place);
  return options;
}

function stdioLaunch(entry: Record<string, unknown>, place: string, folder: string, type: string | undefined): ServerEntry['launch'] {
  if (type !== undefined && !STDIO_TYPES.has(type)) throw invalidEntry(place, `has type ${type} but command instead of url; a remote server needs url`);
  if (entry.headers !== undefined) throw invalidEntry(place, 'has headers, which only a remote server (url) takes; a command gets env');
  if (entry.auth !== undefined) throw invalidEntry(place, 'has auth, which only a remote server (url) takes');
  return {
    command: requiredString(entry.command, place, 'command'),
    args: stringList(entry.args, place, 'args'),
    cwd: entry.cwd === undefined ? folder : resolve(folder, requiredString(entry.cwd, place, 'cwd')),
    env: envMap(entry.env, place),
  };
}

function remoteLaunch(entry: Record<string, unknown>, place: string, type: string | undefined): RemoteSpec {
  if (type !== undefined && STDIO_TYPES.has(type)) throw invalidEntry(place, 'has type stdio but url instead of command');
  const stdioKeys = ['args', 'env', 'cwd'].filter((key) => entry[key] !== undefined);
  if (stdioKeys.length > 0) {
    throw invalidEntry(place, `is a remote server (url) and has ${stdioKeys.join(', ')}, which only a command takes; send credentials with headers: { Header-Name: ENV_VAR_NAME }`);
  }
  const spec: RemoteSpec = { url: requiredString(entry.url, place, 'url') };
  if (entry.headers !== undefined && entry.headers !== null) {
    if (!isPlainObject(entry.headers)) throw invalidEntry(place, 'headers must be a mapping of Header-Name: ENV_VAR_NAME');
    const headers: Record<string, string> = {};
    for (const [header, envName] of Object.entries(entry.headers)) {
      // Never quote the value: when it is not a variable name, it is most likely the secret itself.
      if (typeof envName !== 'string' || !isEnvName(envName)) {
        throw invalidEntry(
          place,
          `headers.${header} must be the NAME of the environment variable that holds the value (like MY_TOKEN), never the value itself; set the variable and give its name`,
        );
      }
      setOwn(headers, header, envName);
    }
    spec.headers = headers;
  }
  const transport = type === undefined ? undefined : REMOTE_TYPES.get(type);
  if (transport !== undefined) spec.transport = transport;
  if (entry.auth !== undefined) {
    if (entry.auth !== 'oauth' && entry.auth !== 'none') {
      throw invalidEntry(place, 'auth must be oauth (use the login stored by mcpctx auth login URL) or none (never send one)');
    }
    spec.auth = entry.auth;
  }
  try {
    checkRemoteSpec(spec);
  } catch (error) {
    throw invalidEntry(place, (error as Error).message);
  }
  return spec;
}

function notApplicable(value: unknown, where: string): NotApplicable {
  if (!isPlainObject(value)) throw invalidEntry(where, 'notApplicable must be a mapping with reason and expect');
  const unknown = Object.keys(value).filter((key) => key !== 'reason' && key !== 'expect');
  if (unknown.length > 0) throw invalidEntry(where, `notApplicable has unknown key(s) ${unknown.join(', ')}; allowed: reason, expect`);
  // An empty expectation would match every failure and hide a real breakage.
  return { reason: requiredString(value.reason, where, 'notApplicable.reason'), expect: requiredString(value.expect, where, 'notApplicable.expect') };
}

function requiredString(value: unknown, where: string, key: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalidEntry(where, `needs ${key} as a non-empty string`);
  return value;
}

function stringList(value: unknown, where: string, key: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidEntry(where, `${key} must be a list`);
  return value.map((item, index) => {
    if (typeof item === 'string') return item;
    if (typeof item === 'number' || typeof item === 'boolean') return String(item);
    throw invalidEntry(where, `${key}[${index}] must be a string`);
  });
}

function envMap(value: unknown, where: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) throw invalidEntry(where, 'env must be a mapping of NAME: value');
  const env: Record<string, string> = {};
  for (const [name, raw] of Object.entries(value)) {
    if (!isEnvName(name)) throw invalidEntry(where, `env name "${name}" is not a valid variable name`);
    if (typeof raw === 'string') setOwn(env, name, raw);
    else if (typeof raw === 'number' || typeof raw === 'boolean') setOwn(env, name, String(raw));
    else throw invalidEntry(where, `env ${name} must be a string`);
  }
  return env;
}

function positiveInteger(value: unknown, where: string, key: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalidEntry(where, `${key} must be a positive integer`);
  return value;
}

function invalid(file: string, message: string): McpctxError {
  return new McpctxError('INVALID_CONFIG', `${file}: ${message}`, { file });
}

function invalidEntry(where: string, message: string): McpctxError {
  return new McpctxError('INVALID_CONFIG', `${where} ${message}`, { where });
}
