import { McpctxError } from '../../errors/index.js';
import type { Measurement } from '../../measure/index.js';
import { isPlainObject } from '../../json/index.js';
import type { IsoDate, ToolTokens, ToolVector, ToolVectorsFile } from '../_model.js';
import { checkIsoDate, hasNumber } from './_rows.js';

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
 * already held (same canonical hash) only moves its dates and keeps its place, so the file stays
 * oldest first; a new capture is appended. Beyond MAX_TOOL_VECTORS the least recently seen go,
 * which never includes the capture just recorded.
 */
export function recordToolVector(file: ToolVectorsFile, measurement: Measurement, date: IsoDate): ToolVectorsFile {
  checkIsoDate(date, 'the sweep date');
  if (measurement.name !== file.server) {
    throw new McpctxError('USAGE', `a measurement of ${JSON.stringify(measurement.name)} cannot go into the tool vectors of ${JSON.stringify(file.server)}`);
  }
  const sha = measurement.canonicalSha256;
  if (!hasNumber(measurement.status) || sha === null || measurement.perTool === null) return file;
  const held = file.vectors.findIndex((vector) => vector.canonicalSha256 === sha);
  if (held !== -1) {
    const vectors = file.vectors.map((vector, index) =>
      index === held
        ? { ...vector, firstSeen: earlier(vector.firstSeen, date), lastSeen: later(vector.lastSeen, date) }
        : vector,
    );
    return { ...file, vectors };
  }
  const added: ToolVector = {
    canonicalSha256: sha,
    firstSeen: date,
    lastSeen: date,
    isolation: measurement.isolation?.kind ?? null,
    toolCount: measurement.toolCount ?? measurement.perTool.length,
    totalTokens: measurement.totalTokens ?? 0,
    tools: measurement.perTool.map((tool) => ({
      name: tool.name,
      tokens: tool.tokens,
      descriptionTokens: tool.descriptionTokens,
      inputSchemaTokens: tool.inputSchemaTokens,
    })),
  };
  return { ...file, vectors: keepNewest([...file.vectors, added]) };
}

/** Drops the least recently seen vectors (the earlier one on a tie) until MAX_TOOL_VECTORS remain, order kept. */
function keepNewest(vectors: ToolVector[]): ToolVector[] {
  const kept = [...vectors];
  while (kept.length > MAX_TOOL_VECTORS) {
    let stalest = 0;
    kept.forEach((vector, index) => {
      if (vector.lastSeen < (kept[stalest] as ToolVector).lastSeen) stalest = index;
    });
    kept.splice(stalest, 1);
  }
  return kept;
}

function earlier(a: IsoDate, b: IsoDate): IsoDate {
  return a <= b ? a : b;
}

function later(a: IsoDate, b: IsoDate): IsoDate {
  return a >= b ? a : b;
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
const TOOL_KEYS = ['name', 'tokens', 'descriptionTokens', 'inputSchemaTokens'];

function readVector(reader: Reader, value: unknown, path: string): ToolVector {
  const fields = reader.object(value, path, VECTOR_KEYS);
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
    const tool = reader.object(item, toolPath, TOOL_KEYS);
    return {
      // Any string: a server may name a tool with an empty string, and the file must still read.
      name: typeof tool.name === 'string' ? tool.name : reader.fail(`${toolPath}.name`, 'must be a string'),
      tokens: reader.count(tool.tokens, `${toolPath}.tokens`),
      descriptionTokens: reader.count(tool.descriptionTokens, `${toolPath}.descriptionTokens`),
      inputSchemaTokens: reader.count(tool.inputSchemaTokens, `${toolPath}.inputSchemaTokens`),
    };
  });
  if (tools.length !== toolCount) reader.fail(`${path}.toolCount`, `is ${toolCount} but the vector lists ${tools.length} tools`);
  return { canonicalSha256: sha, firstSeen, lastSeen, isolation, toolCount, totalTokens, tools };
}

/** Checks one value at a time and refuses the first bad one with its path in the file. */
class Reader {
  constructor(private readonly file: string) {}

  fail(path: string, message: string): never {
    throw new McpctxError('INVALID_RESULTS', `${this.file}: ${path === '' ? 'the top level' : path} ${message}`, { file: this.file, path });
  }

  object(value: unknown, path: string, keys: readonly string[]): Record<string, unknown> {
    if (!isPlainObject(value)) this.fail(path, 'must be an object');
    for (const key of keys) if (!Object.hasOwn(value, key)) this.fail(path, `lacks ${JSON.stringify(key)}`);
    const unknown = Object.keys(value).find((key) => !keys.includes(key));
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
