/**
 * `runExperiment`: the stages of an answer-checked comparison, in order, each recorded in the
 * receipt before the next begins: start (the receipt exists), inputs (config, snapshot, allowlist,
 * tasks read and hashed), validate (every task checked against the snapshot; one bad task refuses
 * the run before any model call), questions (per task and repetition: baseline, then optimized,
 * each on a fresh server), probe (the warm-cache probe), report (tables derived from the recorded rows).
 */
import { resolve } from 'node:path';
import { sha256Hex } from '../tokens/index.js';
import { McpctxError, isMcpctxError } from '../errors/index.js';
import { chooseProvider, type Provider } from '../providers/index.js';
import { InputGuard, MAX_REPEAT, applyModelOverrides, loadExperimentConfig, readInputs, resolveProbe, validateTasks, type ModelOverrides } from './config/index.js';
import { PROBE_NOTE, runProbe } from './_probe.js';
import { newQuestionRecord, runQuestion } from './_question.js';
import { REPORT_FILE, ReceiptWriter } from './_receipt.js';
import { buildReport, experimentCsvFiles, renderReportMarkdown } from './receipt/index.js';
import { runtimeRecord } from './_runtime.js';
import { CONDITIONS, type Condition, type ExperimentConfig, type ExperimentReceipt, type QuestionStatus, type StageName, type StopCause } from './_types.js';
import { findPrice, type PriceRecord } from '../pricing/index.js';
import { Budget } from './_budget.js';
import { buildRunCost } from './receipt/_cost.js';
import { assertResumable, readStoppedRun, resumePlan, stoppedReceiptFile } from './_resume.js';

export type ExperimentProgress =
  | { type: 'stage'; stage: StageName }
  /** repetition of repeat (1 of 1 without --repeat). */
  | { type: 'question'; taskId: string; repetition: number; repeat: number; condition: Condition; index: number; total: number }
  /** contextTokens is null when the provider reported no usage for one of the question's turns. */
  | { type: 'answered'; taskId: string; condition: Condition; status: QuestionStatus; failure?: string; contextTokens: number | null; turns: number }
  | { type: 'probe'; status: string };

export interface RunExperimentOptions {
  configFile: string;
  /** `--provider`, `--model` and the like, applied over the config's `model`. */
  overrides?: ModelOverrides;
  outDir: string;
  /** `--repeat`: times each question is asked per condition, over the config's `repeat`. */
  repeat?: number;
  /** Replace a receipt already in outDir. */
  overwrite?: boolean;
  /** Use this provider instead of the one the config names (tests, recording a script). */
  provider?: Provider;
  /** Where API keys are read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  onProgress?: (event: ExperimentProgress) => void;
  /** `--max-usd`: stop before any model call whose worst case would pass this many USD (needs a known price). */
  maxUsd?: number;
  /** `--resume`: the folder (or receipt.json) of the stopped run to carry on; outDir must be another folder. */
  resume?: string;
}

export interface ExperimentRun {
  receipt: ExperimentReceipt;
  receiptFile: string;
  /** The markdown report beside the receipt, once the report stage ran. */
  reportFile?: string;
  /** report.md's tables as CSV beside it (tasks.csv, and totals.csv when a task was compared). */
  csvFiles?: string[];
}

/**
 * Runs the experiment. Throws only when the receipt itself cannot be created or written (IO,
 * OUTPUT_CONFLICT); every other failure is recorded in the receipt with its stage and the run's
 * status is `failed`.
 */
export async function runExperiment(options: RunExperimentOptions): Promise<ExperimentRun> {
  // Read before anything is written: the stopped run's receipt stays as it is, whatever happens.
  const stoppedFile = options.resume === undefined ? undefined : stoppedReceiptFile(options.resume);
  if (stoppedFile !== undefined && resolve(stoppedFile, '..') === resolve(options.outDir)) {
    throw new McpctxError('USAGE', `--resume ${options.resume}: --out must be another folder; the stopped run's receipt is kept as it is`);
  }
  const stopped = stoppedFile === undefined ? undefined : readStoppedRun(stoppedFile);
  const writer = ReceiptWriter.create(options.outDir, { overwrite: options.overwrite ?? false });
  const receipt = writer.receipt;
  const progress = options.onProgress ?? (() => {});
  writer.stageDone('start');

  // ---- inputs
  progress({ type: 'stage', stage: 'inputs' });
  let config: ExperimentConfig;
  let provider: Provider;
  let guard: InputGuard;
  let probe: ReturnType<typeof resolveProbe>;
  let price: PriceRecord | null;
  let budget: Budget | undefined;
  try {
    config = applyModelOverrides(await loadExperimentConfig(options.configFile), options.overrides ?? {});
    if (options.repeat !== undefined) {
      if (!Number.isInteger(options.repeat) || options.repeat < 1 || options.repeat > MAX_REPEAT) throw new McpctxError('USAGE', `repeat must be an integer from 1 to ${MAX_REPEAT}, got ${options.repeat}`);
      config = { ...config, repeat: options.repeat };
    }
    const inputs = await readInputs(config);
    inputs.config = { file: config.file, ...config.source };
    guard = new InputGuard(inputs);
    probe = resolveProbe(config.probe, inputs);
    provider = options.provider ?? chooseProvider(config.model, options.env ?? process.env);
    receipt.config = {
      path: config.file,
      ...config.source,
      pageSize: config.pageSize,
      maxTurns: config.maxTurns,
      repeat: config.repeat,
      conditions: {
        baseline: { tools: config.conditions.baseline.tools ?? null, dropResultKeys: config.conditions.baseline.dropResultKeys },
        optimized: { tools: config.conditions.optimized.tools ?? null, dropResultKeys: config.conditions.optimized.dropResultKeys },
      },
      paths: config.paths,
    };
    receipt.inputs = {
      snapshot: { path: inputs.snapshot.file, sha256: inputs.snapshot.sha256, bytes: inputs.snapshot.bytes, records: inputs.snapshot.records.length },
      fields: { path: inputs.fields.file, sha256: inputs.fields.sha256, bytes: inputs.fields.bytes, allowed: inputs.fields.allowed },
      tasks: { path: inputs.tasks.file, sha256: inputs.tasks.sha256, bytes: inputs.tasks.bytes, count: inputs.tasks.tasks.length, text: inputs.tasks.text },
      ...(inputs.script === undefined ? {} : { script: { path: inputs.script.file, sha256: inputs.script.sha256, bytes: inputs.script.bytes } }),
    };
    receipt.runtime = runtimeRecord();
    receipt.model = {
      provider: provider.name,
      model: config.model.model,
      baseUrl: provider.baseUrl,
      maxTokens: config.model.maxTokens,
      temperature: config.model.temperature ?? null,
      system: config.system,
      systemSha256: sha256Hex(config.system),
    };
    receipt.tasks = inputs.tasks.tasks;
    price = findPrice(provider.name, config.model.model, config.prices);
    if (options.maxUsd !== undefined) {
      if (price === null) {
        throw new McpctxError('USAGE', `--max-usd needs the price of ${provider.name} ${JSON.stringify(config.model.model)}, and none is known: the bundled price table does not list it; give it in the config's prices: (provider, model, inputPerMTok, outputPerMTok, cacheReadPerMTok, cacheWritePerMTok, readOn, source)`);
      }
      budget = new Budget(options.maxUsd, price, provider.name, config.model.maxTokens);
    }
    if (stopped !== undefined) {
      assertResumable(stopped, receipt);
      receipt.resume = { from: stopped.file, receiptSha256: stopped.sha256, kept: 0, replaced: [] };
    }
    receipt.cost = buildRunCost(receipt, price, options.maxUsd ?? null);
    receipt.status = 'running';
    writer.stageDone('inputs');

    // ---- validate
    progress({ type: 'stage', stage: 'validate' });
    receipt.validation = validateTasks(inputs, config);
    const refused = receipt.validation.filter((task) => !task.ok);
    if (refused.length > 0) {
      for (const task of inputs.tasks.tasks) {
        for (const repetition of repetitionsOf(config)) {
          for (const condition of CONDITIONS) {
            const record = newQuestionRecord(task, condition);
            record.repetition = repetition;
            record.status = 'skipped';
            record.outcome = 'not-run';
            record.failure = { code: 'TASKS_REFUSED', message: 'no question was asked: the answer key did not pass validation' };
            receipt.questions.push(record);
          }
        }
      }
      const reasons = refused.map((task) => `${task.taskId}: ${task.problems.join('; ')}`).join(' | ');
      writer.stageFailed('validate', { code: 'TASKS_REFUSED', message: `${refused.length} of ${refused.length + receipt.validation.filter((task) => task.ok).length} tasks refused before any model call: ${reasons}` });
      return { receipt, receiptFile: writer.file };
    }
    writer.stageDone('validate');
  } catch (error) {
    const stage: StageName = receipt.stages.some((entry) => entry.stage === 'inputs') ? 'validate' : 'inputs';
    writer.stageFailed(stage, errorRecord(error));
    return { receipt, receiptFile: writer.file };
  }

  // ---- questions
  progress({ type: 'stage', stage: 'questions' });
  const assertInputsUnchanged = (): void => guard.assertUnchanged();
  const tasks = receipt.tasks;
  const plan = resumePlan(stopped, receipt, budget);
  let stop: McpctxError | undefined;
  // The question whose failure set `stop`: every question and probe skipped after it names it.
  let cause: StopCause | undefined;
  let index = 0;
  // Task, then repetition, then condition: the two questions of a pair are asked one after the other.
  for (const task of tasks) {
    for (const repetition of repetitionsOf(config)) {
      for (const condition of CONDITIONS) {
        index += 1;
        const before = plan.earlier(task.id, repetition, condition);
        if (before?.keep === true) {
          receipt.questions.push(before.record);
          continue;
        }
        const record = newQuestionRecord(task, condition);
        record.repetition = repetition;
        receipt.questions.push(record);
        if (stop !== undefined) {
          record.status = 'skipped';
          record.outcome = 'not-run';
          record.failure = skipFailure(stop, cause);
          if (cause !== undefined) record.skippedAfter = cause;
          continue;
        }
        progress({ type: 'question', taskId: task.id, repetition, repeat: config.repeat, condition, index, total: tasks.length * config.repeat * CONDITIONS.length });
        writer.persist();
        const replay = before === undefined ? undefined : { turns: before.record.turns, replayed: 0 };
        stop = await runQuestion(record, task, {
          config,
          provider,
          assertInputsUnchanged,
          persist: () => writer.persist(),
          ...(budget === undefined ? {} : { budget }),
          ...(replay === undefined ? {} : { replay }),
        });
        if (stop !== undefined) cause = { taskId: task.id, repetition, condition, code: stop.code, message: stop.message };
        budget?.settle(record, replay?.replayed ?? 0);
        receipt.cost = buildRunCost(receipt, price, options.maxUsd ?? null);
        progress({
          type: 'answered',
          taskId: task.id,
          condition,
          status: record.status,
          ...(record.failure === undefined ? {} : { failure: `${record.failure.code}: ${record.failure.message}` }),
          contextTokens: record.totals.contextTokens,
          turns: record.totals.turns,
        });
      }
    }
  }
  if (stop !== undefined) writer.stageFailed('questions', errorRecord(stop));
  else writer.stageDone('questions');

  // ---- probe
  if (probe !== null) {
    progress({ type: 'stage', stage: 'probe' });
    const spec = probe;
    receipt.probe = { status: 'skipped', condition: spec.condition, tool: spec.tool, arguments: spec.arguments, note: PROBE_NOTE };
    if (stop !== undefined) {
      receipt.probe.failure = { code: 'PRIOR_FAILURE', message: `not run: the run stopped ${stoppedWhere(stop, cause)}` };
      if (cause !== undefined) receipt.probe.skippedAfter = cause;
    } else {
      stop = await runProbe(receipt.probe, spec, config, assertInputsUnchanged);
      progress({ type: 'probe', status: receipt.probe.status });
      if (stop !== undefined) writer.stageFailed('probe', errorRecord(stop));
      else writer.stageDone('probe');
    }
  }

  // ---- report: written whatever happened, so a stopped run still shows what it has
  progress({ type: 'stage', stage: 'report' });
  receipt.report = buildReport(tasks, receipt.questions, { repeat: config.repeat });
  receipt.cost = buildRunCost(receipt, price, options.maxUsd ?? null);
  if (stop === undefined) receipt.status = 'completed';
  writer.stageDone('report');
  const reportFile = writer.writeBeside(REPORT_FILE, renderReportMarkdown(receipt));
  // Every table of report.md also as CSV beside it (verify re-derives them).
  const csvFiles: string[] = [];
  for (const [name, text] of experimentCsvFiles(receipt)) {
    if (text === null) writer.removeBeside(name);
    else csvFiles.push(writer.writeBeside(name, text));
  }
  return { receipt, receiptFile: writer.file, reportFile, csvFiles };
}

/** The failure a question skipped after a stop records: which question stopped the run, with what. */
function skipFailure(stop: McpctxError, cause: StopCause | undefined): { code: string; message: string } {
  if (stop.code === 'BUDGET_STOP') return { code: 'BUDGET_STOP', message: `not asked: the budget (--max-usd) stopped the run ${cause === undefined ? 'before it' : `at ${causeLabel(cause)}`}` };
  return { code: 'PRIOR_FAILURE', message: `not asked: the run stopped ${stoppedWhere(stop, cause)}` };
}

function stoppedWhere(stop: McpctxError, cause: StopCause | undefined): string {
  return cause === undefined ? `earlier (${stop.code})` : `after ${causeLabel(cause)} failed with ${cause.code}: ${cause.message}`;
}

/** "lookup-1 #2 (optimized)"; the repetition only when there are several. */
function causeLabel(cause: StopCause): string {
  return `${cause.taskId}${cause.repetition === 1 ? '' : ` #${cause.repetition}`} (${cause.condition})`;
}

/** 1..repeat. */
function repetitionsOf(config: ExperimentConfig): number[] {
  return Array.from({ length: config.repeat }, (_, index) => index + 1);
}

function errorRecord(error: unknown): { code: string; message: string } {
  if (isMcpctxError(error)) return { code: error.code, message: error.message };
  return { code: 'INTERNAL', message: (error as Error).message ?? String(error) };
}
