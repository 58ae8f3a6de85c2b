// The benchmark's scenario files (bench/optimizer/scenarios/*.json): their shape and loading.
// Records are validated by the optimizer itself (parseOptimizerInput) in the tests; here only the
// fields the benchmark reads are checked, so a broken file fails with its name.
import { readdirSync, readFileSync } from 'node:fs';
import { DEFAULT_TOKEN_BUDGET } from '../../src/optimizer/index.js';
import type { SessionRecords } from '../../src/optimizer/_types.js';
import { importTranscript, type TranscriptFormat } from '../../src/optimizer/transcripts/index.js';
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

/** The third blind set: agents' transcripts in the importer's three formats, facts in `<name>.facts.json`, frozen before the first run. */
export const BLIND_TRANSCRIPTS_DIR = `${PROJECT_ROOT}bench/optimizer/blind-transcripts/`;

/** Transcripts in the same formats, written after the blind set's first run, for tuning on. */
export const TUNING_TRANSCRIPTS_DIR = `${PROJECT_ROOT}bench/optimizer/tuning-transcripts/`;

/** A transcript of BLIND_TRANSCRIPTS_DIR as the compaction hook reads it: its records and its last user request as the task. */
export interface TranscriptScenario extends BenchScenario {
  format: TranscriptFormat;
  transcript: string;
}

/** Every transcript with a facts file, in file name order, imported with `importTranscript`; throws naming the file when one has no task or no facts. */
export function loadTranscriptScenarios(directory: string = BLIND_TRANSCRIPTS_DIR): TranscriptScenario[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith('.facts.json'))
    .sort()
    .map((file) => {
      const facts = JSON.parse(readFileSync(`${directory}${file}`, 'utf8')) as { transcript?: unknown; format?: unknown; description?: unknown; requiredFacts?: unknown };
      if (typeof facts.transcript !== 'string' || !isStringArray(facts.requiredFacts) || facts.requiredFacts.length === 0) {
        throw new Error(`${file}: needs "transcript" (a file name) and "requiredFacts" (a non-empty array of strings)`);
      }
      // Detected, as `mcpctx optimize --transcript` does without --format; the author's word checks it.
      const imported = importTranscript(readFileSync(`${directory}${facts.transcript}`, 'utf8'));
      if (imported.format !== facts.format) throw new Error(`${facts.transcript}: detected as ${imported.format}, written as ${String(facts.format)}`);
      const format = imported.format;
      if (imported.lastUserRequest === undefined) throw new Error(`${facts.transcript}: the import found no user request to take as the task`);
      return {
        name: facts.transcript.replace(/\.(jsonl|traj)$/, ''),
        description: typeof facts.description === 'string' ? facts.description : '',
        source: 'written',
        task: imported.lastUserRequest,
        tokenBudget: DEFAULT_TOKEN_BUDGET,
        records: imported.records,
        requiredFacts: facts.requiredFacts,
        relevantRecords: [],
        format,
        transcript: facts.transcript,
      };
    });
}
