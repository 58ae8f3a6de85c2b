import { readFile, stat } from 'node:fs/promises';
import { parsePrices } from '../../pricing/index.js';
import { dirname, resolve } from 'node:path';
import { Problems, childPath, configError, parseConfigText, type ConfigProblem } from '../../config/index.js';

export type { ConfigProblem };
import { McpctxError } from '../../errors/index.js';
import { MAX_BUDGET_MS, isEnvName, type LaunchSpec } from '../../mcp/index.js';
import { isPlainObject } from '../../json/index.js';
import { MAX_QUERY_CHARS } from '../../toolsearch/index.js';
import {
  PROTOCOL_NAMES,
  RETRIEVER_NAMES,
  type EmbeddingsSettings,
  type ProtocolName,
  type RetrieverName,
  type RoutingConfig,
  type RoutingRequest,
  type ToolSource,
} from '../_types.js';

/** A routing config is tens of kilobytes at most; anything this big is not one. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
export const MAX_REQUESTS = 10_000;
export const MAX_CATALOG_SIZE = 10_000;
export const DEFAULT_SIZES: readonly number[] = [8, 16, 32, 64];
export const DEFAULT_RECALL_AT: readonly number[] = [1, 3, 5];
export const DEFAULT_TOP_K = 5;
export const DEFAULT_MAX_TOKENS = 512;
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
export const DEFAULT_SERVER_TIMEOUT_MS = 30_000;
/** The retrieval ranks every tool that matches a query word (ToolIndex's own floor is for search_tools). */
export const DEFAULT_BM25_MIN_SCORE = 0;

const WHAT = 'routing config';
const TOP_KEYS = ['seed', 'domain', 'distractors', 'requests', 'sizes', 'protocols', 'retrieval', 'model', 'repeat', 'prices'];
/** Most repetitions of a request: each is a model call per protocol and condition. */
export const MAX_ROUTING_REPEAT = 1000;
const SOURCE_KEYS = ['catalog', 'server', 'tools'];
const SERVER_KEYS = ['command', 'args', 'env', 'cwd', 'timeoutMs'];
const RETRIEVAL_KEYS = ['retrievers', 'recallAt', 'topK', 'bm25', 'embeddings'];
const EMBEDDINGS_KEYS = ['baseUrl', 'model', 'apiKeyEnv', 'batchSize', 'timeoutMs'];
const MODEL_KEYS = ['maxTokens', 'temperature', 'timeoutMs'];
const REQUEST_KEYS = ['id', 'text', 'tool'];
/** The word a request's `tool` takes when no tool should be called. */
export const NO_TOOL = 'none';

/**
 * Parses and checks a routing config, YAML or JSON. Every problem is collected; any problem
 * throws INVALID_CONFIG with `data.problems` (each a path and a reason) and `data.file`.
 * Relative paths (catalog files, a server's cwd) are resolved against `file`'s folder, else `cwd`.
 * What needs the tools (a request's tool exists, a size fits the pools) is checked when they are
 * loaded (`loadRoutingTools`).
 */
export function parseRoutingConfig(text: string, options: { file?: string; cwd?: string } = {}): RoutingConfig {
  const file = options.file === undefined ? undefined : resolve(options.cwd ?? '.', options.file);
  const base = file === undefined ? resolve(options.cwd ?? '.') : dirname(file);
  const document = parseText(text, file);
  const problems = new Problems();
  if (!isPlainObject(document)) {
    problems.add('(file)', 'must be a mapping with at least domain and requests');
    throw invalidConfig(problems.list, file);
  }
  problems.unknownKeys(document, TOP_KEYS, '');
  const seed = document.seed === undefined ? 0 : (problems.integer(document.seed, 'seed', 0, 2 ** 32 - 1) ?? 0);
  if (document.domain === undefined) problems.add('domain', 'is required: the tools to route between ({catalog: FILE}, {server: {command, args}} or {tools: [...]})');
  const domain = document.domain === undefined ? undefined : parseSource(document.domain, 'domain', problems, base);
  const distractors: { unrelated?: ToolSource; confusable?: ToolSource } = {};
  if (document.distractors !== undefined) {
    if (!isPlainObject(document.distractors)) problems.add('distractors', 'must be a mapping with unrelated and/or confusable');
    else {
      problems.unknownKeys(document.distractors, ['unrelated', 'confusable'], 'distractors');
      for (const kind of ['unrelated', 'confusable'] as const) {
        const value = document.distractors[kind];
        const source = value === undefined ? undefined : parseSource(value, `distractors.${kind}`, problems, base);
        if (source) distractors[kind] = source;
      }
    }
  }
  const requests = parseRequests(document.requests, problems);
  const sizes =
    document.sizes === undefined
      ? DEFAULT_SIZES
      : (problems.uniqueList(document.sizes, 'sizes', (value, path) => problems.integer(value, path, 1, MAX_CATALOG_SIZE)) ?? DEFAULT_SIZES);
  const protocols =
    document.protocols === undefined
      ? PROTOCOL_NAMES
      : (problems.uniqueList(document.protocols, 'protocols', (value, path) => problems.oneOf<ProtocolName>(value, path, PROTOCOL_NAMES)) ?? PROTOCOL_NAMES);
  const config: RoutingConfig = {
    ...(file === undefined ? {} : { file }),
    seed,
    domain: domain ?? { kind: 'inline', tools: [] },
    distractors,
    requests,
    sizes: [...sizes].sort((a, b) => a - b),
    protocols,
    retrieval: parseRetrieval(document.retrieval, problems),
    model: parseModel(document.model, problems),
    repeat: document.repeat === undefined ? 1 : (problems.integer(document.repeat, 'repeat', 1, MAX_ROUTING_REPEAT) ?? 1),
    prices: parsePrices(document.prices, problems),
  };
  if (problems.list.length > 0) throw invalidConfig(problems.list, file);
  return config;
}

/** Reads and checks a config file. An unreadable file is IO (USAGE when it does not exist); a bad one INVALID_CONFIG. */
export async function loadRoutingConfig(file: string, cwd: string = process.cwd()): Promise<RoutingConfig> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    const info = await stat(path);
    if (info.isFile() && info.size > MAX_CONFIG_BYTES) throw invalidConfig([{ path: '(file)', reason: `is ${info.size} bytes, over ${MAX_CONFIG_BYTES}` }], path);
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof McpctxError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const missing = code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
    throw new McpctxError(missing ? 'USAGE' : 'IO', `Cannot read the routing config ${path}: ${(error as Error).message}`, { file: path }, { cause: error });
  }
  return parseRoutingConfig(text, { file: path });
}

function parseSource(value: unknown, path: string, problems: Problems, base: string): ToolSource | undefined {
  if (typeof value === 'string') {
    if (value.trim() !== '') return { kind: 'catalog', file: resolve(base, value) };
    problems.add(path, 'must name a catalog file');
    return undefined;
  }
  if (!isPlainObject(value)) {
    problems.add(path, 'must be a catalog file, {catalog: FILE}, {server: {command, args}} or {tools: [...]}');
    return undefined;
  }
  problems.unknownKeys(value, SOURCE_KEYS, path);
  const given = SOURCE_KEYS.filter((key) => value[key] !== undefined);
  if (given.length !== 1) {
    problems.add(path, `needs exactly one of ${SOURCE_KEYS.join(', ')}${given.length > 1 ? `, not ${given.join(' and ')}` : ''}`);
    return undefined;
  }
  if (value.catalog !== undefined) {
    const file = problems.text(value.catalog, childPath(path, 'catalog'), true);
    return file === undefined ? undefined : { kind: 'catalog', file: resolve(base, file) };
  }
  if (value.tools !== undefined) {
    if (!Array.isArray(value.tools)) {
      problems.add(childPath(path, 'tools'), 'must be a list of tools ({name, description, inputSchema})');
      return undefined;
    }
    return { kind: 'inline', tools: value.tools as unknown[] };
  }
  return parseServer(value.server, childPath(path, 'server'), problems, base);
}

function parseServer(value: unknown, path: string, problems: Problems, base: string): ToolSource | undefined {
  if (!isPlainObject(value)) {
    problems.add(path, 'must be a mapping with command (and args, env, cwd, timeoutMs)');
    return undefined;
  }
  problems.unknownKeys(value, SERVER_KEYS, path);
  const command = problems.text(value.command, childPath(path, 'command'), true);
  const launch: { -readonly [K in keyof LaunchSpec]: LaunchSpec[K] } = { command: command ?? '' };
  if (value.args !== undefined) {
    if (Array.isArray(value.args) && value.args.every((arg) => typeof arg === 'string')) launch.args = value.args as string[];
    else problems.add(childPath(path, 'args'), 'must be a list of strings');
  }
  if (value.env !== undefined) {
    const env = value.env;
    if (isPlainObject(env) && Object.entries(env).every(([name, text]) => isEnvName(name) && typeof text === 'string')) launch.env = env as Record<string, string>;
    else problems.add(childPath(path, 'env'), 'must map variable names to strings');
  }
  if (value.cwd !== undefined) {
    const cwd = problems.text(value.cwd, childPath(path, 'cwd'), true);
    if (cwd !== undefined) launch.cwd = resolve(base, cwd);
  } else launch.cwd = base;
  const timeoutMs = value.timeoutMs === undefined ? DEFAULT_SERVER_TIMEOUT_MS : (problems.integer(value.timeoutMs, childPath(path, 'timeoutMs'), 1, MAX_BUDGET_MS) ?? DEFAULT_SERVER_TIMEOUT_MS);
  return command === undefined ? undefined : { kind: 'server', launch, timeoutMs };
}

function parseRequests(value: unknown, problems: Problems): RoutingRequest[] {
  if (!Array.isArray(value) || value.length === 0) {
    problems.add('requests', 'must be a non-empty list of {text, tool} (tool: none for a request that needs no tool)');
    return [];
  }
  if (value.length > MAX_REQUESTS) {
    problems.add('requests', `has ${value.length} requests, at most ${MAX_REQUESTS}`);
    return [];
  }
  const requests: RoutingRequest[] = [];
  const ids = new Set<string>();
  value.forEach((raw: unknown, index) => {
    const path = `requests[${index}]`;
    if (!isPlainObject(raw)) return problems.add(path, 'must be a mapping {text, tool}');
    problems.unknownKeys(raw, REQUEST_KEYS, path);
    const text = problems.text(raw.text, `${path}.text`, true);
    // The retrievers rank by the request's text; ToolIndex refuses a query past this length.
    if (text !== undefined && text.length > MAX_QUERY_CHARS) problems.add(`${path}.text`, `has ${text.length} characters, at most ${MAX_QUERY_CHARS}: a request is a sentence or two`);
    const tool = problems.text(raw.tool, `${path}.tool`, true);
    const id = raw.id === undefined ? `r${index + 1}` : problems.text(raw.id, `${path}.id`, true);
    if (id !== undefined && ids.has(id)) problems.add(`${path}.id`, `repeats the id ${JSON.stringify(id)}; ids must be unique`);
    if (id !== undefined) ids.add(id);
    if (text !== undefined && tool !== undefined && id !== undefined) requests.push({ id, text, tool: tool === NO_TOOL ? null : tool });
  });
  return requests;
}

function parseRetrieval(value: unknown, problems: Problems): RoutingConfig['retrieval'] {
  const defaults: RoutingConfig['retrieval'] = {
    retrievers: ['bm25'],
    recallAt: DEFAULT_RECALL_AT,
    topK: DEFAULT_TOP_K,
    bm25: { vocabulary: true, minScore: DEFAULT_BM25_MIN_SCORE },
  };
  if (value === undefined) return defaults;
  if (!isPlainObject(value)) {
    problems.add('retrieval', `must be a mapping of ${RETRIEVAL_KEYS.join(', ')}`);
    return defaults;
  }
  problems.unknownKeys(value, RETRIEVAL_KEYS, 'retrieval');
  const retrievers =
    value.retrievers === undefined
      ? defaults.retrievers
      : (problems.uniqueList(value.retrievers, 'retrieval.retrievers', (item, path) => problems.oneOf<RetrieverName>(item, path, RETRIEVER_NAMES)) ?? defaults.retrievers);
  const recallAt =
    value.recallAt === undefined
      ? defaults.recallAt
      : (problems.uniqueList(value.recallAt, 'retrieval.recallAt', (item, path) => problems.integer(item, path, 1, 1000)) ?? defaults.recallAt);
  const topK = value.topK === undefined ? DEFAULT_TOP_K : (problems.integer(value.topK, 'retrieval.topK', 1, 1000) ?? DEFAULT_TOP_K);
  const bm25 = { ...defaults.bm25 };
  if (value.bm25 !== undefined) {
    if (!isPlainObject(value.bm25)) problems.add('retrieval.bm25', 'must be a mapping of vocabulary, minScore');
    else {
      problems.unknownKeys(value.bm25, ['vocabulary', 'minScore'], 'retrieval.bm25');
      if (value.bm25.vocabulary !== undefined) {
        if (typeof value.bm25.vocabulary === 'boolean') bm25.vocabulary = value.bm25.vocabulary;
        else problems.add('retrieval.bm25.vocabulary', 'must be true or false');
      }
      if (value.bm25.minScore !== undefined) {
        if (typeof value.bm25.minScore === 'number' && Number.isFinite(value.bm25.minScore) && value.bm25.minScore >= 0) bm25.minScore = value.bm25.minScore;
        else problems.add('retrieval.bm25.minScore', 'must be a number >= 0');
      }
    }
  }
  const embeddings = value.embeddings === undefined ? undefined : parseEmbeddings(value.embeddings, problems);
  if (retrievers.includes('embeddings') && value.embeddings === undefined) problems.add('retrieval.embeddings', 'is required when retrievers lists embeddings ({baseUrl, model})');
  return { retrievers: [...retrievers].sort(), recallAt: [...recallAt].sort((a, b) => a - b), topK, bm25, ...(embeddings ? { embeddings } : {}) };
}

function parseEmbeddings(value: unknown, problems: Problems): EmbeddingsSettings | undefined {
  const path = 'retrieval.embeddings';
  if (!isPlainObject(value)) {
    problems.add(path, 'must be a mapping {baseUrl, model, apiKeyEnv?, batchSize?, timeoutMs?}');
    return undefined;
  }
  problems.unknownKeys(value, EMBEDDINGS_KEYS, path);
  const baseUrl = problems.text(value.baseUrl, `${path}.baseUrl`, true);
  if (baseUrl !== undefined && !/^https?:\/\//.test(baseUrl)) problems.add(`${path}.baseUrl`, 'must be an http:// or https:// URL');
  const model = problems.text(value.model, `${path}.model`, true);
  let apiKeyEnv: string | undefined;
  if (value.apiKeyEnv !== undefined) {
    if (typeof value.apiKeyEnv === 'string' && isEnvName(value.apiKeyEnv)) apiKeyEnv = value.apiKeyEnv;
    else problems.add(`${path}.apiKeyEnv`, 'must be the NAME of an environment variable (never the key itself)');
  }
  const batchSize = value.batchSize === undefined ? 64 : (problems.integer(value.batchSize, `${path}.batchSize`, 1, 2048) ?? 64);
  const timeoutMs = value.timeoutMs === undefined ? 60_000 : (problems.integer(value.timeoutMs, `${path}.timeoutMs`, 1, MAX_BUDGET_MS) ?? 60_000);
  if (baseUrl === undefined || model === undefined) return undefined;
  return { baseUrl: baseUrl.replace(/\/+$/, ''), model, batchSize, timeoutMs, ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }) };
}

function parseModel(value: unknown, problems: Problems): RoutingConfig['model'] {
  const defaults = { maxTokens: DEFAULT_MAX_TOKENS, timeoutMs: DEFAULT_MODEL_TIMEOUT_MS };
  if (value === undefined) return defaults;
  if (!isPlainObject(value)) {
    problems.add('model', `must be a mapping of ${MODEL_KEYS.join(', ')}`);
    return defaults;
  }
  problems.unknownKeys(value, MODEL_KEYS, 'model');
  const maxTokens = value.maxTokens === undefined ? DEFAULT_MAX_TOKENS : (problems.integer(value.maxTokens, 'model.maxTokens', 1, 200_000) ?? DEFAULT_MAX_TOKENS);
  const timeoutMs = value.timeoutMs === undefined ? DEFAULT_MODEL_TIMEOUT_MS : (problems.integer(value.timeoutMs, 'model.timeoutMs', 1, MAX_BUDGET_MS) ?? DEFAULT_MODEL_TIMEOUT_MS);
  let temperature: number | undefined;
  if (value.temperature !== undefined) {
    if (typeof value.temperature === 'number' && value.temperature >= 0 && value.temperature <= 2) temperature = value.temperature;
    else problems.add('model.temperature', 'must be a number from 0 to 2');
  }
  return { maxTokens, timeoutMs, ...(temperature === undefined ? {} : { temperature }) };
}

/** YAML or JSON, through the YAML parser (JSON is YAML); a repeated key is a problem, not a silent overwrite. */
function parseText(text: string, file: string | undefined): unknown {
  if (text.length > MAX_CONFIG_BYTES) throw invalidConfig([{ path: '(file)', reason: `is over ${MAX_CONFIG_BYTES} characters` }], file);
  return parseConfigText(text, file ?? null, WHAT);
}

/** The INVALID_CONFIG error of a routing config: `data.problems` lists every problem, `data.file` the file or null. */
export function invalidConfig(problems: readonly ConfigProblem[], file: string | undefined): McpctxError {
  return configError(problems, file ?? null, WHAT);
}
