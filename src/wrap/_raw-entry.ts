/**
 * A client's server entry as the gateway config takes it: `{command, args, env, cwd}` or
 * `{url, headers, type}`, whatever the client spells (Goose `cmd`/`envs`, Zed's nested
 * `command: {path, args, env}`, Codex `http_headers`/`bearer_token_env_var`, Windsurf `serverUrl`,
 * Gemini `httpUrl`). Values are copied as written: `${NAME}` stays for the gateway to fill at its
 * start, except what only makes sense where the file was (`${workspaceFolder}`, `${userHome}`, a
 * relative cwd or command path), which is resolved now because the gateway config lives elsewhere.
 */
import type * as SmolToml from 'smol-toml';
import { isAbsolute, resolve } from 'node:path';
import { URL_KEYS, parseJsonText, parseYamlText } from '../config/index.js';
import { isPlainObject, setOwn, type JsonObject } from '../json/index.js';
import { lazyRequire } from '../lazy/index.js';
import type { ConfigFormat } from '../audit/index.js';

const toml = lazyRequire<typeof SmolToml>('smol-toml');

/** The document of a client file (already read by audit, so it parses). */
export function parseClientDocument(text: string, format: ConfigFormat): JsonObject | undefined {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let value: unknown;
  if (format === 'toml') {
    try {
      value = toml().parse(body);
    } catch {
      return undefined;
    }
  } else {
    const parsed = format === 'yaml' ? parseYamlText(body) : parseJsonText(body);
    if (!('value' in parsed)) return undefined;
    value = parsed.value;
  }
  return isPlainObject(value) ? value : undefined;
}

function own(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** The raw entries under `serversAt`, by name. */
export function rawServers(document: JsonObject, serversAt: readonly string[]): Map<string, JsonObject> {
  let node: unknown = document;
  for (const key of serversAt) node = isPlainObject(node) ? own(node, key) : undefined;
  const servers = new Map<string, JsonObject>();
  if (!isPlainObject(node)) return servers;
  for (const [name, entry] of Object.entries(node)) if (isPlainObject(entry)) servers.set(name, entry);
  return servers;
}

/** Where `${workspaceFolder}`, `${userHome}` and relative paths point at wrap time. */
export interface EntryFolders {
  workspaceFolder: string;
  userHome: string;
  /** The folder the client starts servers from: a relative cwd or command path is from here. */
  startFolder: string;
}

export type GatewayServer = JsonObject;

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? [...(value as string[])] : undefined;
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (!isPlainObject(value)) return undefined;
  const map: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) if (typeof item === 'string') setOwn(map, key, item);
  return map;
}

function fillFolders(value: string, folders: EntryFolders): string {
  return value.replaceAll('${workspaceFolder}', folders.workspaceFolder).replaceAll('${userHome}', folders.userHome);
}

/** Gemini CLI also expands `$NAME` in env values; the gateway knows only `${NAME}`. */
function braceBareVariables(value: string): string {
  return value.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, '${$1}');
}

function hasFolder(command: string): boolean {
  return command.includes('/') || command.includes('\\');
}

/** The entry in the gateway's shape; the client-only keys (timeouts, approvals, filters) are left behind. */
export function gatewayServerOf(raw: JsonObject, client: string, folders: EntryFolders): GatewayServer {
  const server: GatewayServer = {};
  let command = own(raw, 'command') ?? own(raw, 'cmd');
  let args = own(raw, 'args');
  let env = own(raw, 'env') ?? own(raw, 'envs');
  if (isPlainObject(command)) {
    const nested = command;
    command = own(nested, 'path');
    args = own(nested, 'args') ?? args;
    env = own(nested, 'env') ?? env;
  }
  const fill = (value: string): string => fillFolders(value, folders);
  if (typeof command === 'string') {
    const filled = fill(command);
    server.command = hasFolder(filled) && !isAbsolute(filled) ? resolve(folders.startFolder, filled) : filled;
    const list = strings(args);
    if (list !== undefined && list.length > 0) server.args = list.map(fill);
    const variables = stringMap(env);
    if (variables !== undefined && Object.keys(variables).length > 0) {
      const filled: Record<string, string> = {};
      for (const [name, value] of Object.entries(variables)) setOwn(filled, name, client === 'gemini-cli' ? braceBareVariables(fill(value)) : fill(value));
      server.env = filled;
    }
    const cwd = own(raw, 'cwd');
    if (typeof cwd === 'string' && cwd !== '') server.cwd = resolve(folders.startFolder, fill(cwd));
    return server;
  }
  for (const key of URL_KEYS) {
    const url = own(raw, key);
    if (typeof url === 'string') {
      server.url = fill(url);
      break;
    }
  }
  const type = own(raw, 'type') ?? own(raw, 'transport');
  if (typeof type === 'string' && /^sse$/i.test(type)) server.type = 'sse';
  else if (client === 'gemini-cli' && own(raw, 'httpUrl') === undefined && own(raw, 'url') !== undefined) server.type = 'sse';
  const headers: Record<string, string> = { ...stringMap(own(raw, 'headers')), ...stringMap(own(raw, 'http_headers')) };
  const fromVariables = stringMap(own(raw, 'env_http_headers'));
  for (const [name, variable] of Object.entries(fromVariables ?? {})) setOwn(headers, name, `\${${variable}}`);
  const bearer = own(raw, 'bearer_token_env_var');
  if (typeof bearer === 'string' && bearer !== '') setOwn(headers, 'Authorization', `Bearer \${${bearer}}`);
  if (Object.keys(headers).length > 0) server.headers = headers;
  return server;
}

/**
 * What the client does for an entry at launch that the gateway would not: such an entry stays in
 * the client's file (fronted, its server would start without what it needs).
 */
export function clientOnlyLaunch(raw: JsonObject): string | undefined {
  if (own(raw, 'env_keys') !== undefined) return "it takes variables from Goose's keyring (env_keys), which the gateway cannot read";
  if (own(raw, 'env_vars') !== undefined) return 'Codex forwards variables to it by name (env_vars); the gateway entry would not receive them';
  if (own(raw, 'envFile') !== undefined) return 'it reads an envFile, which the gateway does not';
  if (own(raw, 'headersHelper') !== undefined) return 'its headers come from a headersHelper command, which the gateway does not run';
  if (JSON.stringify(raw).includes('${input:')) return 'it uses ${input:ID}, a value VS Code asks its user for; the gateway cannot ask';
  return undefined;
}

const SECRET_KEYS = new Set(['env', 'envs', 'headers', 'http_headers']);

/**
 * Every string under an `env`/`envs`/`headers`/`http_headers` object, and the user and password
 * of every URL, anywhere in a document (other
 * projects' entries in ~/.claude.json included, since a diff's context lines may reach them).
 * Bounded: a config is shallow; deeper nodes are not walked.
 */
export function documentSecrets(document: JsonObject): string[] {
  const values: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > 12) return;
    if (Array.isArray(node)) for (const item of node) walk(item, depth + 1);
    else if (isPlainObject(node)) {
      for (const [key, value] of Object.entries(node)) {
        if (SECRET_KEYS.has(key) && isPlainObject(value)) {
          for (const item of Object.values(value)) if (typeof item === 'string' && item !== '') values.push(item);
        } else if ((URL_KEYS as readonly string[]).includes(key) && typeof value === 'string') {
          // A user and password in a URL are credentials too.
          const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@]+)@/i.exec(value)?.[1];
          if (userinfo !== undefined) values.push(userinfo);
        } else walk(value, depth + 1);
      }
    }
  };
  walk(document, 0);
  return values;
}
