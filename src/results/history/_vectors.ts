import { McpctxError } from '../../errors/index.js';
import type { Measurement } from '../../measure/index.js';
import { isPlainObject } from '../../json/index.js';
import type { IsoDate, MeasuredWith, SweepNumber, ToolTokens, ToolVector, ToolVectorsFile } from '../_model.js';
import { compareSweeps } from '../_order.js';
import { checkIsoDate, checkSweepNumber, hasNumber } from './_rows.js';

export const TOOL_VECTORS_FILE = 'tool-vectors.json';
const METHOD = 'tool-vectors/v1';
/** Distinct captures kept per server; beyond it the least recently seen drop off. */
export const MAX_TOOL_VECTORS = 20;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const SHA256 = /^[0-9a-f]{64}$/;

export function emptyToolVectors(server: string): ToolVectorsFile {
  return { method: METHOD, server, vectors: [] };
}

/**
 * Adds what a sweep measured to a server's vectors. A failed record changes nothing; a capture
 * already held (same canonical hash) moves to "last seen in this sweep" (date, sweep number and
 * what it was measured with) and keeps its place, so the file stays first-seen order; a new
 * capture is appended. Beyond MAX_TOOL_VECTORS the least recently seen go, which never includes
 * the capture just recorded.
 */
export function recordToolVector(file: ToolVectorsFile, measurement: Measurement, date: IsoDate, sweep?: SweepNumber): ToolVectorsFile {
  checkIsoDate(date, 'the sweep date');
  checkSweepNumber(sweep);
  if (measurement.name !== file.server) {
    throw new McpctxError('USAGE', `a measurement of ${JSON.stringify(measurement.name)} cannot go into the tool vectors of ${JSON.stringify(file.server)}`);
  }
  const sha = measurement.canonicalSha256;
  if (!hasNumber(measurement.status) || sha === null || measurement.perTool === null) return file;
  const seen = { date, ...(sweep === undefined ? {} : { sweep }) };
  const measuredWith = measuredWithOf(measurement);
  const held = file.vectors.findIndex((vector) => vector.canonicalSha256 === sha);
  if (held !== -1) {
    const vectors = file.vectors.map((vector, index) => (index === held ? seenAgain(vector, seen, measuredWith) : vector));
    return { ...file, vectors };
  }
  const added: ToolVector = {
    canonicalSha256: sha,
    firstSeen: date,
    lastSeen: date,
    ...(sweep === undefined ? {} : { firstSweep: sweep, lastSweep: sweep }),
    measuredWith,
    isolation: measurement.isolation?.kind ?? null,
    toolCount: measurement.toolCount ?? measurement.perTool.length,
    totalTokens: measurement.totalTokens ?? 0,
    tools: measurement.perTool.map((tool) => ({
      name: tool.name,
      tokens: tool.tokens,
      descriptionTokens: tool.descriptionTokens,
      inputSchemaTokens: tool.inputSchemaTokens,
      // Kept as 0 for a tool without one, so an absent field always means "not recorded".
      outputSchemaTokens: tool.outputSchemaTokens ?? 0,
    })),
  };
  return { ...file, vectors: keepNewest([...file.vectors, added]) };
}

/** A held capture measured again: its first and last sightings widen; the last one's launch and version are kept. */
function seenAgain(vector: ToolVector, seen: { date: IsoDate; sweep?: SweepNumber }, measuredWith: MeasuredWith): ToolVector {
  const first = { date: vector.firstSeen, ...(vector.firstSweep === undefined ? {} : { sweep: vector.firstSweep }) };
  const last = { date: vector.lastSeen, ...(vector.lastSweep === undefined ? {} : { sweep: vector.lastSweep }) };
  const newFirst = compareSweeps(seen, first) < 0 ? seen : first;
  const isLatest = compareSweeps(seen, last) >= 0;
  const newLast = isLatest ? seen : last;
  const kept = isLatest ? measuredWith : vector.measuredWith;
  return {
    canonicalSha256: vector.canonicalSha256,
    firstSeen: newFirst.date,
    lastSeen: newLast.date,
    // A capture first seen before sweeps were numbered keeps an unknown first sweep, and gains a last one.
    ...(newFirst.sweep === undefined ? {} : { firstSweep: newFirst.sweep }),
    ...(newLast.sweep === undefined ? {} : { lastSweep: newLast.sweep }),
    ...(kept === undefined ? {} : { measuredWith: kept }),
    isolation: vector.isolation,
    toolCount: vector.toolCount,
    totalTokens: vector.totalTokens,
    tools: vector.tools,
  };
}

/** When a vector was last measured, in sweep order. */
export function lastSighting(vector: ToolVector): { date: IsoDate; sweep?: SweepNumber } {
  return { date: vector.lastSeen, ...(vector.lastSweep === undefined ? {} : { sweep: vector.lastSweep }) };
}

/** What the record's number depends on besides its bytes: the launch as recorded, its folder when named, and the server's version. */
export function measuredWithOf(measurement: Measurement): MeasuredWith {
  const launch = measurement.launch as unknown as Record<string, unknown>;
  const words = typeof launch.url === 'string' ? [launch.url] : [String(launch.command), ...(Array.isArray(launch.args) ? launch.args.map(String) : [])];
  const info = measurement.serverInfo;
  const version = isPlainObject(info) && typeof info.version === 'string' ? info.version : null;
  return { launch: words, cwd: typeof launch.cwd === 'string' ? launch.cwd : null, serverVersion: version };
}

/** Drops the least recently seen vectors (in sweep order; the earlier in the file on a tie) until MAX_TOOL_VECTORS remain, order kept. */
function keepNewest(vectors: ToolVector[]): ToolVector[] {
  const kept = [...vectors];
  while (kept.length > MAX_TOOL_VECTORS) {
    let stalest = 0;
    kept.forEach((vector, index) => {
      if (compareSweeps(lastSighting(vector), lastSighting(kept[stalest] as ToolVector)) < 0) stalest = index;
    });
    kept.splice(stalest, 1);
  }
  return kept;
}

export function toolVectorsJson(file: ToolVectorsFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/**
 * Reads `tool-vectors.json`. Anything malformed is refused with the path of the first bad value
 * (`vectors[2].tools[0].tokens`); unknown keys are refused too, since rewriting the file would
 * silently drop them.
 */
export function parseToolVectors(text: string, file: string): ToolVectorsFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new McpctxError('INVALID_RESULTS', `${file}: not JSON (${(error as Error).message})`, { file, path: '' });
  }
  const reader: Reader = new Reader(file);
  const top = reader.object(value, '', ['method', 'server', 'vectors']);
  if (top.method !== METHOD) reader.fail('method', `must be ${JSON.stringify(METHOD)}`);
  const server = reader.text(top.server, 'server');
  const vectors = reader.list(top.vectors, 'vectors').map((item, index) => readVector(reader, item, `vectors[${index}]`));
  const seen = new Set<string>();
  vectors.forEach((vector, index) => {
    if (seen.has(vector.canonicalSha256)) reader.fail(`vectors[${index}].canonicalSha256`, 'repeats a capture already in the file');
    seen.add(vector.canonicalSha256);
  });
  return { method: METHOD, server, vectors };
}

const VECTOR_KEYS = ['canonicalSha256', 'firstSeen', 'lastSeen', 'isolation', 'toolCount', 'totalTokens', 'tools'];
/** Keys added later: a vector written before them lacks them and still reads. */
const LATER_VECTOR_KEYS = ['firstSweep', 'lastSweep', 'measuredWith'];
const TOOL_KEYS = ['name', 'tokens', 'descriptionTokens', 'inputSchemaTokens'];
const LATER_TOOL_KEYS = ['outputSchemaTokens'];

function readVector(reader: Reader, value: unknown, path: string): ToolVector {
  const fields = reader.object(value, path, VECTOR_KEYS, LATER_VECTOR_KEYS);
  const sha = reader.text(fields.canonicalSha256, `${path}.canonicalSha256`);
  if (!SHA256.test(sha)) reader.fail(`${path}.canonicalSha256`, 'must be a sha256 hex digest');
  const firstSeen = reader.date(fields.firstSeen, `${path}.firstSeen`);
  const lastSeen = reader.date(fields.lastSeen, `${path}.lastSeen`);
  if (lastSeen < firstSeen) reader.fail(`${path}.lastSeen`, 'is before firstSeen');
  const isolation = fields.isolation;
  if (isolation !== null && isolation !== 'host' && isolation !== 'docker') reader.fail(`${path}.isolation`, 'must be "host", "docker" or null');
  const toolCount = reader.count(fields.toolCount, `${path}.toolCount`);
  const totalTokens = reader.count(fields.totalTokens, `${path}.totalTokens`);
  const tools = reader.list(fields.tools, `${path}.tools`).map((item, index): ToolTokens => {
    const toolPath = `${path}.tools[${index}]`;
    const tool = reader.object(item, toolPath, TOOL_KEYS, LATER_TOOL_KEYS);
    return {
      // Any string: a server may name a tool with an empty string, and the file must still read.
      name: typeof tool.name === 'string' ? tool.name : reader.fail(`${toolPath}.name`, 'must be a string'),
      tokens: reader.count(tool.tokens, `${toolPath}.tokens`),
      descriptionTokens: reader.count(tool.descriptionTokens, `${toolPath}.descriptionTokens`),
      inputSchemaTokens: reader.count(tool.inputSchemaTokens, `${toolPath}.inputSchemaTokens`),
      ...(Object.hasOwn(tool, 'outputSchemaTokens') ? { outputSchemaTokens: reader.count(tool.outputSchemaTokens, `${toolPath}.outputSchemaTokens`) } : {}),
    };
  });
  if (tools.length !== toolCount) reader.fail(`${path}.toolCount`, `is ${toolCount} but the vector lists ${tools.length} tools`);
  const sweeps = readSweeps(reader, fields, path);
  const measuredWith = Object.hasOwn(fields, 'measuredWith') ? readMeasuredWith(reader, fields.measuredWith, `${path}.measuredWith`) : undefined;
  return { canonicalSha256: sha, firstSeen, lastSeen, ...sweeps, ...(measuredWith === undefined ? {} : { measuredWith }), isolation, toolCount, totalTokens, tools };
}

/** Sweep numbers, each optional (a capture first seen before sweeps were numbered has a last one only); the first never after the last. */
function readSweeps(reader: Reader, fields: Record<string, unknown>, path: string): { firstSweep?: SweepNumber; lastSweep?: SweepNumber } {
  const sweepOf = (key: 'firstSweep' | 'lastSweep'): SweepNumber | undefined => {
    if (!Object.hasOwn(fields, key)) return undefined;
    const sweep = reader.count(fields[key], `${path}.${key}`);
    if (sweep < 1) reader.fail(`${path}.${key}`, 'must be a sweep number from 1');
    return sweep;
  };
  const firstSweep = sweepOf('firstSweep');
  const lastSweep = sweepOf('lastSweep');
  if (firstSweep !== undefined && lastSweep === undefined) reader.fail(`${path}.lastSweep`, 'is missing where firstSweep is given');
  if (firstSweep !== undefined && lastSweep !== undefined && lastSweep < firstSweep) reader.fail(`${path}.lastSweep`, 'is before firstSweep');
  return { ...(firstSweep === undefined ? {} : { firstSweep }), ...(lastSweep === undefined ? {} : { lastSweep }) };
}

function readMeasuredWith(reader: Reader, value: unknown, path: string): MeasuredWith {
  const fields = reader.object(value, path, ['launch', 'cwd', 'serverVersion']);
  const launch = reader.list(fields.launch, `${path}.launch`).map((word, index) => (typeof word === 'string' ? word : reader.fail(`${path}.launch[${index}]`, 'must be a string')));
  const optionalText = (field: unknown, where: string): string | null => (field === null || typeof field === 'string' ? field : reader.fail(where, 'must be a string or null'));
  return { launch, cwd: optionalText(fields.cwd, `${path}.cwd`), serverVersion: optionalText(fields.serverVersion, `${path}.serverVersion`) };
}

/** Checks one value at a time and refuses the first bad one with its path in the file. */
class Reader {
  constructor(private readonly file: string) {}

  fail(path: string, message: string): never {
    throw new McpctxError('INVALID_RESULTS', `${this.file}: ${path === '' ? 'the top level' : path} ${message}`, { file: this.file, path });
  }

  /** An object with every one of `keys`, any of `optional`, and nothing else. */
  object(value: unknown, path: string, keys: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
    if (!isPlainObject(value)) this.fail(path, 'must be an object');
    for (const key of keys) if (!Object.hasOwn(value, key)) this.fail(path, `lacks ${JSON.stringify(key)}`);
    const unknown = Object.keys(value).find((key) => !keys.includes(key) && !optional.includes(key));
    if (unknown !== undefined) this.fail(path, `has an unknown key ${JSON.stringify(unknown.slice(0, 100))}`);
    return value;
  }

  list(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) this.fail(path, 'must be a list');
    return value;
  }

  text(value: unknown, path: string): string {
    if (typeof value !== 'string' || value === '') this.fail(path, 'must be a non-empty string');
    return value;
  }

  date(value: unknown, path: string): string {
    if (typeof value !== 'string' || !DATE.test(value)) this.fail(path, 'must be a date as YYYY-MM-DD');
    return value;
  }

  count(value: unknown, path: string): number {
    if (!Number.isSafeInteger(value) || (value as number) < 0) this.fail(path, 'must be a whole number');
    return value as number;
  }
}
