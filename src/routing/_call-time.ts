/**
 * How long routing's model calls took, per cell (protocol, retriever, kind, size), from the
 * timings each answer records: a call runs from its first attempt's start to the answering
 * attempt's end, so retries and their waits count. Wall-clock on the machine that ran: stated
 * beside accuracy, never a verdict. Percentiles are nearest-rank (an observed value, the same on
 * every recomputation).
 */
import { isPlainObject } from '../json/index.js';
import type { ExchangeTiming, RawExchange } from '../providers/index.js';
import type { DistractorKind, ProtocolName } from './_types.js';

/** An attempt retried before the one that answered: its status (0: no answer came), times, and its bytes as sent and received (key scrubbed) with their sha256. */
export interface RetriedCall {
  readonly status: number;
  readonly timing: ExchangeTiming;
  readonly raw: RawExchange;
  readonly rawRequestSha256: string;
  readonly rawResponseSha256: string;
}

/** The attempts of one model call: the one that answered, and those retried before it. */
export interface CallTiming {
  readonly timing: ExchangeTiming;
  readonly retries: readonly RetriedCall[];
}

/** The fields of an answer the table reads. */
export interface TimedRow {
  readonly protocol: ProtocolName;
  readonly retriever: string | null;
  readonly kind: DistractorKind;
  readonly size: number;
  readonly call?: CallTiming;
}

export interface CallTimeCell {
  readonly protocol: ProtocolName;
  readonly retriever: string | null;
  readonly kind: DistractorKind;
  readonly size: number;
  readonly calls: number;
  /** Sum, median and 95th percentile of the calls' times in ms; null when a call of the cell has no time recorded. */
  readonly totalMs: number | null;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
}

/** A call's time in ms: its first attempt's start to its last attempt's end; null when a time is missing. */
export function callMs(call: CallTiming | undefined): number | null {
  // A receipt is read from a file: a timing edited out of shape is no time, not an exception.
  if (!isPlainObject(call) || !isPlainObject(call.timing) || !Array.isArray(call.retries) || typeof call.timing.endedAt !== 'string') return null;
  const first = call.retries[0];
  const startedAt = isPlainObject(first) && isPlainObject(first.timing) ? first.timing.startedAt : call.timing.startedAt;
  const ms = Date.parse(call.timing.endedAt) - Date.parse(String(startedAt));
  return Number.isNaN(ms) ? null : ms;
}

/** Nearest rank: the smallest value with at least `quantile` of the values at or below it. */
function percentile(sorted: readonly number[], quantile: number): number {
  return sorted[Math.max(0, Math.ceil(quantile * sorted.length) - 1)] as number;
}

/** One cell per condition in the rows' first-seen order; with `requestsPerCondition`, only conditions answered in full (as the accuracy table). */
export function callTimeTable(rows: readonly TimedRow[], requestsPerCondition?: number): CallTimeCell[] {
  const groups = new Map<string, TimedRow[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.protocol, row.retriever, row.kind, row.size]);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return [...groups.values()]
    .filter((group) => requestsPerCondition === undefined || group.length === requestsPerCondition)
    .map((group) => {
      const first = group[0]!;
      const times = group.map((row) => callMs(row.call));
      const known = times.every((time): time is number => time !== null);
      const sorted = known ? [...(times as number[])].sort((a, b) => a - b) : [];
      return {
        protocol: first.protocol,
        retriever: first.retriever,
        kind: first.kind,
        size: first.size,
        calls: group.length,
        totalMs: known ? sorted.reduce((sum, time) => sum + time, 0) : null,
        p50Ms: known && sorted.length > 0 ? percentile(sorted, 0.5) : null,
        p95Ms: known && sorted.length > 0 ? percentile(sorted, 0.95) : null,
      };
    });
}
