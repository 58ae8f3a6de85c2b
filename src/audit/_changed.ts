/**
 * `--changed RESULTS`: did the servers in my configs get heavier since? Each measured server is
 * joined to the published history by its canonical hash, never by its name (a config's key is a
 * local label: a fork, a pin or something else entirely could carry the official name). Three
 * states and no fourth: behind (a published capture that is no longer current), current, or
 * unidentified (bytes never published, or published before the index began).
 */
import { readFile } from 'node:fs/promises';
import { measurementPath } from '../measure/index.js';
import type { CaptureIndex } from '../results/index.js';
import { isPlainObject } from '../json/index.js';

export type ChangeState =
  | {
      state: 'behind';
      /** The published server the bytes belong to. */
      server: string;
      /** When the installed capture was published (first and last seen). */
      installedSeen: { first: string; last: string };
      /** When the current capture was last seen. */
      currentSeen: string;
      /** Tokens moving to current would add to every request (negative: it would save); null when the current record cannot be read. */
      tokensToCurrent: number | null;
      currentTokens: number | null;
    }
  | { state: 'current'; server: string; seen: { first: string; last: string } }
  | { state: 'unidentified' };

export interface ChangeRow {
  /** The config's label for it. */
  name: string;
  canonicalSha256: string;
  tokens: number;
  change: ChangeState;
  /** Set when the label differs from the published name: both are printed, the bytes decide. */
  publishedAs?: string;
}

/** The current record's total, when its measurement file holds the capture the index calls current. */
async function currentTotal(resultsDir: string, server: string, hash: string): Promise<number | null> {
  try {
    const record: unknown = JSON.parse(await readFile(measurementPath(resultsDir, server), 'utf8'));
    if (!isPlainObject(record) || record.canonicalSha256 !== hash || typeof record.totalTokens !== 'number') return null;
    return record.totalTokens;
  } catch {
    return null;
  }
}

/** Joins each measured server (label, hash, tokens) to the capture index. */
export async function changedAgainst(
  measured: ReadonlyArray<{ name: string; canonicalSha256: string; tokens: number }>,
  index: CaptureIndex,
  resultsDir: string,
): Promise<ChangeRow[]> {
  const rows: ChangeRow[] = [];
  for (const { name, canonicalSha256, tokens } of measured) {
    const capture = Object.hasOwn(index.captures, canonicalSha256) ? index.captures[canonicalSha256] : undefined;
    let change: ChangeState;
    if (capture === undefined) change = { state: 'unidentified' };
    else if (capture.current) change = { state: 'current', server: capture.server, seen: { first: capture.firstSeen, last: capture.lastSeen } };
    else {
      const currentHash = Object.hasOwn(index.current, capture.server) ? index.current[capture.server] : null;
      const current = currentHash === null || currentHash === undefined ? undefined : index.captures[currentHash];
      const currentTokens = currentHash === null || currentHash === undefined ? null : await currentTotal(resultsDir, capture.server, currentHash);
      change = {
        state: 'behind',
        server: capture.server,
        installedSeen: { first: capture.firstSeen, last: capture.lastSeen },
        currentSeen: current?.lastSeen ?? 'unknown',
        tokensToCurrent: currentTokens === null ? null : currentTokens - tokens,
        currentTokens,
      };
    }
    const row: ChangeRow = { name, canonicalSha256, tokens, change };
    if (change.state !== 'unidentified' && change.server !== name) row.publishedAs = change.server;
    rows.push(row);
  }
  return rows;
}
