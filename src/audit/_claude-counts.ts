/**
 * Exact Claude counts for the `auto` threshold. A server whose capture has a published Claude
 * count (the `claude` block, tools-delta/v1) is converted with that count, low = high; the rest
 * go through the divergence band. A block counts only for the bytes it was computed from: its
 * canonicalSha256 must equal the capture audit measured, so a block left over from other bytes
 * (a re-sweep, an older install) is stale, is not used, and is reported as such.
 */
import { isPlainObject } from '../json/index.js';
import { measurementPath, type Measurement } from '../measure/index.js';
import { parseResultsJson, readCaptureIndex, readResultsText, type CaptureIndex } from '../results/index.js';

/** What is known about a capture's Claude count. */
export type ClaudeCount = { state: 'exact'; claudeTokens: number; from: string } | { state: 'stale'; why: string };

/** Claude counts by the canonicalSha256 of the capture audit measured. */
export type ClaudeCounts = ReadonlyMap<string, ClaudeCount>;

/** The block's own count, when it is a count at all; `from` says where it was read. */
function countOfBlock(block: unknown, hash: string, from: string): ClaudeCount | undefined {
  if (!isPlainObject(block)) return undefined;
  const { claudeTokens, canonicalSha256 } = block;
  if (typeof claudeTokens !== 'number' || !Number.isSafeInteger(claudeTokens) || claudeTokens < 0) return undefined;
  if (canonicalSha256 !== hash) {
    const computedFrom = typeof canonicalSha256 === 'string' ? canonicalSha256.slice(0, 12) : 'no recorded capture';
    return { state: 'stale', why: `the Claude count in ${from} was computed from capture ${computedFrom}, not ${hash.slice(0, 12)} measured here: not used` };
  }
  return { state: 'exact', claudeTokens, from };
}

/** The server's published record; undefined when it is missing, too large or not JSON (the band converts it then). */
async function publishedRecord(resultsDir: string, server: string): Promise<unknown> {
  const file = measurementPath(resultsDir, server);
  try {
    const text = await readResultsText(file, false);
    return text === '' ? undefined : parseResultsJson(text, file);
  } catch {
    return undefined;
  }
}

/** A results folder to take published Claude counts from, with its capture index. */
export interface PublishedResults {
  dir: string;
  index: CaptureIndex;
}

/** Reads the folder's capture index; throws (INVALID_RESULTS, not found) before anything is launched. */
export async function readPublished(dir: string): Promise<PublishedResults> {
  return { dir, index: await readCaptureIndex(dir) };
}

/**
 * The Claude count of each measured capture: its own `claude` block first, then the published
 * record the capture index files those bytes under (joined by hash, never by name). Captures with
 * neither are absent: the band converts them.
 */
export async function claudeCounts(measurements: Iterable<Measurement>, published?: PublishedResults): Promise<Map<string, ClaudeCount>> {
  const counts = new Map<string, ClaudeCount>();
  for (const measurement of measurements) {
    const hash = measurement.canonicalSha256;
    if (hash === null || counts.has(hash)) continue;
    const own = countOfBlock(measurement.claude, hash, 'this measurement');
    if (own?.state === 'exact' || published === undefined) {
      if (own !== undefined) counts.set(hash, own);
      continue;
    }
    const capture = Object.hasOwn(published.index.captures, hash) ? published.index.captures[hash] : undefined;
    const record = capture === undefined ? undefined : await publishedRecord(published.dir, capture.server);
    const fromRecord = capture === undefined || !isPlainObject(record) ? undefined : countOfBlock(record.claude, hash, `the published record of ${capture.server}`);
    const count = fromRecord ?? own;
    if (count !== undefined) counts.set(hash, count);
  }
  return counts;
}
