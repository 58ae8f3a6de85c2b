/** The runner's clock for step timings: ISO times at ms precision, and the elapsed ms between two of them. */
import type { StepTiming } from './_timing-types.js';

export function now(): string {
  return new Date().toISOString();
}

/** A step that started at `startedAt` ends now; elapsed is the difference of the recorded times, so it recomputes. */
export function stepSince(startedAt: string): StepTiming {
  const endedAt = now();
  return { startedAt, endedAt, elapsedMs: Date.parse(endedAt) - Date.parse(startedAt) };
}
