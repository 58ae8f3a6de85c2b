/**
 * `verifyReceipt`'s checks of the timings a receipt records: each retried attempt's hashes and
 * announced usage from its own bytes, the attempts count as the retries plus the one that
 * answered, each step's elapsed ms as the difference of its recorded times, and the order of
 * every recorded time: within a question, each attempt's start, first byte and end, then its tool
 * calls, then the next turn, all inside the question's start and end; and the questions one after
 * another in run order. A question that ran must have its timing and every turn's, retry list's
 * and tool call's.
 */
import { announcedUsage, type ExchangeTiming, type ProviderName, type RetriedAttempt } from '../../providers/index.js';
import { sha256Hex } from '../../tokens/index.js';
import { shown, type Problems } from './_verify-compare.js';
import type { StepTiming } from '../_timing-types.js';
import type { QuestionRecord } from '../_types.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A recorded time and the path it is at, in the order the run must have passed them. */
interface Point {
  path: string;
  at: string;
}

export function verifyTimings(questions: readonly QuestionRecord[], provider: ProviderName | undefined, problems: Problems): void {
  let previous: Point | undefined;
  questions.forEach((question, index) => {
    const path = `questions[${index}]`;
    problems.guard(`${path}.timing`, () => {
      const points = questionPoints(question, path, provider, problems);
      if (points.length === 0) return;
      // Questions run one after another: this one starts after the last timed one ended.
      inOrder(previous === undefined ? points : [previous, ...points], problems);
      const last = points.at(-1);
      if (last !== undefined && question.timing?.endedAt !== undefined) previous = last;
    });
  });
}

/** The question's recorded times in the order they happened; each malformed or missing one is a problem. */
function questionPoints(question: QuestionRecord, path: string, provider: ProviderName | undefined, problems: Problems): Point[] {
  // Every question that ran (a server started, a model call went out) records its times: a receipt cannot drop them to hide an order.
  const ran = question.server !== undefined || question.turns.length > 0 || question.failedCall !== undefined;
  if (ran && question.timing === undefined) problems.add(`${path}.timing: absent, but the question ran`);
  const timed = ran || question.timing !== undefined;
  const points: Point[] = [];
  const time = (where: string, at: unknown): void => {
    if (typeof at !== 'string' || !ISO_TIME.test(at) || Number.isNaN(Date.parse(at))) problems.add(`${where}: recorded ${shown(at)}, expected an ISO time (YYYY-MM-DDTHH:MM:SS.mmmZ)`);
    else points.push({ path: where, at });
  };
  if (question.timing !== undefined) {
    time(`${path}.timing.startedAt`, question.timing.startedAt);
    if (question.timing.endedAt === undefined && question.status !== 'running') problems.add(`${path}.timing.endedAt: absent, but the question ended (${question.status})`);
  }
  question.turns.forEach((turn, turnIndex) => {
    const turnPath = `${path}.turns[${turnIndex}]`;
    // A turn a resume used again was timed in the stopped run, before this question began (_verify-cost checks it is that run's).
    const exchangeTime = turn.replayed === true ? (): void => {} : time;
    if (turn.retries !== undefined) {
      problems.compare(`${turnPath}.attempts`, turn.attempts, turn.retries.length + 1);
      turn.retries.forEach((retry, retryIndex) => verifyRetry(retry, `${turnPath}.retries[${retryIndex}]`, provider, problems, exchangeTime));
    } else if (timed) problems.add(`${turnPath}.retries: absent, but the question recorded its timing`);
    if (turn.timing !== undefined) exchangeTimes(turn.timing, `${turnPath}.timing`, exchangeTime);
    else if (timed) problems.add(`${turnPath}.timing: absent, but the question recorded its timing`);
    turn.tools.forEach((call, callIndex) => {
      const callPath = `${turnPath}.tools[${callIndex}]`;
      if (call.timing !== undefined) stepTimes(call.timing, `${callPath}.timing`, problems, time);
      else if (timed) problems.add(`${callPath}.timing: absent, but the question recorded its timing`);
    });
  });
  const failed = question.failedCall;
  if (failed !== undefined) {
    if (failed.retries !== undefined) {
      problems.compare(`${path}.failedCall.attempts`, failed.attempts, failed.retries.length + 1);
      failed.retries.forEach((retry, retryIndex) => verifyRetry(retry, `${path}.failedCall.retries[${retryIndex}]`, provider, problems, time));
    } else if (timed) problems.add(`${path}.failedCall.retries: absent, but the question recorded its timing`);
    if (failed.timing !== null) exchangeTimes(failed.timing, `${path}.failedCall.timing`, time);
  }
  if (question.timing?.endedAt !== undefined) {
    const { startedAt, endedAt, elapsedMs } = question.timing;
    time(`${path}.timing.endedAt`, endedAt);
    problems.compare(`${path}.timing.elapsedMs`, elapsedMs, Date.parse(endedAt) - Date.parse(startedAt));
  }
  return points;
}

/** A retried attempt: its hashes and announced usage from its bytes, its times in order. */
function verifyRetry(retry: RetriedAttempt, path: string, provider: ProviderName | undefined, problems: Problems, time: (where: string, at: unknown) => void): void {
  problems.compare(`${path}.rawRequestSha256`, retry.rawRequestSha256, sha256Hex(retry.raw.request));
  problems.compare(`${path}.rawResponseSha256`, retry.rawResponseSha256, sha256Hex(retry.raw.response));
  if (provider !== undefined) {
    const answered = retry.raw.status >= 200 && retry.raw.status <= 299;
    problems.compare(`${path}.announcedUsage`, retry.announcedUsage, answered ? announcedUsage(provider, retry.raw.response) : null);
  }
  exchangeTimes(retry.timing, `${path}.timing`, time);
}

/** An attempt's start, first byte (when one came) and end (when recorded), in that order. */
function exchangeTimes(timing: ExchangeTiming, path: string, time: (where: string, at: unknown) => void): void {
  time(`${path}.startedAt`, timing.startedAt);
  if (timing.firstByteAt !== null) time(`${path}.firstByteAt`, timing.firstByteAt);
  if (timing.endedAt !== null) time(`${path}.endedAt`, timing.endedAt);
}

function stepTimes(timing: StepTiming, path: string, problems: Problems, time: (where: string, at: unknown) => void): void {
  time(`${path}.startedAt`, timing.startedAt);
  time(`${path}.endedAt`, timing.endedAt);
  problems.compare(`${path}.elapsedMs`, timing.elapsedMs, Date.parse(timing.endedAt) - Date.parse(timing.startedAt));
}

/** Each time at or after the one before it; a time before its predecessor names both. */
function inOrder(points: readonly Point[], problems: Problems): void {
  for (let index = 1; index < points.length; index += 1) {
    const before = points[index - 1] as Point;
    const after = points[index] as Point;
    if (Date.parse(after.at) < Date.parse(before.at)) {
      problems.add(`${after.path}: recorded ${shown(after.at)}, before ${before.path} ${shown(before.at)}, which it must follow`);
    }
  }
}
