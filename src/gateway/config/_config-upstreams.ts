import { isAbsolute, resolve } from 'node:path';
import { CLIENT_ENTRY_KEYS, URL_KEYS, childPath, type Problems } from '../../config/index.js';
import { isEnvName, type LaunchSpec, type RemoteAuthMode } from '../../mcp/index.js';
import type { UpstreamSpec } from './_config-types.js';
import { fillFolders, inputReference, templateProblem } from './_env-templates.js';
import { foreignKeys, ignoredKeysNote } from './_foreign-keys.js';
import { isPlainObject, setOwn, type JsonObject } from '../../json/index.js';

export const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const STDIO_KEYS = ['command', 'args', 'env', 'cwd'];
const HTTP_KEYS = ['url', 'headers', 'auth'];
/** `transportType` is Cline's `type`; `serverUrl` (Windsurf) and `httpUrl` (Gemini) are `url`. */
const ENTRY_KEYS = [...STDIO_KEYS, ...HTTP_KEYS, 'type', 'transportType', 'disabled', ...URL_KEYS.filter((key) => key !== 'url'), 'envFile', 'headersHelper'];
/** How clients spell the streamable HTTP transport, case and separators aside: `http` (VS Code, Claude Code), `streamableHttp` (Cline). */
const HTTP_TYPES = ['http', 'streamablehttp'];
// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface ParsedServers {
  readonly upstreams: UpstreamSpec[];
  readonly skipped: string[];
  /** Every configured name, disabled ones included (rules may name them). */
  readonly names: string[];
}

/** Where the config sits, for what is relative to it, and the notes of what was read past. */
export interface EntryContext {
  /** The config file's folder: a relative `cwd` or `command` (`./server.js`) is resolved from it. */
  readonly baseDir: string;
  /** What `${workspaceFolder}` and `${userHome}` stand for. */
  readonly folders: { readonly workspaceFolder: string; readonly userHome: string };
  readonly notes: string[];
}

/**
 * The server map in the shape MCP clients write it (`path` is where it was found: `mcpServers`,
 * VS Code's `servers`). `disabled: true` entries are skipped without further checks (a disabled
 * entry is often one that does not work yet). Keys only clients read are noted and ignored.
 */
export function parseServers(value: unknown, path: string, problems: Problems, context: EntryContext): ParsedServers {
  const parsed: ParsedServers = { upstreams: [], skipped: [], names: [] };
  const servers = problems.mapping(value, path, 'server name to { command, args?, env?, cwd? } or { url, headers? }');
  if (servers === undefined) return parsed;
  if (Object.keys(servers).length === 0) problems.add(path, 'must name at least one server');
  for (const [name, entry] of Object.entries(servers)) {
    const at = childPath(path, name);
    if (!SERVER_NAME.test(name)) problems.add(at, 'a server name is 1 to 64 letters, digits, _ or -');
    parsed.names.push(name);
    const fields = problems.mapping(entry, at, 'settings ({ command, ... } or { url, ... })');
    if (fields === undefined) continue;
    if (fields.disabled !== undefined && problems.boolean(fields.disabled, childPath(at, 'disabled')) === true) {
      parsed.skipped.push(name);
      continue;
    }
    const spec = parseEntry(name, withFolders(fields, context), at, problems, context);
    if (spec !== undefined) parsed.upstreams.push(spec);
  }
  if (Object.keys(servers).length > 0 && parsed.upstreams.length === 0 && parsed.skipped.length === parsed.names.length) {
    problems.add(path, 'every server is disabled; enable at least one');
  }
  return parsed;
}

/** The entry with `${workspaceFolder}` and `${userHome}` filled in wherever a string holds them (env and header names stay). */
function withFolders(fields: JsonObject, context: EntryContext): JsonObject {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') return fillFolders(value, context.folders);
    if (Array.isArray(value)) return value.map(fill);
    if (!isPlainObject(value)) return value;
    const filled: JsonObject = {};
    for (const [key, inner] of Object.entries(value)) setOwn(filled, key, fill(inner));
    return filled;
  };
  return fill(fields) as JsonObject;
}

function parseEntry(name: string, fields: JsonObject, at: string, problems: Problems, context: EntryContext): UpstreamSpec | undefined {
  const note = ignoredKeysNote(at, foreignKeys(fields, ENTRY_KEYS, at, problems), CLIENT_ENTRY_KEYS);
  if (note !== undefined) context.notes.push(note);
  if (fields.envFile !== undefined) context.notes.push(`${childPath(at, 'envFile')}: not read by the gateway; give the server its variables under env (values as \${NAME} from the gateway's environment)`);
  if (fields.headersHelper !== undefined) context.notes.push(`${childPath(at, 'headersHelper')}: not run by the gateway; give the headers under headers (values as \${NAME})`);
  const typeKey = fields.type === undefined && fields.transportType !== undefined ? 'transportType' : 'type';
  const type = transportOf(fields[typeKey], childPath(at, typeKey), problems);
  if (type === 'invalid') return undefined;
  const urlKeys = URL_KEYS.filter((key) => fields[key] !== undefined);
  if (urlKeys.length > 1) {
    problems.add(at, `has ${urlKeys.join(' and ')}; a server has one url`);
    return undefined;
  }
  const urlKey = urlKeys[0];
  const hasCommand = fields.command !== undefined;
  if (hasCommand && urlKey !== undefined) {
    problems.add(at, `has both command and ${urlKey}; a server is either a local command or a remote url`);
    return undefined;
  }
  if (!hasCommand && urlKey === undefined) {
    problems.add(at, 'needs command (a local server) or url (a remote server)');
    return undefined;
  }
  let spec: UpstreamSpec | undefined;
  if (hasCommand) {
    if (type !== undefined && type !== 'stdio') problems.add(childPath(at, typeKey), `is ${String(fields[typeKey])} but the server has a command; a command is type stdio`);
    for (const key of HTTP_KEYS) if (fields[key] !== undefined) problems.add(childPath(at, key), 'belongs to url servers, not to a command');
    const launch = parseLaunch(fields, at, problems, context.baseDir);
    spec = launch === undefined ? undefined : { name, kind: 'stdio', launch };
  } else {
    if (type === 'stdio') problems.add(childPath(at, typeKey), 'is stdio but the server has a url; a url is type http');
    for (const key of STDIO_KEYS) if (fields[key] !== undefined) problems.add(childPath(at, key), 'belongs to command servers, not to a url');
    const url = parseUrl(fields[urlKey as string], childPath(at, urlKey as string), problems);
    const headers = fields.headers === undefined ? {} : parseHeaders(fields.headers, childPath(at, 'headers'), problems);
    const auth = fields.auth === undefined ? undefined : authOf(fields.auth, childPath(at, 'auth'), problems);
    spec =
      url === undefined || headers === undefined || auth === null
        ? undefined
        : { name, kind: 'http', url, headers, ...(type === 'sse' ? { transport: 'sse' as const } : {}), ...(auth === undefined ? {} : { auth }) };
  }
  if (spec === undefined) return undefined;
  const cannotServe = askedInput(spec);
  return cannotServe === undefined ? spec : { ...spec, cannotServe };
}

/** `oauth` or `none`; null (with a problem) for anything else. */
function authOf(value: unknown, path: string, problems: Problems): RemoteAuthMode | null {
  if (value === 'oauth' || value === 'none') return value;
  problems.add(path, 'must be oauth (use the login stored by mcpctx auth login) or none (never send one)');
  return null;
}

/** The transport a `type` names: undefined when not given, `invalid` (with a problem) when no client means it. */
function transportOf(value: unknown, path: string, problems: Problems): 'stdio' | 'http' | 'sse' | 'invalid' | undefined {
  if (value === undefined) return undefined;
  const folded = typeof value === 'string' ? value.toLowerCase().replace(/[-_]/g, '') : undefined;
  if (folded === 'stdio' || folded === 'sse') return folded;
  if (folded !== undefined && HTTP_TYPES.includes(folded)) return 'http';
  problems.add(path, `must be stdio, http (or streamable-http, streamableHttp) or sse, got ${JSON.stringify(value)}`);
  return 'invalid';
}

/** Why an entry that needs a value VS Code asks its user for (`${input:ID}`) cannot be served. */
function askedInput(spec: UpstreamSpec): string | undefined {
  const templates = spec.kind === 'stdio' ? [spec.launch.command, ...(spec.launch.args ?? []), ...Object.values(spec.launch.env ?? {})] : [spec.url, ...Object.values(spec.headers)];
  for (const template of templates) {
    const id = inputReference(template);
    if (id !== undefined) return `it uses \${input:${id}}, a value VS Code asks its user for and the gateway cannot; write \${env:NAME} and set NAME in the gateway's environment`;
  }
  return undefined;
}

/**
 * A command with a folder in it (`./server.js`, `bin/server`) is a file next to the config, as its
 * `cwd` is; a bare name (`node`, `npx`) is looked up on PATH, and one built from variables is
 * taken as they make it.
 */
function parseLaunch(fields: Readonly<Record<string, unknown>>, at: string, problems: Problems, baseDir: string): LaunchSpec | undefined {
  const command = fields.command;
  if (typeof command !== 'string' || command.trim() === '') problems.add(childPath(at, 'command'), 'must be a non-empty string');
  const args = fields.args === undefined ? [] : scalarList(fields.args, childPath(at, 'args'), problems);
  const env = fields.env === undefined ? undefined : parseEnv(fields.env, childPath(at, 'env'), problems);
  let cwd: string | undefined;
  if (fields.cwd !== undefined) {
    if (typeof fields.cwd !== 'string' || fields.cwd === '') problems.add(childPath(at, 'cwd'), 'must be a non-empty string (a folder)');
    else cwd = isAbsolute(fields.cwd) ? fields.cwd : resolve(baseDir, fields.cwd);
  }
  if (typeof command !== 'string' || args === undefined) return undefined;
  const local = /[\\/]/.test(command) && !isAbsolute(command) && !command.includes('${');
  return { command: local ? resolve(baseDir, command) : command, args, ...(env === undefined ? {} : { env }), ...(cwd === undefined ? {} : { cwd }) };
}

/** Strings, or numbers and booleans written bare in YAML (`- 8080`), as strings. */
function scalarList(value: unknown, path: string, problems: Problems): string[] | undefined {
  if (!Array.isArray(value)) {
    problems.add(path, 'must be a list of strings');
    return undefined;
  }
  return value.flatMap((item: unknown, index) => {
    if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') return [String(item)];
    problems.add(`${path}[${index}]`, 'must be a string');
    return [];
  });
}

function parseEnv(value: unknown, path: string, problems: Problems): Record<string, string> | undefined {
  const given = problems.mapping(value, path, 'variable name to value');
  if (given === undefined) return undefined;
  const env: Record<string, string> = {};
  for (const [name, raw] of Object.entries(given)) {
    const at = childPath(path, name);
    if (!isEnvName(name)) problems.add(at, 'is not a variable name (letters, digits and _, not starting with a digit)');
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
      problems.add(at, 'must be a string (a literal or ${NAME} from the gateway\'s environment)');
      continue;
    }
    const text = String(raw);
    const problem = templateProblem(text);
    if (problem !== undefined) problems.add(at, problem);
    setOwn(env, name, text);
  }
  return env;
}

function parseUrl(value: unknown, path: string, problems: Problems): string | undefined {
  if (typeof value !== 'string') {
    problems.add(path, 'must be an http:// or https:// URL');
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.add(path, 'is not a URL; write http:// or https://host/path');
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.add(path, `must be an http:// or https:// URL, not ${url.protocol}`);
    return undefined;
  }
  return value;
}

function parseHeaders(value: unknown, path: string, problems: Problems): Record<string, string> | undefined {
  const given = problems.mapping(value, path, 'header name to a value with ${NAME} references');
  if (given === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(given)) {
    const at = childPath(path, name);
    if (!HEADER_NAME.test(name)) problems.add(at, 'is not a valid HTTP header name');
    if (typeof template !== 'string') {
      problems.add(at, 'must be a string with ${NAME} references');
      continue;
    }
    // The value itself is never echoed: it may be the very secret that does not belong here.
    const problem = templateProblem(template);
    if (problem !== undefined) problems.add(at, problem);
    else if (!/\$\{[^}]+\}/.test(template)) problems.add(at, 'header values come from the environment; write ${NAME} (for example "Bearer ${API_TOKEN}")');
    setOwn(headers, name, template);
  }
  return headers;
}
