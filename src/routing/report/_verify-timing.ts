/**
 * `routing verify`'s checks of the call timings a receipt records: each answer's attempts in
 * order (retried attempts, then the one that answered: start, first byte, end), the answers one
 * after another in run order, and, in a receipt with a call-time table, a timing on every answer;
 * each retried attempt's bytes hashed as recorded.
 * A time out of order is a difference at its path: recorded the time, recomputed what it must follow.
 */
import { isPlainObject } from '../../json/index.js';
import type { ModelRow } from '../_score.js';
import type { RetriedCall } from '../_call-time.js';
import { sha256Hex } from '../../tokens/index.js';
import type { ReceiptDifference } from './_receipt.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function callTimingDifferences(answers: readonly ModelRow[], timed: boolean): ReceiptDifference[] {
  const differences: ReceiptDifference[] = [];
  let previous: { field: string; at: string } | undefined;
  answers.forEach((row, index) => {
    const where = `answers[${index}].call`;
    if (row.call === undefined) {
      if (timed) differences.push({ field: where, recorded: undefined, recomputed: 'the call\'s timing (the receipt has a callTimes table)' });
      return;
    }
    const call: unknown = row.call;
    if (!isPlainObject(call) || !isPlainObject(call.timing) || !Array.isArray(call.retries) || !call.retries.every((retry) => isPlainObject(retry) && isPlainObject(retry.timing))) {
      differences.push({ field: where, recorded: row.call, recomputed: '{ timing: { startedAt, firstByteAt, endedAt }, retries: [{ status, timing, raw, rawRequestSha256, rawResponseSha256 }] }' });
      return;
    }
    const points: Array<{ field: string; at: unknown }> = [];
    row.call.retries.forEach((retry, retryIndex) => differences.push(...retryBytesDifferences(retry, `${where}.retries[${retryIndex}]`)));
    row.call.retries.forEach((retry, retryIndex) => {
      const path = `${where}.retries[${retryIndex}].timing`;
      points.push({ field: `${path}.startedAt`, at: retry.timing.startedAt });
      if (retry.timing.firstByteAt !== null) points.push({ field: `${path}.firstByteAt`, at: retry.timing.firstByteAt });
      if (retry.timing.endedAt !== null) points.push({ field: `${path}.endedAt`, at: retry.timing.endedAt });
    });
    const { timing } = row.call;
    points.push({ field: `${where}.timing.startedAt`, at: timing.startedAt });
    if (timing.firstByteAt !== null) points.push({ field: `${where}.timing.firstByteAt`, at: timing.firstByteAt });
    points.push({ field: `${where}.timing.endedAt`, at: timing.endedAt });
    for (const point of points) {
      if (typeof point.at !== 'string' || !ISO_TIME.test(point.at) || Number.isNaN(Date.parse(point.at))) {
        differences.push({ field: point.field, recorded: point.at, recomputed: 'an ISO time (YYYY-MM-DDTHH:MM:SS.mmmZ)' });
        return;
      }
      const at = point.at;
      if (previous !== undefined && Date.parse(at) < Date.parse(previous.at)) {
        differences.push({ field: point.field, recorded: at, recomputed: `at or after ${previous.field} ${previous.at}` });
      }
      previous = { field: point.field, at };
    }
  });
  return differences;
}

/** A retried attempt's bytes: present, hashed as recorded, its status the one its bytes came with. */
function retryBytesDifferences(retry: RetriedCall, path: string): ReceiptDifference[] {
  const raw: unknown = retry.raw;
  if (!isPlainObject(raw) || typeof raw.request !== 'string' || typeof raw.response !== 'string' || typeof raw.status !== 'number') {
    return [{ field: `${path}.raw`, recorded: raw, recomputed: 'the attempt\'s bytes: { url, request, response, status }' }];
  }
  const differences: ReceiptDifference[] = [];
  const compare = (field: string, recorded: unknown, recomputed: unknown): void => {
    if (recorded !== recomputed) differences.push({ field: `${path}.${field}`, recorded, recomputed });
  };
  compare('rawRequestSha256', retry.rawRequestSha256, sha256Hex(raw.request));
  compare('rawResponseSha256', retry.rawResponseSha256, sha256Hex(raw.response));
  compare('status', retry.status, raw.status);
  return differences;
}
