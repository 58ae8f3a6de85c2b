/**
 * The experiment config: which files hold the data, which two servers to compare, which tool path
 * the optimized one must take, which model answers. YAML or JSON (JSON may have comments and
 * trailing commas). Every problem is collected first, then one INVALID_CONFIG carries them all.
 */
import { stat, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Problems, childPath, configError, parseConfigText } from '../../config/index.js';
import { McpctxError } from '../../errors/index.js';
import { isEnvName, type LaunchSpec } from '../../mcp/index.js';
import { parseModel } from './_config-model.js';
import { CONDITIONS, type Condition, type ConditionSpec, type ExperimentConfig, type ProbeSpec, type ToolPaths } from '../_types.js';
import { sha256Hex } from '../../tokens/index.js';
import { setOwn } from '../../json/index.js';
import { parsePrices } from '../../pricing/index.js';

export { DEFAULT_MAX_TOKENS, DEFAULT_MODEL_TIMEOUT_MS, MODEL_OVERRIDE_FLAGS, PROVIDER_NAMES, SCRIPTED_MODEL, applyModelOverrides, type ModelOverrides } from './_config-model.js';

export const DEFAULT_PAGE_SIZE = 5;
export const DEFAULT_MAX_TURNS = 12;
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** A config is a few kilobytes; anything this big is not one. */
export const MAX_EXPERIMENT_CONFIG_BYTES = 1024 * 1024;

/** The tool and argument names of the bundled records-server (examples/records-server). */
export const DEFAULT_TOOL_PATHS: ToolPaths = Object.freeze({
  lookup: Object.freeze({ search: 'find_records', matchArgument: 'field', fieldsArgument: 'fields', detail: 'exact_record', idArgument: 'id' }),
  aggregate: Object.freeze({ count: 'count_by_field' }),
  later_page: Object.freeze({ page: 'find_records', cursorArgument: 'cursor' }),
});

/**
 * The system prompt both conditions get unless the config sets `system`. It names the tools of
 * both records-server modes: the baseline offers list_records and exact_record, the optimized
 * condition find_records, count_by_field and exact_record; a model ignores the names it lacks.
 */
export const DEFAULT_SYSTEM_PROMPT =
  'Answer only from the records the tools return; never from memory. ' +
  'Use the tools to read every page and every detail the answer needs: when a result is truncated, call the same tool again with cursor set to its next_cursor until nothing is left. ' +
  'To count records, prefer count_by_field when it is offered. ' +
  'For a detail of one record, first find the record with find_records asking only for brief fields, then fetch it with exact_record. ' +
  'Return JSON only: {"answer":...,"evidenceIds":[...],"caveats":[...]} where answer is the exact answer, evidenceIds the ids of the records it rests on, and caveats anything the reader must know. ' +
  'If evidence is missing or a tool fails, say so in caveats; never guess.';

/** Variables the runner sets for every server from `snapshot` and `fields` (see `launchFor`). */
const DATA_ENV_NAMES = ['SNAPSHOT_PATH', 'FIELDS_PATH'];

const TOP_KEYS = ['snapshot', 'fields', 'tasks', 'pageSize', 'maxTurns', 'toolTimeoutMs', 'repeat', 'system', 'conditions', 'paths', 'probe', 'model', 'prices'];
/** Most repetitions per question: each is a fresh server and a model call or more. */
export const MAX_REPEAT = 1000;
const CONDITION_KEYS = ['command', 'args', 'cwd', 'env', 'inheritEnv', 'tools', 'dropResultKeys'];
const PROBE_KEYS = ['condition', 'tool', 'arguments', 'cacheKey'];
const WHAT = 'experiment config';

/** Reads and checks a config file. An unreadable file is IO; a bad one INVALID_CONFIG. */
export async function loadExperimentConfig(file: string): Promise<ExperimentConfig> {
  const absolute = resolve(file);
  let text: string;
  try {
    const info = await stat(absolute);
    // A FIFO or a device would block or never end; a config is a small regular file.
    if (!info.isFile()) throw new McpctxError('IO', `Cannot read the experiment config ${absolute}: it is not a regular file.`, { file: absolute });
    if (info.size > MAX_EXPERIMENT_CONFIG_BYTES) {
      throw configError([{ path: '(file)', reason: `is ${info.size} bytes, over ${MAX_EXPERIMENT_CONFIG_BYTES}; a config is a few kilobytes` }], absolute, WHAT);
    }
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    if (error instanceof McpctxError) throw error;
    throw new McpctxError('IO', `Cannot read the experiment config ${absolute}: ${(error as Error).message}`, { file: absolute }, { cause: error });
  }
  return parseExperimentConfig(text, absolute);
}

/**
 * Parses and checks a config text. `file` is where it came from: relative paths in it are
 * resolved against its folder, and problems name it. Every path in the result is absolute.
 */
export function parseExperimentConfig(text: string, file: string): ExperimentConfig {
  const absolute = resolve(file);
  const baseDir = dirname(absolute);
  const document = parseConfigText(text, absolute, WHAT);
  const problems = new Problems();
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw configError([{ path: '(file)', reason: 'must be a mapping with snapshot, fields, tasks and conditions' }], absolute, WHAT);
  }
  const given = document as Record<string, unknown>;
  problems.unknownKeys(given, TOP_KEYS, '');
  const path = (key: 'snapshot' | 'fields' | 'tasks'): string => {
    const value = problems.text(given[key], key, true);
    return value === undefined ? '' : resolve(baseDir, value);
  };
  const paths = parsePaths(given.paths, problems);
  const config: ExperimentConfig = {
    file: absolute,
    source: { sha256: sha256Hex(text), bytes: Buffer.byteLength(text, 'utf8') },
    snapshot: path('snapshot'),
    fields: path('fields'),
    tasks: path('tasks'),
    pageSize: problems.integer(given.pageSize, 'pageSize', 1, 1000, DEFAULT_PAGE_SIZE),
    conditions: parseConditions(given.conditions, problems, baseDir),
    paths,
    probe: parseProbe(given.probe, problems),
    model: parseModel(given.model, problems, baseDir),
    system: problems.text(given.system, 'system', false) ?? DEFAULT_SYSTEM_PROMPT,
    maxTurns: problems.integer(given.maxTurns, 'maxTurns', 1, 100, DEFAULT_MAX_TURNS),
    toolTimeoutMs: problems.integer(given.toolTimeoutMs, 'toolTimeoutMs', 100, 600_000, DEFAULT_TOOL_TIMEOUT_MS),
    repeat: problems.integer(given.repeat, 'repeat', 1, MAX_REPEAT, 1),
    prices: parsePrices(given.prices, problems),
  };
  if (problems.list.length > 0) throw configError(problems.list, absolute, WHAT);
  return config;
}

/**
 * How the runner starts a condition's server: the config's launch, its env first, then
 * SNAPSHOT_PATH and FIELDS_PATH set to the config's resolved snapshot and allowlist, so the server
 * serves exactly the files the inputs were read and hashed from. (A config cannot set those two
 * itself: its env naming either is a problem.)
 */
export function launchFor(config: ExperimentConfig, condition: Condition): LaunchSpec {
  const launch = config.conditions[condition].launch;
  return { ...launch, env: { ...launch.env, SNAPSHOT_PATH: config.snapshot, FIELDS_PATH: config.fields } };
}

function parseConditions(value: unknown, problems: Problems, baseDir: string): Record<Condition, ConditionSpec> {
  const given = value === undefined ? undefined : problems.mapping(value, 'conditions', 'baseline and optimized to a server launch');
  if (value === undefined) problems.add('conditions', 'is required: baseline and optimized, each a server launch (command, args, env)');
  if (given !== undefined) problems.unknownKeys(given, CONDITIONS, 'conditions');
  const spec = (condition: Condition): ConditionSpec => {
    const at = childPath('conditions', condition);
    if (given !== undefined && given[condition] === undefined) problems.add(at, 'is required');
    return parseCondition(given?.[condition], at, problems, baseDir);
  };
  return { baseline: spec('baseline'), optimized: spec('optimized') };
}

/**
 * One condition. An argument that starts with `./` or `../` is a path relative to the config's
 * folder and is resolved; others (flags, bare names, absolute paths) are passed untouched. `cwd`
 * defaults to the config's folder. Env values written bare in YAML (`PORT: 8080`) become strings.
 */
function parseCondition(value: unknown, at: string, problems: Problems, baseDir: string): ConditionSpec {
  const fallback: ConditionSpec = { launch: { command: '', args: [], cwd: baseDir, env: {}, inheritEnv: false }, dropResultKeys: [] };
  if (value === undefined) return fallback;
  const given = problems.mapping(value, at, 'launch settings (command, args, cwd, env, inheritEnv, tools, dropResultKeys)');
  if (given === undefined) return fallback;
  problems.unknownKeys(given, CONDITION_KEYS, at);
  const command = problems.text(given.command, childPath(at, 'command'), true) ?? '';
  const args = given.args === undefined ? [] : launchArgs(given.args, childPath(at, 'args'), problems, baseDir);
  const cwdText = problems.text(given.cwd, childPath(at, 'cwd'), false);
  const env = given.env === undefined ? {} : launchEnv(given.env, childPath(at, 'env'), problems);
  let inheritEnv = false;
  if (given.inheritEnv !== undefined) {
    if (typeof given.inheritEnv === 'boolean') inheritEnv = given.inheritEnv;
    else problems.add(childPath(at, 'inheritEnv'), 'must be true or false');
  }
  const spec: ConditionSpec = {
    launch: { command, args, cwd: cwdText === undefined ? baseDir : resolve(baseDir, cwdText), env, inheritEnv },
    dropResultKeys: given.dropResultKeys === undefined ? [] : (problems.names(given.dropResultKeys, childPath(at, 'dropResultKeys')) ?? []),
  };
  if (given.tools !== undefined) {
    const tools = problems.names(given.tools, childPath(at, 'tools'));
    if (Array.isArray(given.tools) && given.tools.length === 0) problems.add(childPath(at, 'tools'), 'names no tool; leave it out to offer every tool the server lists');
    else if (tools !== undefined) spec.tools = tools;
  }
  return spec;
}

function launchArgs(value: unknown, at: string, problems: Problems, baseDir: string): string[] {
  if (!Array.isArray(value)) {
    problems.add(at, 'must be a list of strings');
    return [];
  }
  return value.flatMap((item: unknown, index) => {
    if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
      problems.add(`${at}[${index}]`, 'must be a string');
      return [];
    }
    const arg = String(item);
    return [arg.startsWith('./') || arg.startsWith('../') ? resolve(baseDir, arg) : arg];
  });
}

function launchEnv(value: unknown, at: string, problems: Problems): Record<string, string> {
  const given = problems.mapping(value, at, 'variable name to value');
  const env: Record<string, string> = {};
  for (const [name, raw] of Object.entries(given ?? {})) {
    const where = childPath(at, name);
    if (!isEnvName(name)) problems.add(where, 'is not a variable name (letters, digits and _, not starting with a digit)');
    else if (DATA_ENV_NAMES.includes(name)) problems.add(where, `is set by the experiment from ${name === 'SNAPSHOT_PATH' ? 'snapshot' : 'fields'}; remove it here`);
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') problems.add(where, 'must be a string');
    else setOwn(env, name, String(raw));
  }
  return env;
}

/** Each part, and each name in it, defaults to the records-server's (DEFAULT_TOOL_PATHS). */
function parsePaths(value: unknown, problems: Problems): ToolPaths {
  if (value === undefined) return structuredClone(DEFAULT_TOOL_PATHS);
  const given = problems.mapping(value, 'paths', 'task kind to tool names (lookup, aggregate, later_page)') ?? {};
  problems.unknownKeys(given, Object.keys(DEFAULT_TOOL_PATHS), 'paths');
  return {
    lookup: pathPart(given.lookup, 'paths.lookup', DEFAULT_TOOL_PATHS.lookup, problems),
    aggregate: pathPart(given.aggregate, 'paths.aggregate', DEFAULT_TOOL_PATHS.aggregate, problems),
    later_page: pathPart(given.later_page, 'paths.later_page', DEFAULT_TOOL_PATHS.later_page, problems),
  };
}

function pathPart<T extends Readonly<Record<string, string>>>(value: unknown, at: string, defaults: T, problems: Problems): T {
  const part: Record<string, string> = { ...defaults };
  if (value === undefined) return part as T;
  const given = problems.mapping(value, at, 'tool and argument names');
  if (given === undefined) return part as T;
  problems.unknownKeys(given, Object.keys(defaults), at);
  for (const key of Object.keys(defaults)) {
    const name = problems.text(given[key], childPath(at, key), false);
    if (name !== undefined) part[key] = name;
  }
  return part as T;
}

/**
 * The warm-cache probe. Absent or `true`: count_by_field on the optimized condition with
 * `cacheKey: cache`; `false`: no probe. Arguments left out stay null: the default
 * `{ field: "id", value: <first id> }` needs the snapshot, so `resolveProbe` fills it in later.
 */
function parseProbe(value: unknown, problems: Problems): ProbeSpec | null {
  const probe: ProbeSpec = { condition: 'optimized', tool: 'count_by_field', arguments: null, cacheKey: 'cache' };
  if (value === false) return null;
  if (value === undefined || value === true) return probe;
  const given = problems.mapping(value, 'probe', 'probe settings (condition, tool, arguments, cacheKey), or false');
  if (given === undefined) return null;
  problems.unknownKeys(given, PROBE_KEYS, 'probe');
  if (given.condition !== undefined) {
    const condition = CONDITIONS.find((name) => name === given.condition);
    if (condition === undefined) problems.add('probe.condition', `must be ${CONDITIONS.join(' or ')}`);
    else probe.condition = condition;
  }
  probe.tool = problems.text(given.tool, 'probe.tool', false) ?? probe.tool;
  if (given.arguments !== undefined && given.arguments !== null) {
    const args = problems.mapping(given.arguments, 'probe.arguments', 'argument name to value');
    if (args !== undefined) probe.arguments = args;
  }
  if (given.cacheKey === null) probe.cacheKey = null;
  else if (given.cacheKey !== undefined) probe.cacheKey = problems.text(given.cacheKey, 'probe.cacheKey', false) ?? probe.cacheKey;
  return probe;
}
