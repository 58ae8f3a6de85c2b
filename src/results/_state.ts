import { McpctxError } from '../errors/index.js';
import type { Measurement } from '../measure/index.js';
import type { IsoDate, PublishedServer, ResultsState } from './_model.js';
import { appendHistory, emptyToolVectors, historyRowFor, nextSweepNumber, recordToolVector } from './history/index.js';

/** The state of a results folder no sweep has written yet. */
export const EMPTY_RESULTS: ResultsState = Object.freeze({ servers: [], history: [] }) as ResultsState;

/**
 * Applies one sweep to the published state. Each fresh measurement replaces its server's record,
 * adds its history row and records its tool vector; every other listed server keeps its previous
 * record, or is `not-yet-run` if it never had one. Servers come in `names` order (the servers file's);
 * a server no longer listed leaves the servers list, and its history rows stay. The result depends
 * on each server's own previous entry and fresh record only, which is what lets shards merge. The
 * sweep's number is the one after the previous history's newest, so shards of one sweep share it.
 */
export function applySweep(previous: ResultsState, names: readonly string[], fresh: ReadonlyMap<string, Measurement>, date: IsoDate): ResultsState {
  const listed = new Set(names);
  if (listed.size !== names.length) throw new McpctxError('USAGE', 'a sweep lists each server once; the names given repeat one');
  for (const [name, measurement] of fresh) {
    if (!listed.has(name)) throw new McpctxError('USAGE', `a measurement of ${JSON.stringify(name)} was given, but the sweep does not list that server`);
    if (measurement.name !== name) throw new McpctxError('USAGE', `the measurement given for ${JSON.stringify(name)} is of ${JSON.stringify(measurement.name)}`);
  }
  const sweep = nextSweepNumber(previous.history);
  const before = new Map(previous.servers.map((server) => [server.name, server]));
  const servers = names.map((name): PublishedServer => {
    const kept = before.get(name) ?? neverSwept(name);
    const measurement = fresh.get(name);
    if (measurement === undefined) return kept;
    return { name, status: measurement.status, measurement, lastMeasured: date, vectors: recordToolVector(kept.vectors, measurement, date, sweep) };
  });
  const rows = names.flatMap((name) => {
    const measurement = fresh.get(name);
    return measurement === undefined ? [] : [historyRowFor(measurement, date, sweep)];
  });
  return { servers, history: appendHistory(previous.history, rows) };
}

/** A listed server with no record yet. */
export function neverSwept(name: string): PublishedServer {
  return { name, status: 'not-yet-run', measurement: null, lastMeasured: null, vectors: emptyToolVectors(name) };
}
