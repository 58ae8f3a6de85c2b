/**
 * `--resume DIR`: carries a stopped run on into a new receipt. It refuses unless every input
 * (config, snapshot, fields, tasks, script) hashes as the stopped run's did and the model and its
 * settings are the same; then each finished question (right, wrong, no answer within limits) is
 * kept as it was recorded, and the rest (a provider or harness failure, not run) are asked again:
 * their earlier records stay in the receipt (`resume.replaced`, paid calls and failed call
 * included), and the turns they recorded are used again while the requests match, so no paid call
 * is repeated. The records a resumed run had replaced stay too. The stopped receipt must verify
 * (a killed run's `running` status aside) before anything of it is used.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { McpctxError } from '../errors/index.js';
import { isPlainObject } from '../json/index.js';
import { sha256Hex } from '../tokens/index.js';
import { VERDICT_OUTCOMES, outcomeOf, verifyReceipt } from './receipt/index.js';
import { carriedTurns } from './receipt/_cost.js';
import { RECEIPT_FILE } from './_receipt.js';
import { RECEIPT_FORMAT, type Condition, type ExperimentReceipt, type QuestionRecord } from './_types.js';
import type { Budget } from './_budget.js';

/** A stopped run's receipt as read: where, the sha256 of its text, and the receipt. */
export interface StoppedRun {
  file: string;
  sha256: string;
  receipt: ExperimentReceipt;
}

/** The stopped run's receipt file: DIR/receipt.json, or the receipt file itself. */
export function stoppedReceiptFile(dirOrFile: string): string {
  const given = resolve(dirOrFile);
  return given.endsWith('.json') ? given : join(given, RECEIPT_FILE);
}

/** Reads the stopped run's receipt. Not readable, not JSON or not an experiment receipt: USAGE; one that does not verify: RESUME_MISMATCH. */
export function readStoppedRun(file: string): StoppedRun {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new McpctxError('USAGE', `--resume: cannot read the stopped run's receipt ${file}: ${(error as Error).message}`, {}, { cause: error });
  }
  let receipt: unknown;
  try {
    receipt = JSON.parse(text);
  } catch (error) {
    throw new McpctxError('USAGE', `--resume: ${file} is not JSON: ${(error as Error).message}`, {}, { cause: error });
  }
  if (!isPlainObject(receipt) || receipt.format !== RECEIPT_FORMAT || !Array.isArray(receipt.questions)) {
    throw new McpctxError('USAGE', `--resume: ${file} is not an experiment receipt (${RECEIPT_FORMAT})`);
  }
  // Its records are used again only when every figure recomputes: a hand-edited record would
  // otherwise enter the new run. A killed run (still marked running) is what resume is for.
  const problems = verifyReceipt(receipt).problems.filter((problem) => !problem.startsWith('status: '));
  if (problems.length > 0) {
    throw new McpctxError('RESUME_MISMATCH', `--resume: ${file} does not verify (${problems.length} problem(s), the first: ${problems[0]}): nothing of it is used again`, { file, differences: problems.slice(0, 20) });
  }
  return { file, sha256: sha256Hex(text), receipt: receipt as unknown as ExperimentReceipt };
}

/** Throws RESUME_MISMATCH naming every input hash, model or setting of `now` that is not the stopped run's. */
export function assertResumable(stopped: StoppedRun, now: ExperimentReceipt): void {
  const before = stopped.receipt;
  const differences: string[] = [];
  const same = (what: string, earlier: unknown, current: unknown): void => {
    if (JSON.stringify(earlier ?? null) !== JSON.stringify(current ?? null)) differences.push(`${what}: stopped run ${JSON.stringify(earlier ?? null)}, this run ${JSON.stringify(current ?? null)}`);
  };
  same('config (sha256)', before.config?.sha256, now.config?.sha256);
  same('snapshot (sha256)', before.inputs?.snapshot.sha256, now.inputs?.snapshot.sha256);
  same('fields (sha256)', before.inputs?.fields.sha256, now.inputs?.fields.sha256);
  same('tasks (sha256)', before.inputs?.tasks.sha256, now.inputs?.tasks.sha256);
  same('script (sha256)', before.inputs?.script?.sha256, now.inputs?.script?.sha256);
  for (const key of ['provider', 'model', 'baseUrl', 'maxTokens', 'temperature', 'systemSha256'] as const) same(`model.${key}`, before.model?.[key], now.model?.[key]);
  if (differences.length > 0) {
    throw new McpctxError('RESUME_MISMATCH', `--resume: this run is not the stopped run (${stopped.file}): ${differences.join('; ')}`, { differences, file: stopped.file });
  }
}

/** What the stopped run recorded for one question, and whether it is kept as it is. */
export interface EarlierQuestion {
  record: QuestionRecord;
  /** A finished question (a verdict): kept. Otherwise asked again, replaying its turns. */
  keep: boolean;
}

export interface ResumePlan {
  earlier(taskId: string, repetition: number, condition: Condition): EarlierQuestion | undefined;
}

/**
 * Sorts the stopped run's questions into kept and asked again, records the counts and the
 * replaced records in `receipt.resume`, and settles what they all spent with the budget.
 */
export function resumePlan(stopped: StoppedRun | undefined, receipt: ExperimentReceipt, budget: Budget | undefined): ResumePlan {
  const byQuestion = new Map<string, EarlierQuestion>();
  const resume = receipt.resume;
  if (stopped !== undefined && resume !== undefined) {
    // A run resumed before: the records it replaced stay, and their calls not carried over stay paid.
    for (const record of stopped.receipt.resume?.replaced ?? []) {
      resume.replaced.push(record);
      budget?.settle(record, carriedTurns(record, stopped.receipt.questions));
    }
    for (const record of stopped.receipt.questions) {
      const keep = VERDICT_OUTCOMES.has(outcomeOf(record));
      byQuestion.set(key(record.taskId, record.repetition ?? 1, record.condition), { record, keep });
      if (keep) resume.kept += 1;
      else if (record.turns.length > 0 || record.failedCall !== undefined) resume.replaced.push(record);
      if (keep || record.turns.length > 0 || record.failedCall !== undefined) budget?.settle(record);
    }
  }
  return { earlier: (taskId, repetition, condition) => byQuestion.get(key(taskId, repetition, condition)) };
}

function key(taskId: string, repetition: number, condition: Condition): string {
  return JSON.stringify([taskId, repetition, condition]);
}
