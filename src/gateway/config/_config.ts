import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { McpctxError } from '../../errors/index.js';
import type { LaunchSpec } from '../../mcp/index.js';
import { isPlainObject } from '../../tokens/index.js';
import { Problems, childPath } from './_config-problems.js';
import { parseNamePatterns, parseSearch, parseToolRules, type Naming } from './_config-rules.js';
import { DEFAULT_CAP_TOKENS, DEFAULT_SEPARATOR, type ConfigProblem, type GatewayConfig } from './_config-types.js';
import { SERVER_NAME, parseServers } from './_config-upstreams.js';
import { stripJsonComments } from './_jsonc.js';

/** A config is a few kilobytes; anything this big is not one. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** Problems listed in the error's message; `data.problems` has all of them. */
const LISTED_PROBLEMS = 50;

const TOP_KEYS = ['mcpServers', 'allow', 'deny', 'capTokens', 'offload', 'search', 'tools', 'separator'];

/**
 * Parses and checks a gateway config, YAML or JSON (JSON may have comments and trailing commas,
 * as VS Code writes it). Every problem is collected; any problem throws INVALID_CONFIG with
 * `data.problems` (each a path and a reason) and `data.file`.
 */
export function parseGatewayConfig(text: string, options: { file?: string } = {}): GatewayConfig {
  const file = options.file;
  if (text.length > MAX_CONFIG_BYTES) throw invalidConfig([{ path: '(file)', reason: `is over ${MAX_CONFIG_BYTES} characters; a gateway config is a few kilobytes` }], file);
  const document = parseText(text, file);
  const problems = new Problems();
  if (!isPlainObject(document)) {
    problems.add('(file)', 'must be a mapping with at least mcpServers');
    throw invalidConfig(problems.list, file);
  }
  problems.unknownKeys(document, TOP_KEYS, '');
  const separator = parseSeparator(document.separator, problems);
  const servers = parseServers(document.mcpServers, problems, file === undefined ? undefined : dirname(resolve(file)));
  const naming: Naming = { namespaced: servers.upstreams.length > 1, separator, servers: servers.names };
  if (naming.namespaced) {
    for (const name of servers.names) {
      if (name.includes(separator)) problems.add(childPath('mcpServers', name), `contains the separator "${separator}"; rename the server or set another separator`);
    }
  }
  const config: GatewayConfig = {
    upstreams: servers.upstreams,
    skipped: servers.skipped,
    separator,
    allow: parseNamePatterns(document.allow, 'allow', problems, naming),
    deny: parseNamePatterns(document.deny, 'deny', problems, naming),
    capTokens: document.capTokens === undefined ? DEFAULT_CAP_TOKENS : (problems.integer(document.capTokens, 'capTokens', 50, 10_000_000) ?? DEFAULT_CAP_TOKENS),
    offload: document.offload === undefined ? true : (problems.boolean(document.offload, 'offload') ?? true),
    search: parseSearch(document.search, problems, naming),
    tools: parseToolRules(document.tools, problems, naming),
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
    tools: Object.create(null) as GatewayConfig['tools'],
  };
}

function parseSeparator(value: unknown, problems: Problems): string {
  if (value === undefined) return DEFAULT_SEPARATOR;
  if (typeof value !== 'string' || value === '' || /\s/.test(value)) {
    problems.add('separator', 'must be a non-empty string without whitespace (default "__")');
    return DEFAULT_SEPARATOR;
  }
  return value;
}

/** JSON (with comments) for `.json` files and texts that open with `{`; YAML otherwise. */
function parseText(text: string, file: string | undefined): unknown {
  const json = (file !== undefined && /\.jsonc?$/i.test(file)) || text.trimStart().startsWith('{');
  if (json) {
    const plain = stripJsonComments(text);
    try {
      return JSON.parse(plain) as unknown;
    } catch (error) {
      throw invalidConfig([{ path: '(file)', reason: `is not valid JSON: ${jsonErrorWhere(error as Error, plain)}` }], file);
    }
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter });
  if (document.errors.length > 0) {
    throw invalidConfig(
      document.errors.map((error) => {
        const where = lineCounter.linePos(error.pos[0]);
        return { path: '(file)', reason: `is not valid YAML at line ${where.line}, column ${where.col}: ${error.message}` };
      }),
      file,
    );
  }
  try {
    return document.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (error) {
    throw invalidConfig([{ path: '(file)', reason: `cannot be read as YAML: ${(error as Error).message}` }], file);
  }
}

/** JSON.parse's message with the position turned into a line and column of the file. */
function jsonErrorWhere(error: Error, text: string): string {
  const position = /position (\d+)/.exec(error.message);
  if (position?.[1] === undefined) return error.message;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${error.message.replace(/\s*\(line \d+ column \d+\)/, '')} (line ${line}, column ${column})`;
}

function invalidConfig(problems: readonly ConfigProblem[], file: string | undefined): McpctxError {
  const listed = problems.slice(0, LISTED_PROBLEMS).map(({ path, reason }) => `  - ${path}: ${reason}`);
  if (problems.length > LISTED_PROBLEMS) listed.push(`  ... and ${problems.length - LISTED_PROBLEMS} more`);
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return new McpctxError('INVALID_CONFIG', `Invalid gateway config${file === undefined ? '' : ` ${file}`}: ${count}\n${listed.join('\n')}`, {
    problems: [...problems],
    file: file ?? null,
  });
}
