import { childPath, type Problems } from '../../config/index.js';
import { McpctxError } from '../../errors/index.js';
import { TEXT_FORMATS, defineProjection, type FieldSpec, type TextFormat } from '../../shape/index.js';
import { isPlainObject } from '../../json/index.js';
import { type SelectorNaming, parseToolSelector } from './_tool-selectors.js';
import { PATH_SYNTAX, parsePath } from './_result-paths.js';
import { DEFAULT_SEARCH_TOP_K, DROPPABLE_TOOL_KEYS, type DroppableToolKey, type NamePatterns, type SearchSettings, type ToolRules } from './_config-types.js';

/** What rule keys are read against: the separator and every configured server, disabled ones included. */
export type Naming = SelectorNaming;

/** Why a rule key cannot name tools here, or undefined when it can. */
function ruleKeyProblem(key: string, naming: Naming): string | undefined {
  const selector = parseToolSelector(key, naming);
  return 'problem' in selector ? selector.problem : undefined;
}

export function parseNamePatterns(value: unknown, path: string, problems: Problems, naming: Naming): NamePatterns | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    const patterns = problems.stringList(value, path);
    if (patterns !== undefined && patterns.length === 0 && value.length === 0 && path === 'allow') {
      problems.add(path, 'an empty allow list hides every tool; remove allow or list the tools to offer');
    }
    patterns?.forEach((pattern, index) => {
      const problem = ruleKeyProblem(pattern, naming);
      if (problem !== undefined) problems.add(`${path}[${index}]`, problem);
    });
    return patterns === undefined ? undefined : { kind: 'names', patterns };
  }
  if (!isPlainObject(value)) {
    problems.add(path, 'must be a list of tool names or globs, or a mapping of server name to a list of its tool names or globs');
    return undefined;
  }
  const byServer: Record<string, readonly string[]> = Object.create(null) as Record<string, readonly string[]>;
  for (const [server, patterns] of Object.entries(value)) {
    const at = childPath(path, server);
    if (!naming.servers.includes(server)) problems.add(at, `names no configured server; servers: ${naming.servers.join(', ')}`);
    const list = problems.stringList(patterns, at);
    if (list !== undefined) byServer[server] = list;
  }
  return { kind: 'per-server', byServer };
}

const SEARCH_KEYS = ['enabled', 'topK', 'pinned'];

export function parseSearch(value: unknown, problems: Problems, naming: Naming): SearchSettings {
  const settings = { enabled: false, topK: DEFAULT_SEARCH_TOP_K, pinned: [] as string[] };
  if (value === undefined) return settings;
  const given = problems.mapping(value, 'search', 'enabled, topK and pinned');
  if (given === undefined) return settings;
  problems.unknownKeys(given, SEARCH_KEYS, 'search');
  if (given.enabled !== undefined) settings.enabled = problems.boolean(given.enabled, 'search.enabled') ?? false;
  if (given.topK !== undefined) settings.topK = problems.integer(given.topK, 'search.topK', 1, 100) ?? DEFAULT_SEARCH_TOP_K;
  if (given.pinned !== undefined) {
    const pinned = problems.stringList(given.pinned, 'search.pinned') ?? [];
    pinned.forEach((name, index) => {
      const problem = ruleKeyProblem(name, naming);
      if (problem !== undefined) problems.add(`search.pinned[${index}]`, problem);
      else if (pinned.indexOf(name) !== index) problems.add(`search.pinned[${index}]`, `"${name}" is pinned twice`);
    });
    settings.pinned = [...new Set(pinned)];
  }
  return settings;
}

const RULE_KEYS = ['description', 'maxDescriptionTokens', 'dropOutputSchema', 'drop', 'records', 'project', 'format', 'pageTokens', 'maxTokens'];
const FIELD_KEYS = ['path', 'as', 'maxChars'];
const MAX_TOKENS_LIMIT = 10_000_000;

/** `tools`: a null-prototype map, so a tool named "constructor" never finds Object's. */
export function parseToolRules(value: unknown, problems: Problems, naming: Naming): Record<string, ToolRules> {
  const tools = Object.create(null) as Record<string, ToolRules>;
  if (value === undefined) return tools;
  const given = problems.mapping(value, 'tools', 'tool (SERVER/tool, SERVER__tool or a bare tool name, globs allowed) to its rules');
  if (given === undefined) return tools;
  for (const [name, rules] of Object.entries(given)) {
    const at = childPath('tools', name);
    const problem = ruleKeyProblem(name, naming);
    if (problem !== undefined) problems.add(at, problem);
    const fields = problems.mapping(rules, at, `rules (${RULE_KEYS.join(', ')})`);
    if (fields !== undefined) tools[name] = parseRules(fields, at, problems);
  }
  return tools;
}

function parseRules(fields: Readonly<Record<string, unknown>>, at: string, problems: Problems): ToolRules {
  problems.unknownKeys(fields, RULE_KEYS, at);
  const rules: ToolRules = {};
  const path = (key: string): string => childPath(at, key);
  if (fields.description !== undefined) {
    if (typeof fields.description === 'string') rules.description = fields.description;
    else problems.add(path('description'), 'must be a string (the description the client sees instead)');
  }
  if (fields.maxDescriptionTokens !== undefined) rules.maxDescriptionTokens = problems.integer(fields.maxDescriptionTokens, path('maxDescriptionTokens'), 1, MAX_TOKENS_LIMIT);
  if (fields.dropOutputSchema !== undefined) rules.dropOutputSchema = problems.boolean(fields.dropOutputSchema, path('dropOutputSchema'));
  if (fields.drop !== undefined) rules.drop = parseDrop(fields.drop, path('drop'), problems);
  if (fields.records !== undefined) rules.records = parseRecords(fields.records, path('records'), problems);
  if (fields.project !== undefined) rules.project = parseProject(fields.project, path('project'), problems);
  if (fields.format !== undefined) {
    if (TEXT_FORMATS.includes(fields.format as TextFormat)) rules.format = fields.format as TextFormat;
    else problems.add(path('format'), `must be one of ${TEXT_FORMATS.join(', ')}`);
  }
  if (fields.pageTokens !== undefined) rules.pageTokens = problems.integer(fields.pageTokens, path('pageTokens'), 50, 1_000_000);
  if (fields.maxTokens !== undefined) rules.maxTokens = problems.integer(fields.maxTokens, path('maxTokens'), 1, MAX_TOKENS_LIMIT);
  const reshapes = (['project', 'format', 'pageTokens'] as const).filter((key) => rules[key] !== undefined);
  if (rules.dropOutputSchema === false && reshapes.length > 0) {
    problems.add(
      path('dropOutputSchema'),
      `false keeps the outputSchema listed, but ${reshapes.join(' and ')} reshape${reshapes.length === 1 ? 's' : ''} every result, which then has no structuredContent and would always go out marked isError; remove dropOutputSchema: false or those rules`,
    );
  }
  // A rule that failed its check is left out rather than kept as undefined.
  for (const key of Object.keys(rules) as (keyof ToolRules)[]) if (rules[key] === undefined) delete rules[key];
  return rules;
}

function parseDrop(value: unknown, path: string, problems: Problems): DroppableToolKey[] | undefined {
  const keys = problems.stringList(value, path);
  if (keys === undefined) return undefined;
  const drop: DroppableToolKey[] = [];
  keys.forEach((key, index) => {
    if (!DROPPABLE_TOOL_KEYS.includes(key as DroppableToolKey)) problems.add(`${path}[${index}]`, `must be one of ${DROPPABLE_TOOL_KEYS.join(', ')}`);
    else if (!drop.includes(key as DroppableToolKey)) drop.push(key as DroppableToolKey);
  });
  return drop;
}

/** The path of the list the result rules apply to, in read_result's path syntax. */
function parseRecords(value: unknown, path: string, problems: Problems): string | undefined {
  if (typeof value !== 'string' || value === '') {
    problems.add(path, `must be the path of the list in the result, like "entities" or "data.items" (${PATH_SYNTAX})`);
    return undefined;
  }
  try {
    parsePath(value);
  } catch (error) {
    if (!(error instanceof McpctxError)) throw error;
    problems.add(path, error.message);
    return undefined;
  }
  return value;
}

/** Field specs as `defineProjection` takes them, checked by it (against their own paths). */
function parseProject(value: unknown, path: string, problems: Problems): FieldSpec[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    problems.add(path, 'must be a non-empty list of fields: a path ("user.login") or { path, as?, maxChars? }');
    return undefined;
  }
  const before = problems.list.length;
  const specs: FieldSpec[] = [];
  value.forEach((spec: unknown, index) => {
    const at = `${path}[${index}]`;
    if (typeof spec === 'string') specs.push(spec);
    else if (!isPlainObject(spec)) problems.add(at, 'must be a path ("user.login") or { path, as?, maxChars? }');
    else {
      problems.unknownKeys(spec, FIELD_KEYS, at);
      const keys = spec.path;
      const pathOk = typeof keys === 'string' || (Array.isArray(keys) && keys.every((key) => typeof key === 'string'));
      if (!pathOk) problems.add(childPath(at, 'path'), 'must be a dot path or a list of keys');
      else specs.push(spec as FieldSpec);
    }
  });
  if (problems.list.length > before) return undefined;
  try {
    // Checked against its own paths: the data is not known until a result comes.
    defineProjection(specs, { knownPaths: specs.map((spec) => (typeof spec === 'string' ? spec : spec.path)) });
  } catch (error) {
    if (!(error instanceof McpctxError)) throw error;
    problems.add(path, error.message);
    return undefined;
  }
  return specs;
}
