import { McpctxError } from '../../errors/index.js';
import { BAND_LIMITS, RECORD_STATUSES, type Band, type ContainerIsolation, type DockerNetwork, type IsolationKind } from '../../measure/index.js';
import { isPlainObject, type JsonObject } from '../../json/index.js';
import type { PublishedStatus } from '../_model.js';
import type { Leaderboard, LeaderboardRow, LeaderboardTrend } from '../leaderboard/index.js';

// Shape checks for the files a site is built from. Every file of results/ may have been edited by
// anyone, so each field the site reads is checked for its type before any page uses it; a file
// that does not match is refused with its name and the field, never half-rendered.

const PUBLISHED_STATUSES: readonly string[] = [...RECORD_STATUSES, 'not-yet-run'];
const BANDS: readonly string[] = BAND_LIMITS.map((limit) => limit.band);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** What a server page shows of one tool. */
export interface SiteTool {
  name: string;
  tokens: number;
  descriptionTokens: number;
  inputSchemaTokens: number;
  /** Null when the tool has no output schema (the record then has no count for one). */
  outputSchemaTokens: number | null;
  /** The tool's description from the capture; null when it has none or the capture was not kept. */
  description: string | null;
  /** The schemas as captured; undefined when the tool has none or the capture was not kept. */
  inputSchema: unknown;
  outputSchema: unknown;
}

/** What the server said it is at initialize (its own words, untrusted); null fields it did not send as strings. */
export interface SiteServerInfo {
  name: string | null;
  version: string | null;
}

export type SiteLaunch =
  | { kind: 'stdio'; command: string; args: string[]; envNames: string[] }
  | { kind: 'remote'; url: string; headerNames: string[]; envNames: string[] };

/** The fields of a `measurement.json` the site shows, checked. */
export interface SiteMeasurement {
  name: string;
  status: PublishedStatus;
  note: string;
  totalTokens: number | null;
  toolCount: number | null;
  canonicalSha256: string | null;
  tools: SiteTool[] | null;
  sessionStart: number | null;
  launch: SiteLaunch;
  /** `kind` null: the record predates isolation kinds (unknown, never assumed to be host). */
  isolation: { kind: IsolationKind | null; platform: string | null; arch: string | null; node: string | null; container: ContainerIsolation | null };
  measuredAt: string | null;
  methodology: string;
  /** The end of a failed server's stderr; '' when it wrote none, null when the record has no such field. */
  stderrTail: string | null;
  serverInfo: SiteServerInfo | null;
}

class Checker {
  constructor(readonly file: string) {}

  fail(where: string, expected: string): never {
    throw new McpctxError('INVALID_RESULTS', `${this.file}: ${where} must be ${expected}; rebuild results/ with mcpctx sweep, or restore the file`, {
      file: this.file,
      field: where,
    });
  }

  object(value: unknown, where: string): JsonObject {
    return isPlainObject(value) ? value : this.fail(where, 'an object');
  }

  string(value: unknown, where: string): string {
    return typeof value === 'string' ? value : this.fail(where, 'a string');
  }

  count(value: unknown, where: string): number {
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : this.fail(where, 'a whole number');
  }

  nullable<T>(value: unknown, where: string, read: (value: unknown, where: string) => T): T | null {
    return value === null ? null : read(value, where);
  }

  strings(value: unknown, where: string): string[] {
    if (!Array.isArray(value)) return this.fail(where, 'a list of strings');
    return value.map((item, index) => this.string(item, `${where}[${index}]`));
  }

  oneOf<T extends string>(value: unknown, where: string, allowed: readonly string[]): T {
    return typeof value === 'string' && allowed.includes(value) ? (value as T) : this.fail(where, `one of ${allowed.join(', ')}`);
  }

  date(value: unknown, where: string): string {
    return typeof value === 'string' && DATE.test(value) ? value : this.fail(where, 'a YYYY-MM-DD date');
  }

  sha(value: unknown, where: string): string {
    return typeof value === 'string' && SHA256.test(value) ? value : this.fail(where, 'a sha256 hex digest');
  }
}

/** Checks the parsed `leaderboard.json`; every row's fields are typed and every server named once. */
export function checkLeaderboard(value: unknown, file: string): Leaderboard {
  const check = new Checker(file);
  const top = check.object(value, 'the file');
  if (top.method !== 'leaderboard/v1') check.fail('method', '"leaderboard/v1"');
  if (!Array.isArray(top.rows)) return check.fail('rows', 'a list');
  const rows = top.rows.map((row, index) => checkRow(check, row, `rows[${index}]`));
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    if (seen.has(row.server)) check.fail(`rows[${index}].server`, `named once (${JSON.stringify(row.server)} is listed twice)`);
    seen.add(row.server);
  });
  return {
    method: 'leaderboard/v1',
    methodology: check.string(top.methodology, 'methodology'),
    tokenizer: check.oneOf(top.tokenizer, 'tokenizer', ['o200k_base']),
    servers: check.count(top.servers, 'servers'),
    measured: check.count(top.measured, 'measured'),
    rows,
  };
}

function checkRow(check: Checker, value: unknown, where: string): LeaderboardRow {
  const row = check.object(value, where);
  const at = (key: string): string => `${where}.${key}`;
  const server = check.string(row.server, at('server'));
  if (server === '') check.fail(at('server'), 'a non-empty name');
  return {
    rank: check.nullable(row.rank, at('rank'), (v, w) => check.count(v, w)),
    server,
    status: check.oneOf<PublishedStatus>(row.status, at('status'), PUBLISHED_STATUSES),
    band: check.nullable(row.band, at('band'), (v, w) => check.oneOf<Band>(v, w, BANDS)),
    tools: check.nullable(row.tools, at('tools'), (v, w) => check.count(v, w)),
    tokens: check.nullable(row.tokens, at('tokens'), (v, w) => check.count(v, w)),
    sessionStart: check.nullable(row.sessionStart, at('sessionStart'), (v, w) => check.count(v, w)),
    sessionStartFloor: typeof row.sessionStartFloor === 'boolean' ? row.sessionStartFloor : check.fail(at('sessionStartFloor'), 'true or false'),
    lastMeasured: check.nullable(row.lastMeasured, at('lastMeasured'), (v, w) => check.date(v, w)),
    trend: check.nullable(row.trend, at('trend'), (v, w) => checkTrend(check, v, w)),
    isolation: check.nullable(row.isolation, at('isolation'), (v, w) => check.oneOf<IsolationKind>(v, w, ['host', 'docker'])),
    canonicalSha256: check.nullable(row.canonicalSha256, at('canonicalSha256'), (v, w) => check.sha(v, w)),
    note: check.string(row.note, at('note')),
  };
}

function checkTrend(check: Checker, value: unknown, where: string): LeaderboardTrend {
  const trend = check.object(value, where);
  const delta = trend.delta;
  return {
    direction: check.oneOf<LeaderboardTrend['direction']>(trend.direction, `${where}.direction`, ['up', 'down', 'flat']),
    delta: typeof delta === 'number' && Number.isSafeInteger(delta) ? delta : check.fail(`${where}.delta`, 'a whole number'),
    from: check.date(trend.from, `${where}.from`),
  };
}

/** Checks the parsed `measurement.json` of `server`: the fields a server page shows. */
export function checkMeasurement(value: unknown, file: string, server: string): SiteMeasurement {
  const check = new Checker(file);
  const record = check.object(value, 'the file');
  const name = check.string(record.name, 'name');
  if (name !== server) check.fail('name', `the server it is filed under (${JSON.stringify(server)}), not ${JSON.stringify(name)}`);
  const isolation = check.object(record.isolation, 'isolation');
  const optional = (key: string): string | null => (isolation[key] === undefined ? null : check.string(isolation[key], `isolation.${key}`));
  return {
    name,
    status: check.oneOf<PublishedStatus>(record.status, 'status', RECORD_STATUSES),
    note: check.string(record.note, 'note'),
    totalTokens: check.nullable(record.totalTokens, 'totalTokens', (v, w) => check.count(v, w)),
    toolCount: check.nullable(record.toolCount, 'toolCount', (v, w) => check.count(v, w)),
    canonicalSha256: check.nullable(record.canonicalSha256, 'canonicalSha256', (v, w) => check.sha(v, w)),
    tools: check.nullable(record.perTool, 'perTool', (v, w) => checkTools(check, v, w, record.rawToolsCapture)),
    sessionStart: check.nullable(record.sessionStart, 'sessionStart', (v, w) => check.count(check.object(v, w).total, `${w}.total`)),
    launch: checkLaunch(check, record.launch),
    isolation: {
      kind: isolation.kind === undefined ? null : check.oneOf<IsolationKind>(isolation.kind, 'isolation.kind', ['host', 'docker']),
      platform: optional('platform'),
      arch: optional('arch'),
      node: optional('node'),
      container: isolation.container === undefined ? null : checkContainer(check, isolation.container),
    },
    measuredAt: record.measuredAt === undefined ? null : check.string(record.measuredAt, 'measuredAt'),
    methodology: check.string(record.methodology, 'methodology'),
    stderrTail: record.stderrTail === undefined ? null : check.string(record.stderrTail, 'stderrTail'),
    serverInfo: serverInfoOf(record.serverInfo),
  };
}

/** A docker record's container: image, network and limits, shown on its page as they were recorded. */
function checkContainer(check: Checker, value: unknown): ContainerIsolation {
  const container = check.object(value, 'isolation.container');
  return {
    image: check.string(container.image, 'isolation.container.image'),
    network: check.oneOf<DockerNetwork>(container.network, 'isolation.container.network', ['bridge', 'host', 'none']),
    memory: check.string(container.memory, 'isolation.container.memory'),
    cpus: check.string(container.cpus, 'isolation.container.cpus'),
    pids: check.count(container.pids, 'isolation.container.pids'),
    npmCache: container.npmCache === undefined ? null : check.nullable(container.npmCache, 'isolation.container.npmCache', (v, w) => check.string(v, w)),
  };
}

function serverInfoOf(value: unknown): SiteServerInfo | null {
  if (!isPlainObject(value)) return null;
  const own = (key: string): string | null => (Object.hasOwn(value, key) && typeof value[key] === 'string' ? value[key] : null);
  return { name: own('name'), version: own('version') };
}

function checkTools(check: Checker, value: unknown, where: string, capture: unknown): SiteTool[] {
  if (!Array.isArray(value)) return check.fail(where, 'a list');
  return value.map((item, index) => {
    const tool = check.object(item, `${where}[${index}]`);
    const at = (key: string): string => `${where}[${index}].${key}`;
    const name = check.string(tool.name, at('name'));
    // The description is read from the capture only where the capture's tool is the same one.
    const captured: unknown = Array.isArray(capture) ? capture[index] : undefined;
    const same = isPlainObject(captured) && captured.name === name ? captured : undefined;
    const field = (key: string): unknown => (same !== undefined && Object.hasOwn(same, key) ? same[key] : undefined);
    const description = field('description');
    return {
      name,
      tokens: check.count(tool.tokens, at('tokens')),
      descriptionTokens: check.count(tool.descriptionTokens, at('descriptionTokens')),
      inputSchemaTokens: check.count(tool.inputSchemaTokens, at('inputSchemaTokens')),
      outputSchemaTokens: tool.outputSchemaTokens === undefined ? null : check.count(tool.outputSchemaTokens, at('outputSchemaTokens')),
      description: typeof description === 'string' ? description : null,
      inputSchema: field('inputSchema'),
      outputSchema: field('outputSchema'),
    };
  });
}

function checkLaunch(check: Checker, value: unknown): SiteLaunch {
  const launch = check.object(value, 'launch');
  const envNames = launch.envNames === undefined ? [] : check.strings(launch.envNames, 'launch.envNames');
  if (launch.url !== undefined) {
    const headerNames = launch.headerNames === undefined ? [] : check.strings(launch.headerNames, 'launch.headerNames');
    return { kind: 'remote', url: check.string(launch.url, 'launch.url'), headerNames, envNames };
  }
  return { kind: 'stdio', command: check.string(launch.command, 'launch.command'), args: check.strings(launch.args, 'launch.args'), envNames };
}
