import { isAbsolute, resolve } from 'node:path';
import { childPath, type Problems } from '../../config/index.js';
import { isEnvName, type LaunchSpec } from '../../mcp/index.js';
import type { UpstreamSpec } from './_config-types.js';
import { templateProblem } from './_env-templates.js';
import { setOwn } from '../../json/index.js';

export const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const STDIO_KEYS = ['command', 'args', 'env', 'cwd'];
const HTTP_KEYS = ['url', 'headers'];
const ENTRY_KEYS = [...STDIO_KEYS, ...HTTP_KEYS, 'type', 'disabled'];
const HTTP_TYPES = ['http', 'streamable-http'];
// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface ParsedServers {
  readonly upstreams: UpstreamSpec[];
  readonly skipped: string[];
  /** Every configured name, disabled ones included (rules may name them). */
  readonly names: string[];
}

/**
 * `mcpServers` in the shape MCP clients write it. `disabled: true` entries are skipped without
 * further checks (a disabled entry is often one that does not work yet). `baseDir` resolves a
 * relative `cwd` (the config file's folder).
 */
export function parseServers(value: unknown, problems: Problems, baseDir: string | undefined): ParsedServers {
  const parsed: ParsedServers = { upstreams: [], skipped: [], names: [] };
  const path = 'mcpServers';
  if (value === undefined) {
    problems.add(path, 'is required: a mapping of server name to { command, args?, env?, cwd? } or { url, headers? }');
    return parsed;
  }
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
    const spec = parseEntry(name, fields, at, problems, baseDir);
    if (spec !== undefined) parsed.upstreams.push(spec);
  }
  if (Object.keys(servers).length > 0 && parsed.upstreams.length === 0 && parsed.skipped.length === parsed.names.length) {
    problems.add(path, 'every server is disabled; enable at least one');
  }
  return parsed;
}

function parseEntry(name: string, fields: Readonly<Record<string, unknown>>, at: string, problems: Problems, baseDir: string | undefined): UpstreamSpec | undefined {
  problems.unknownKeys(fields, ENTRY_KEYS, at);
  const type = fields.type;
  if (type === 'sse') {
    problems.add(childPath(at, 'type'), 'the legacy SSE transport is not supported; use a streamable HTTP url (type: http) or a stdio command');
    return undefined;
  }
  if (type !== undefined && type !== 'stdio' && !HTTP_TYPES.includes(type as string)) {
    problems.add(childPath(at, 'type'), `must be stdio, http or streamable-http, got ${JSON.stringify(type)}`);
    return undefined;
  }
  const hasCommand = fields.command !== undefined;
  const hasUrl = fields.url !== undefined;
  if (hasCommand && hasUrl) {
    problems.add(at, 'has both command and url; a server is either a local command or a remote url');
    return undefined;
  }
  if (!hasCommand && !hasUrl) {
    problems.add(at, 'needs command (a local server) or url (a remote server)');
    return undefined;
  }
  if (hasCommand) {
    if (type !== undefined && type !== 'stdio') problems.add(childPath(at, 'type'), `is ${String(type)} but the server has a command; a command is type stdio`);
    for (const key of HTTP_KEYS) if (fields[key] !== undefined) problems.add(childPath(at, key), 'belongs to url servers, not to a command');
    const launch = parseLaunch(fields, at, problems, baseDir);
    return launch === undefined ? undefined : { name, kind: 'stdio', launch };
  }
  if (type === 'stdio') problems.add(childPath(at, 'type'), 'is stdio but the server has a url; a url is type http');
  for (const key of STDIO_KEYS) if (fields[key] !== undefined) problems.add(childPath(at, key), 'belongs to command servers, not to a url');
  const url = parseUrl(fields.url, childPath(at, 'url'), problems);
  const headers = fields.headers === undefined ? {} : parseHeaders(fields.headers, childPath(at, 'headers'), problems);
  return url === undefined || headers === undefined ? undefined : { name, kind: 'http', url, headers };
}

function parseLaunch(fields: Readonly<Record<string, unknown>>, at: string, problems: Problems, baseDir: string | undefined): LaunchSpec | undefined {
  const command = fields.command;
  if (typeof command !== 'string' || command.trim() === '') problems.add(childPath(at, 'command'), 'must be a non-empty string');
  const args = fields.args === undefined ? [] : scalarList(fields.args, childPath(at, 'args'), problems);
  const env = fields.env === undefined ? undefined : parseEnv(fields.env, childPath(at, 'env'), problems);
  let cwd: string | undefined;
  if (fields.cwd !== undefined) {
    if (typeof fields.cwd !== 'string' || fields.cwd === '') problems.add(childPath(at, 'cwd'), 'must be a non-empty string (a folder)');
    else cwd = baseDir === undefined || isAbsolute(fields.cwd) ? fields.cwd : resolve(baseDir, fields.cwd);
  }
  if (typeof command !== 'string' || args === undefined) return undefined;
  return { command, args, ...(env === undefined ? {} : { env }), ...(cwd === undefined ? {} : { cwd }) };
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
