// The benchmark's scenario files (bench/optimizer/scenarios/*.json): their shape and loading.
// Records are validated by the optimizer itself (parseOptimizerInput) in the tests; here only the
// fields the benchmark reads are checked, so a broken file fails with its name.
import { readdirSync, readFileSync } from 'node:fs';
import type { SessionRecords } from '../../src/optimizer/_types.js';
import { PROJECT_ROOT } from '../_harness.js';

export const SCENARIO_DIR = `${PROJECT_ROOT}bench/optimizer/scenarios/`;
/** Scenarios written blind after the optimizer was tuned on SCENARIO_DIR: how it does on data it was not fitted to. */
export const HELDOUT_DIR = `${PROJECT_ROOT}bench/optimizer/heldout/`;
/** The second tuning set (Rust, Java, .NET, pandas, React, Terraform; then Elixir, C++, Helm): written blind, then tuned on. */
export const TUNING_DIR = `${PROJECT_ROOT}bench/optimizer/tuning/`;
/** The second blind set (C++, Rails, Laravel, Swift, Elixir, Helm), frozen before the first run: never tuned on. */
export const BLIND_DIR = `${PROJECT_ROOT}bench/optimizer/blind/`;

export interface BenchScenario {
  name: string;
  description: string;
  /** `written`, or `real: <fixture path>` for scenarios converted from real session data. */
  source: string;
  task: string;
  tokenBudget: number;
  records: SessionRecords;
  /** Exact strings a person fixing the task needs; each must appear in the raw input. */
  requiredFacts: string[];
  /** Ids of the records that carry what the task needs. */
  relevantRecords: string[];
  /** Present when the mandatory records alone exceed the budget. */
  expect?: { budgetConflict?: boolean };
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Checks the benchmark's own fields; throws naming the file and the field. */
export function asScenario(value: unknown, file: string): BenchScenario {
  const fail = (field: string, wanted: string): never => {
    throw new Error(`${file}: ${field} must be ${wanted}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('the file', 'a JSON object');
  const scenario = value as Record<string, unknown>;
  for (const field of ['name', 'description', 'source', 'task'] as const) {
    if (typeof scenario[field] !== 'string' || scenario[field] === '') fail(field, 'a non-empty string');
  }
  if (scenario.source !== 'written' && !String(scenario.source).startsWith('real: ')) fail('source', '"written" or "real: <fixture path>"');
  if (!Number.isInteger(scenario.tokenBudget) || (scenario.tokenBudget as number) <= 0) fail('tokenBudget', 'a positive integer');
  if (typeof scenario.records !== 'object' || scenario.records === null || Array.isArray(scenario.records)) fail('records', 'an object of record arrays');
  if (!isStringArray(scenario.requiredFacts) || scenario.requiredFacts.length === 0) fail('requiredFacts', 'a non-empty array of strings');
  if (!isStringArray(scenario.relevantRecords) || scenario.relevantRecords.length === 0) fail('relevantRecords', 'a non-empty array of record ids');
  if (scenario.expect !== undefined) {
    const expectation = scenario.expect as Record<string, unknown> | null;
    if (typeof expectation !== 'object' || expectation === null || (expectation.budgetConflict !== undefined && typeof expectation.budgetConflict !== 'boolean')) {
      fail('expect', 'an object like { "budgetConflict": true }');
    }
  }
  return value as BenchScenario;
}

/** Every scenario file, in file name order (the order of the benchmark table). */
export function loadScenarios(directory: string = SCENARIO_DIR): BenchScenario[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => asScenario(JSON.parse(readFileSync(`${directory}${file}`, 'utf8')) as unknown, file));
}

/** The text a scenario file holds: two-space JSON and a final newline (the converter writes the same). */
export function scenarioFileText(scenario: BenchScenario): string {
  return `${JSON.stringify(scenario, null, 2)}\n`;
}
