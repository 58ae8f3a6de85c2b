/**
 * The optimizer's one recency order. Every "newer", "latest", "oldest first" and "chronological"
 * in the optimizer (which run of a command is kept, which failure is the newest, the tie-break of
 * a ranking, the order of a section, the lookup tools' lists) is this comparison.
 *
 * What in the input carries meaning, and so what order this gives:
 *   1. A timestamp places a record in time: of two dated records the later timestamp is newer.
 *   2. A record without a timestamp cannot be placed among dated ones; it counts as older than
 *      every dated record (what is known to be recent outranks what is not known to be).
 *   3. Where time says nothing (both undated, or the same instant), input order is the only clock:
 *      the later record is newer. Input order is `NormalizedRecord.order`, the position across the
 *      arrays in `RECORD_ARRAYS` order, so it is the position within an array and, between arrays,
 *      the fixed array order (messages, toolOutputs, errors, files, diffs, testResults, decisions);
 *      the key order of the input object never matters.
 *
 * It is a total order over the records of one session (`order` is unique), so sorting by it has one
 * answer. The consequence, which the tests check with shuffled input: reordering records whose
 * timestamps differ changes no output byte except `origin`, which names the input position. Only
 * the relative order of undated records, and of records sharing a timestamp, is information.
 *
 * Ranking is another matter: the recency signal of `_score.ts` gives an undated record 0.5 (neither
 * fresh nor stale), so an undated record can outscore an old dated one while still sorting before it.
 */
import type { NormalizedRecord } from './_types.js';

type Timed = Pick<NormalizedRecord, 'time' | 'order'>;

/** Negative when `a` is older than `b`, positive when newer; 0 only for the same position. */
export function compareRecency(a: Timed, b: Timed): number {
  const aDated = a.time !== undefined;
  const bDated = b.time !== undefined;
  if (aDated !== bDated) return aDated ? 1 : -1;
  if (aDated && bDated && a.time !== b.time) return a.time! - b.time!;
  return a.order - b.order;
}

/** Whether `a` is newer than `b`. */
export function isNewerRecord(a: Timed, b: Timed): boolean {
  return compareRecency(a, b) > 0;
}
