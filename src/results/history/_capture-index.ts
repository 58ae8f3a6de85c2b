import { join } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import type { IsoDate, PublishedServer, ResultsState, ToolVector } from '../_model.js';
import { parseResultsJson, readResultsText } from '../_read-file.js';
import { compareSweeps } from '../_order.js';
import { compareText } from './_movement.js';
import { lastSighting } from './_vectors.js';

export const CAPTURE_INDEX_FILE = 'capture-index.json';
export const CAPTURE_INDEX_METHOD = 'capture-index/v1';

export interface CaptureIndex {
  method: typeof CAPTURE_INDEX_METHOD;
  /** Every capture the tool vectors hold, by canonical sha256, sorted by hash. */
  captures: Record<string, { server: string; firstSeen: IsoDate; lastSeen: IsoDate; current: boolean }>;
  /** Each server's current capture; null when it has none on record. Sorted by server. */
  current: Record<string, string | null>;
}

/**
 * Joins bytes to the published history: derived from the tool vectors alone, so a capture older
 * than them is unknown here, never guessed. A server's current capture is the one seen in the latest
 * sweep that measured it, by sweep and not by date: two sweeps of one day are told apart (a server
 * that fails today keeps the last capture it published). Two servers that
 * published the same bytes share one entry: the server it is current for wins, then the first name.
 */
export function captureIndex(state: ResultsState): CaptureIndex {
  const servers = [...state.servers].sort((a, b) => compareText(a.name, b.name));
  const current = new Map(servers.map((server) => [server.name, currentVector(server)?.canonicalSha256 ?? null]));
  const captures = new Map<string, { server: string; firstSeen: IsoDate; lastSeen: IsoDate; current: boolean }>();
  for (const server of servers) {
    for (const vector of server.vectors.vectors) {
      const isCurrent = current.get(server.name) === vector.canonicalSha256;
      const held = captures.get(vector.canonicalSha256);
      if (held !== undefined && (held.current || !isCurrent)) continue;
      captures.set(vector.canonicalSha256, { server: server.name, firstSeen: vector.firstSeen, lastSeen: vector.lastSeen, current: isCurrent });
    }
  }
  // fromEntries makes own properties, so a server named `__proto__` is a key like any other.
  return {
    method: CAPTURE_INDEX_METHOD,
    captures: Object.fromEntries([...captures].sort(([a], [b]) => compareText(a, b))),
    current: Object.fromEntries(current),
  };
}

export function captureIndexJson(state: ResultsState): string {
  return `${JSON.stringify(captureIndex(state), null, 2)}\n`;
}

/**
 * The vector seen in the latest sweep. A tie is left only by vectors written before sweeps were
 * numbered (one sweep a day then): the later in the file was appended later.
 */
function currentVector(server: PublishedServer): ToolVector | undefined {
  let newest: ToolVector | undefined;
  for (const vector of server.vectors.vectors) if (newest === undefined || compareSweeps(lastSighting(vector), lastSighting(newest)) >= 0) newest = vector;
  return newest;
}

/**
 * `capture-index.json` of a results folder, checked for the shape `captureIndex` writes: an edited
 * or truncated file is refused with INVALID_RESULTS naming it, never half-read.
 */
export async function readCaptureIndex(dir: string): Promise<CaptureIndex> {
  const file = join(dir, CAPTURE_INDEX_FILE);
  const value = parseResultsJson(await readResultsText(file, true), file);
  const bad = (what: string): never => {
    throw new McpctxError('INVALID_RESULTS', `${file}: ${what}; rebuild results/ with mcpctx sweep`, { file });
  };
  if (!isPlainObject(value) || value.method !== CAPTURE_INDEX_METHOD) return bad(`expected an object with method ${CAPTURE_INDEX_METHOD}`);
  const { captures, current } = value;
  if (!isPlainObject(captures) || !isPlainObject(current)) return bad('expected captures and current maps');
  for (const [hash, capture] of Object.entries(captures)) {
    if (!/^[0-9a-f]{64}$/.test(hash)) return bad(`capture key ${JSON.stringify(hash.slice(0, 80))} is not a sha256`);
    if (!isPlainObject(capture) || typeof capture.server !== 'string' || typeof capture.current !== 'boolean' || !isIsoDate(capture.firstSeen) || !isIsoDate(capture.lastSeen)) {
      return bad(`capture ${hash} is not { server, firstSeen, lastSeen, current }`);
    }
  }
  for (const [server, hash] of Object.entries(current)) {
    if (hash !== null && (typeof hash !== 'string' || !Object.hasOwn(captures, hash))) return bad(`current capture of ${JSON.stringify(server)} is not a capture of the index`);
  }
  return value as unknown as CaptureIndex;
}

function isIsoDate(value: unknown): value is IsoDate {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
}
