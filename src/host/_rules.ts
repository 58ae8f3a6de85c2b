import { readFile, stat } from 'node:fs/promises';
import { Problems, configError, configSyntax, parseConfigText } from '../config/index.js';
import { McpctxError } from '../errors/index.js';
import { isPlainObject } from '../json/index.js';
import {
  ConfigRules,
  claudeSafetyFactorOf,
  DEFAULT_CAP_TOKENS,
  DEFAULT_SEPARATOR,
  MAX_CONFIG_BYTES,
  parseGatewayConfig,
  parseToolRules,
  type GatewayConfig,
  type ToolRules,
} from '../gateway/config/index.js';

/**
 * The rules a host applies to MCP tool results: the gateway's own settings, read by the gateway's
 * parser and matched by the gateway's matcher, so one file serves both places.
 */
export interface HostRules {
  /** The cap on a result the model receives, in o200k tokens (default 25,000). */
  readonly capTokens: number;
  /** Caps in Claude tokens: o200k counts times this calibrated factor must stay within them (`mcpctx calibrate`). Absent: o200k. */
  readonly claudeSafetyFactor?: number;
  /** Over the cap, keep the result behind a read_result handle (default true); false refuses it with a remedy. */
  readonly offload: boolean;
  readonly separator: string;
  /** Rule key (`SERVER/tool`, `SERVER__tool`, a bare tool, globs) to the tool's rules, as the gateway's `tools:` entries. */
  readonly tools: Readonly<Record<string, ToolRules>>;
  /** Server names the keys are read against; empty: `SERVER/tool` names any server. */
  readonly servers: readonly string[];
  /** Where the rules came from, for messages. */
  readonly file?: string;
}

/** What `defineHostRules` takes: every key optional. */
export interface HostRulesInput {
  readonly capTokens?: number;
  readonly claudeSafetyFactor?: number;
  readonly offload?: boolean;
  readonly separator?: string;
  readonly tools?: Readonly<Record<string, unknown>>;
  readonly servers?: readonly string[];
}

const WHAT = 'host rules';
/** Rules made by this module: checked once, not again when a shaper is built on them. */
const defined = new WeakSet<object>();

export function isDefinedHostRules(value: unknown): value is HostRules {
  return typeof value === 'object' && value !== null && defined.has(value);
}
const HOST_KEYS = ['capTokens', 'claudeSafetyFactor', 'offload', 'separator', 'tools', 'servers'];

/**
 * Checks host rules given as an object (the shape of a gateway config's settings without its
 * servers). Every problem is collected; any problem throws INVALID_CONFIG with `data.problems`.
 */
export function defineHostRules(input: HostRulesInput = {}, options: { file?: string } = {}): HostRules {
  if (!isPlainObject(input)) throw configError([{ path: '(rules)', reason: 'must be an object: { capTokens?, claudeSafetyFactor?, offload?, tools?, servers?, separator? }' }], options.file ?? null, WHAT);
  const problems = new Problems();
  problems.unknownKeys(input, HOST_KEYS, '');
  const servers = input.servers === undefined ? [] : (problems.stringList(input.servers, 'servers') ?? []);
  const separator = input.separator === undefined ? DEFAULT_SEPARATOR : typeof input.separator === 'string' && /^\S+$/.test(input.separator) ? input.separator : undefined;
  if (separator === undefined) problems.add('separator', 'must be a non-empty string without whitespace (default "__")');
  const rules: HostRules = {
    capTokens: input.capTokens === undefined ? DEFAULT_CAP_TOKENS : (problems.integer(input.capTokens, 'capTokens', 50, 10_000_000) ?? DEFAULT_CAP_TOKENS),
    ...claudeSafetyFactorOf(input.claudeSafetyFactor, problems),
    offload: input.offload === undefined ? true : (problems.boolean(input.offload, 'offload') ?? true),
    separator: separator ?? DEFAULT_SEPARATOR,
    tools: parseToolRules(input.tools, problems, { separator: separator ?? DEFAULT_SEPARATOR, servers, anyServer: servers.length === 0 }),
    servers,
    ...(options.file === undefined ? {} : { file: options.file }),
  };
  if (problems.list.length > 0) throw configError(problems.list, options.file ?? null, WHAT);
  defined.add(rules);
  return rules;
}

/** A gateway config's rules, for the host: its servers name the rule keys. */
export function hostRulesFromGateway(config: GatewayConfig): HostRules {
  const rules: HostRules = {
    capTokens: config.capTokens,
    ...(config.claudeSafetyFactor === undefined ? {} : { claudeSafetyFactor: config.claudeSafetyFactor }),
    offload: config.offload,
    separator: config.separator,
    tools: config.tools,
    servers: [...config.upstreams.map((spec) => spec.name), ...config.skipped],
    ...(config.file === undefined ? {} : { file: config.file }),
  };
  defined.add(rules);
  return rules;
}

/**
 * Host rules from a file (YAML, or JSON with comments): a gateway config as it is (its servers
 * name the rule keys; its other settings are the gateway's and not read here), or the host's own
 * `{ capTokens?, offload?, separator?, servers?, tools? }`. Unreadable: IO; bad: INVALID_CONFIG.
 */
export async function loadHostRules(file: string): Promise<HostRules> {
  let text: string;
  try {
    const info = await stat(file);
    if (info.isFile() && info.size > MAX_CONFIG_BYTES) throw configError([{ path: '(file)', reason: `is ${info.size} bytes, over ${MAX_CONFIG_BYTES}` }], file, WHAT);
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof McpctxError) throw error;
    throw new McpctxError('IO', `Cannot read the host rules ${file}: ${(error as Error).message}`, { file }, { cause: error });
  }
  return parseHostRules(text, { file });
}

/** `loadHostRules` on a text. */
export function parseHostRules(text: string, options: { file?: string } = {}): HostRules {
  const file = options.file ?? null;
  const document = parseConfigText(text, file, WHAT, configSyntax(text, file));
  if (document === null || document === undefined) return defineHostRules({}, options);
  if (isPlainObject(document) && ['mcpServers', 'servers', 'mcp'].some((key) => Object.hasOwn(document, key) && isPlainObject(document[key]))) {
    return hostRulesFromGateway(parseGatewayConfig(text, options));
  }
  if (!isPlainObject(document)) throw configError([{ path: '(file)', reason: 'must be a mapping: { capTokens?, offload?, tools?, servers?, separator? }, or a gateway config' }], file, WHAT);
  return defineHostRules(document as HostRulesInput, options);
}

/** The matcher over host rules: one tool's settings by the gateway's precedence. */
export function hostRuleSet(rules: HostRules): ConfigRules {
  return new ConfigRules(
    { upstreams: [], skipped: rules.servers, separator: rules.separator, allow: undefined, deny: undefined, tools: rules.tools, search: { enabled: false, topK: 1, pinned: [] } },
    { anyServer: rules.servers.length === 0 },
  );
}
