import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { McpctxError } from '../errors/index.js';
import { MAX_REPEAT, notCheckedOf, runExperiment, skippedGroups, verifyReceiptAndExports, type ExperimentProgress, type ExperimentRun, type ModelOverrides } from '../experiment/index.js';
import type { ProviderName } from '../providers/index.js';
import { printableText } from '../text/index.js';
import { exampleHelp } from './_help.js';
import { EXIT, invocationOf, type CliIo } from './_io.js';
import { parsePositiveInteger, parseUsd } from './_parse.js';
import { renderExperimentRun, renderVerification } from './_experiment-render.js';

/** The bundled demo: the records server in both modes, three tasks, scripted turns. */
export const BUNDLED_EXPERIMENT_CONFIG = fileURLToPath(new URL('../../examples/experiment/config.yaml', import.meta.url));

/** Failures of a run's start that the user fixes in a file or a flag: exit 2, not 3. */
const INPUT_FAILURES = new Set(['USAGE', 'INVALID_CONFIG', 'INVALID_RECORDS', 'MISSING_KEY', 'TASKS_REFUSED', 'NO_SCRIPTED_TURN', 'RESUME_MISMATCH']);

interface ExperimentFlags {
  config?: string;
  provider?: ProviderName;
  model?: string;
  script?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  /** The earlier name of --api-key-env. */
  keyEnv?: string;
  maxTokens?: number;
  repeat?: number;
  out?: string;
  force?: boolean;
  json?: boolean;
  progress?: boolean;
  maxUsd?: number;
  resume?: string;
}

function parseProvider(value: string): ProviderName {
  if (value === 'anthropic' || value === 'openai-compatible' || value === 'scripted') return value;
  throw new InvalidArgumentError('expected anthropic, openai-compatible or scripted');
}

export function setupExperiment(command: Command, io: CliIo, setExit: (code: number) => void): void {
  const experiment = command
    .description(
      [
        'Runs every task of a tasks file through two conditions of an MCP server (baseline and optimized: any two launch specs), each question on a fresh server with the same model, system prompt and max_tokens. Every task is checked against the snapshot before any model call (an aggregate count is recounted; a later_page task must need a continuation). Each tool_use gets exactly one tool_result; any stop reason but end_turn fails the question; the tool path and the answer (answer, evidence ids, caveats) are checked against the key. Tokens are compared only for questions both conditions answered correctly.',
        `Everything is recorded in OUT/receipt.json, written before the first input is read and after every stage: input hashes, package versions, the negotiated protocol, tool schemas, every raw MCP frame, the bytes the model saw, every model request and response (retried attempts included), usage and checks, and the timing of every attempt, tool call and question (report.md states them as wall-clock, never a verdict). ${invocationOf(io)} experiment verify OUT/receipt.json recomputes every hash and table from it. OUT/report.md has the tables, and OUT/tasks.csv, OUT/totals.csv, OUT/time.csv and OUT/rates.csv the same tables as CSV (RFC 4180, header row, figures unformatted; an empty cell is a figure that is unknown or a reduction that does not apply; totals.csv only when a task was compared). Input files are re-hashed before every server start, model call and tool call: a change stops the run with SOURCE_CHANGED.`,
        `With no --config, the bundled demo (examples/experiment: the records server in MODE=baseline and MODE=optimized over 30 PyGithub issues) runs offline with its scripted turns:  ${invocationOf(io)} experiment --provider scripted --out DIR`,
        `Against Claude:  ANTHROPIC_API_KEY=... ${invocationOf(io)} experiment --config my.yaml --provider anthropic --model claude-sonnet-5-5   (billable calls)`,
        `Against Ollama:  ${invocationOf(io)} experiment --config my.yaml --provider openai-compatible --base-url http://localhost:11434/v1 --model qwen3:8b`,
        'Each question\u2019s outcome is kept apart: answered right, answered wrong, no answer within limits (max_tokens, turns), provider failure, harness failure (an input changed, a server failed, a tool call got no result), not run. Only the first three are verdicts: the cut lost an answer only when the baseline answered right and the optimized condition answered wrong or gave no answer within the same limits; a task with a provider or harness failure on either side is not compared, and report.md says how many and why. A provider or harness failure stops the run (a wrong answer never does): every question after it is skipped, and report.md, the output and --json (skipped) say how many, after which question and with which failure.',
        'Spend: every turn\u2019s usage is priced (USD per million input, output, cache-read and cache-write tokens) from the bundled table (Anthropic models read from their pricing page, each entry dated and sourced) or the config\u2019s prices: (the same fields), and summed per question, per condition and per run in the receipt\u2019s cost block and report.md; a model without a price, or a turn without usage, is "unknown", never $0.',
        'Exit codes: 0 every task answered right in both conditions; 1 a verdict: some answer wrong or no answer within limits (a lost answer included); 2 bad config, flags, key or answer key (the receipt says which); 3 the run stopped on a provider failure or a harness failure (an input changed, a server failed, a tool call got no result), or the receipt cannot be written: a provider failure is never exit 1, it says nothing about an answer.',
      ].join('\n\n'),
    )
    .option('--config <file>', 'the experiment config, YAML or JSON (default: the bundled demo, examples/experiment/config.yaml)')
    .option('--provider <name>', 'anthropic, openai-compatible or scripted, overriding model.provider (default: the config\'s)', parseProvider)
    .option('--model <id>', 'the model id, overriding model.model (default: the config\'s)')
    .option('--script <file>', 'scripted provider: the turns file, overriding model.script (default: the config\'s)')
    .option('--base-url <url>', 'HTTP providers: the API base URL, overriding model.baseUrl (default: the config\'s, else the provider\'s public API)')
    .option('--api-key-env <NAME>', 'HTTP providers: the env variable holding the API key, never the key (default: the config\'s, else ANTHROPIC_API_KEY for anthropic; OPENAI_API_KEY if set, else no key, for openai-compatible); the same flag as routing\'s')
    // The flag's earlier name, still read: scripts written for it keep working.
    .addOption(new Option('--key-env <NAME>').hideHelp())
    .option('--max-tokens <n>', 'max_tokens of every model call, overriding model.maxTokens (default: the config\'s)', parsePositiveInteger)
    .option('--repeat <n>', 'ask each question N times per condition, each on a fresh server, overriding the config\'s repeat (default: the config\'s, else 1); report.md gives each condition\'s rate of right answers with its 95% Wilson interval, McNemar\'s exact test on the pairs (same task and repetition) and a paired bootstrap 95% interval of the context-token reduction', parseRepeat)
    .option('--max-usd <usd>', 'stop the run before any model call whose worst case (its request body\'s UTF-8 bytes plus 1,000 counted as tokens read, a bound no tokenizer exceeds, at the dearer of the input and cache-write prices, plus max_tokens at the output price) would take the spend past this many USD; the questions left are "not run" (BUDGET_STOP, exit 3) and the receipt verifies. Needs the model\'s price: the bundled table\'s, or the config\'s prices: (default: no cap)', parseUsd)
    .option('--resume <dir>', 'carry on the stopped run in <dir> (its receipt.json) into --out (another folder): refused when a config, snapshot, fields, tasks or script hash, the model or its settings differ; finished questions are kept, the others asked again, replaying the turns already paid for (default: a new run)')
    .option('--out <dir>', 'where receipt.json, report.md and its tables as CSV (tasks.csv, totals.csv, time.csv, rates.csv, spend.csv) go (default: ./mcpctx-experiment/<UTC time>)')
    .option('--force', 'replace a receipt already in --out')
    .option('--json', 'print the run (status, files, report) as JSON')
    .option('--progress', 'print progress on stderr even when it is not a terminal')
    .addHelpText('after', exampleHelp(io, 'experiment --provider scripted --out runs/demo'))
    .action(async (flags: ExperimentFlags) => {
      const run = await runExperiment({
        configFile: flags.config === undefined ? BUNDLED_EXPERIMENT_CONFIG : resolve(io.cwd, flags.config),
        overrides: overridesFrom(flags, io.cwd),
        ...(flags.repeat === undefined ? {} : { repeat: flags.repeat }),
        outDir: resolve(io.cwd, flags.out ?? defaultOutDir()),
        overwrite: flags.force === true,
        env: io.env,
        ...(flags.maxUsd === undefined ? {} : { maxUsd: flags.maxUsd }),
        ...(flags.resume === undefined ? {} : { resume: resolve(io.cwd, flags.resume) }),
        ...(flags.progress === true || io.stderr.isTTY === true ? { onProgress: (event: ExperimentProgress) => io.stderr.write(progressLine(event)) } : {}),
      });
      io.stdout.write(flags.json ? `${JSON.stringify(runSummary(run), null, 2)}\n` : renderExperimentRun(run, invocationOf(io)));
      setExit(exitCodeOf(run));
    });

  experiment
    .command('verify')
    .summary('recompute every hash and table of an experiment receipt')
    .description(
      'Reads a receipt.json written by `mcpctx experiment` and recomputes from its rows alone: frame, tool schema, request and response hashes; the model-facing text of every tool result and its bytes and tokens; each turn\u2019s content, stop reason and usage from the raw provider response; every answer check; every total and the report; the hashes of retried attempts and every recorded time in run order; and each CSV export beside the receipt (tasks.csv, totals.csv, time.csv, rates.csv, spend.csv), cell by cell. Exit codes: 0 everything recomputes and the run ended; 1 something does not, or the run is still marked running (killed before its end) (each problem listed with its path); 3 the file cannot be read or is not JSON.',
    )
    .argument('<receipt>', 'the receipt.json of a run')
    .option('--json', 'print the verification as JSON')
    .addHelpText('after', exampleHelp(io, 'experiment verify runs/demo/receipt.json'))
    .action(async (file: string, flags: { json?: boolean }) => {
      const path = resolve(io.cwd, file);
      const verification = await verifyReceiptAndExports(await readReceipt(path), path);
      io.stdout.write(flags.json ? `${JSON.stringify({ file: path, ...verification }, null, 2)}\n` : renderVerification(path, verification));
      setExit(verification.ok ? EXIT.ok : EXIT.finding);
    });
}

function parseRepeat(value: string): number {
  const repeat = parsePositiveInteger(value);
  if (repeat > MAX_REPEAT) throw new InvalidArgumentError(`at most ${MAX_REPEAT}`);
  return repeat;
}

function overridesFrom(flags: ExperimentFlags, cwd: string): ModelOverrides {
  return {
    ...(flags.provider === undefined ? {} : { provider: flags.provider }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.script === undefined ? {} : { script: resolve(cwd, flags.script) }),
    ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
    ...(flags.apiKeyEnv === undefined && flags.keyEnv === undefined ? {} : { keyEnv: flags.apiKeyEnv ?? flags.keyEnv }),
    ...(flags.maxTokens === undefined ? {} : { maxTokens: flags.maxTokens }),
  };
}

function defaultOutDir(): string {
  return `mcpctx-experiment/${new Date().toISOString().replace(/[:.]/g, '-')}`;
}

async function readReceipt(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new McpctxError('IO', `Cannot read the receipt ${file}: ${(error as Error).message}`, { file }, { cause: error });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new McpctxError('IO', `The receipt ${file} is not JSON: ${(error as Error).message}`, { file }, { cause: error });
  }
}

/** 2 for an input the user fixes, 3 for a provider or harness failure, else 0 every task compared, 1 a verdict against an answer. */
export function exitCodeOf(run: ExperimentRun): number {
  const { receipt } = run;
  if (receipt.status !== 'completed') {
    const code = receipt.errors[0]?.code ?? '';
    return INPUT_FAILURES.has(code) ? EXIT.usage : EXIT.failed;
  }
  // A failure without a verdict is the run's, never an answer mismatch.
  const failed = receipt.report?.rows.some((row) => row.notCompared?.outcome === 'provider-failure' || row.notCompared?.outcome === 'harness-failure');
  if (failed === true) return EXIT.failed;
  return receipt.report?.allPassed === true ? EXIT.ok : EXIT.finding;
}

function runSummary(run: ExperimentRun): Record<string, unknown> {
  const { receipt } = run;
  return {
    status: receipt.status,
    receiptFile: run.receiptFile,
    reportFile: run.reportFile ?? null,
    csvFiles: run.csvFiles ?? [],
    errors: receipt.errors,
    stages: receipt.stages,
    report: receipt.report ?? null,
    cost: receipt.cost ?? null,
    probe: receipt.probe ?? null,
    // What the run left out after a failure stopped it, each group with the question and failure that caused it.
    skipped: skippedGroups(receipt),
    // What validation could not check (a later_page task without pageField/pageValue): never a pass.
    notChecked: notCheckedOf(receipt),
  };
}

function progressLine(event: ExperimentProgress): string {
  switch (event.type) {
    case 'stage':
      return `experiment: ${event.stage}\n`;
    case 'question':
      return `experiment: [${event.index}/${event.total}] ${printableText(event.taskId, 'note')}${event.repeat === 1 ? '' : ` #${event.repetition}`} ${event.condition}\n`;
    case 'answered': {
      const failure = event.failure === undefined ? '' : `: ${printableText(event.failure.slice(0, 200), 'note')}`;
      return `experiment:   ${event.status}, ${event.turns} turns, ${event.contextTokens === null ? 'unknown' : event.contextTokens.toLocaleString('en-US')} context tokens${failure}\n`;
    }
    case 'probe':
      return `experiment: warm-cache probe ${event.status}\n`;
  }
}
