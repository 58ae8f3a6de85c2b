/**
 * When the steps of a question ran, as the runner's clock saw them (ISO times, ms precision).
 * Wall-clock on the machine that ran: a published figure, never a verdict (a loaded machine or a
 * busy API moves it). `elapsedMs` is always the difference of the two recorded times, so verify
 * recomputes it.
 */
export interface StepTiming {
  startedAt: string;
  endedAt: string;
  elapsedMs: number;
}

/** A question's timing: set at its start, ended with it (a killed run's running question has no end). */
export interface QuestionTiming {
  startedAt: string;
  endedAt?: string;
  elapsedMs?: number;
}

/**
 * A question's wall-clock time in the report: elapsed (server start to close), model (every model
 * call from its first attempt's start to its last attempt's end, retries and their waits
 * included) and tools (every tool call). null when the receipt lacks a time it needs.
 */
export interface ConditionTime {
  elapsedMs: number | null;
  modelMs: number | null;
  toolMs: number | null;
}
