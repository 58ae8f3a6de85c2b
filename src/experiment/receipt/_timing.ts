/**
 * A question's wall-clock times for the report, derived from the timings its record holds (so
 * verify rebuilds them with the report), and their markdown section. Times are stated, never
 * compared as a verdict: they move with the machine's load and the API's, not with the answer.
 */
import type { ExchangeTiming } from '../../providers/index.js';
import type { ConditionTime } from '../_timing-types.js';
import type { ExperimentReport, QuestionRecord } from '../_types.js';

/**
 * Elapsed: the question's own start to end. Model: each model call (the failed one included) from
 * its first attempt's start to its last attempt's end, so retries and their waits count. Tools:
 * each tool call's elapsed. A figure is null when a time it needs is not recorded.
 */
export function conditionTime(question: QuestionRecord): ConditionTime {
  const elapsedMs = question.timing?.elapsedMs ?? null;
  let modelMs: number | null = 0;
  let toolMs: number | null = 0;
  for (const turn of question.turns) {
    modelMs = plus(modelMs, callSpan(turn.retries?.[0]?.timing, turn.timing));
    for (const call of turn.tools) toolMs = plus(toolMs, call.timing?.elapsedMs ?? null);
  }
  const failed = question.failedCall;
  if (failed !== undefined) modelMs = plus(modelMs, callSpan(failed.retries?.[0]?.timing, failed.timing ?? undefined));
  return { elapsedMs, modelMs, toolMs };
}

/** From the first attempt's start (the last's when none was retried) to the last attempt's end. */
function callSpan(first: ExchangeTiming | undefined, last: ExchangeTiming | undefined): number | null {
  const startedAt = (first ?? last)?.startedAt;
  const endedAt = last?.endedAt;
  if (startedAt === undefined || endedAt === undefined || endedAt === null) return null;
  return Date.parse(endedAt) - Date.parse(startedAt);
}

function plus(sum: number | null, term: number | null): number | null {
  return sum === null || term === null ? null : sum + term;
}

/** The wall-clock table: one row per task and condition that recorded a time; nothing when none did. */
export function timingSection(report: ExperimentReport): string[] {
  const rows = report.rows.flatMap((row) =>
    (['baseline', 'optimized'] as const).flatMap((condition) => {
      const time = row[condition].time;
      // With repetitions, a row is a task's repetition.
      const label = (report.statistics?.repeat ?? 1) === 1 ? row.taskId : `${row.taskId} #${row.repetition}`;
      return time === undefined ? [] : [`| ${label.replaceAll('|', '\\|')} | ${condition} | ${seconds(time.elapsedMs)} | ${seconds(time.modelMs)} | ${seconds(time.toolMs)} |`];
    }),
  );
  if (rows.length === 0) return [];
  return [
    '## Wall-clock time',
    '',
    'Seconds on the machine that ran, as its clock saw them: elapsed from the server\'s start to its close, model time over every model call (retries and their waits included), tool time over every tool call. Stated, not compared: a loaded machine or a busy API moves them, so they are no verdict on either condition.',
    '',
    '| task | condition | elapsed s | model s | tools s |',
    '|---|---|---:|---:|---:|',
    ...rows,
  ];
}

function seconds(ms: number | null): string {
  return ms === null ? 'unknown' : (ms / 1000).toFixed(2);
}
