import { basename, join, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { McpctxError } from '../errors/index.js';
import { chooseProvider, type Provider } from '../providers/index.js';
import {
  RECEIPT_FILE,
  loadRoutingConfig,
  readVerifiedRoutingReceipt,
  routingReceipt,
  runRouting,
  verifyRoutingReceiptFile,
  writeRoutingOutput,
  type RecallCell,
  type RoutingReceipt,
  type RoutingRun,
} from '../routing/index.js';
// The CLI's table columns: the routing report folder's internal surface, not the public entry.
import { MAX_ROUTING_REPEAT } from '../routing/config/index.js';
import { parsePositiveInteger } from './_parse.js';
import { ACCURACY_HEADERS, ACCURACY_NUMERIC_COLUMNS, CALL_TIME_HEADERS, CALL_TIME_NUMERIC_COLUMNS, accuracyRow, callTimeRow } from '../routing/report/index.js';
import { printableText } from '../text/index.js';
import { exampleHelp } from './_help.js';
import { EXIT, invocationOf, type CliIo } from './_io.js';
import { parseUsd } from './_parse.js';
import { formatCount, renderTable, type Column } from './_table.js';

interface RoutingFlags {
  config?: string;
  out?: string;
  json?: boolean;
  provider?: 'anthropic' | 'openai-compatible' | 'scripted';
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  script?: string;
  repeat?: number;
  maxUsd?: number;
  resume?: string;
}

export function setupRouting(command: Command, io: CliIo, setExit: (code: number) => void): void {
  const routing = command
    .description(
      [
        'Run the tool-routing experiment a config describes (YAML or JSON): the domain tools (a catalog file or an MCP server to capture them from), the distractor pools (unrelated: tools of other domains; confusable: tools that resemble a domain tool), the requests with their right tool (or none), the catalog sizes, the retrieval settings and a seed.',
        'Each size pads the domain tools with distractors (confusable ones first, then unrelated ones, for the confusable kind), and every request gets its own seeded order of its catalog, so the same seed gives the same catalogs byte for byte.',
        'Without a provider the run is offline: every retriever (BM25, the ranking the gateway\'s search_tools uses; embeddings from an OpenAI-compatible /embeddings endpoint if the config asks for them) ranks every catalog for every request, and recall@k (the share of requests whose right tool is within the first k) is printed per retriever, distractor kind and size. Requests that need no tool are left out of recall.',
        'With --provider and --model the model routes every request under each protocol of the config: native (the catalog in the API\'s tools field), constrained (names and descriptions in the prompt, the answer restricted by an output schema to the offered names or none_of_these) and retrieval (each retriever\'s top k offered natively). An answer is right, a wrong tool, no tool call (counted apart: a text answer is not a wrong tool) or a call when none was needed; accuracy comes with a 95% Wilson interval, prompt tokens from the provider\'s usage, o200k tokens per tool of the rendered catalog, time to first token where the API reports it, and the wall-clock model-call time per condition (total, p50, p95; retries included; never a verdict). Providers: anthropic (key in ANTHROPIC_API_KEY or --api-key-env), openai-compatible (--base-url, e.g. http://127.0.0.1:11434/v1 for Ollama) and scripted (--script, a file of recorded turns, offline).',
        `With --out DIR the run is kept: receipt.json (every request, catalog order, ranking, raw model output, usage and score), report.md (the tables, linking the chart), chart.svg (accuracy, or offline recall, and tokens against catalog size), and report.md's tables as CSV: recall.csv, catalog-cost.csv and, with a model, accuracy.csv, call-time.csv and spend.csv (RFC 4180, header row, figures unformatted; an empty cell is a figure that does not exist: a recall with no request needing a tool, the retriever of native or constrained, a first-token time no answer reported). ${invocationOf(io)} routing verify DIR/receipt.json recomputes every table from the receipt's rows.`,
        'See examples/routing/config.yaml for a complete config.',
        'Spend: each answer\u2019s usage is priced (USD per million input, output, cache-read and cache-write tokens) from the bundled table (dated, sourced) or the config\u2019s prices: (the same fields), per cell and per run, in the receipt and report.md; a model without a price is "unknown", never $0.',
        'A provider error (after its retries) stops the model run; the answers before it are kept in the receipt, and the accuracy table lists only the conditions answered in full.',
        'Exit codes: 0 done; 2 usage error or invalid config (every problem listed); 3 a catalog server, an endpoint or the provider failed.',
      ].join('\n\n'),
    )
    .option('--config <file>', 'the routing config, YAML or JSON (required)')
    .option('--out <dir>', 'write receipt.json, report.md, chart.svg and the tables as CSV into this folder (default: print only)')
    .option('--json', 'print the whole run as JSON (catalog orders, every ranking and answer, the tables)')
    .addOption(new Option('--provider <name>', 'route with a model through this provider (default: retrieval only, no model)').choices(['anthropic', 'openai-compatible', 'scripted']))
    .option('--model <name>', 'the model to route with (default: none; required with --provider)')
    .option('--base-url <url>', 'the API base URL; required for openai-compatible (default: the public API, for anthropic)')
    .option('--api-key-env <name>', 'NAME of the environment variable holding the API key, never the key (default: ANTHROPIC_API_KEY for anthropic; OPENAI_API_KEY if set, else no key, for openai-compatible)')
    .option('--script <file>', 'scripted provider: the JSON file of recorded turns (default: none; required with --provider scripted)')
    .option('--repeat <n>', `ask the model each request N times per protocol and condition, overriding the config's repeat (default: the config's, else 1; at most ${MAX_ROUTING_REPEAT}); accuracy and its 95% Wilson interval count every answer, and the chart's error bars narrow with n`, parseRoutingRepeat)
    .option('--max-usd <usd>', 'stop the model run before any call whose worst case (its request body\'s UTF-8 bytes plus 1,000 counted as tokens read, a bound no tokenizer exceeds, at the dearer of the input and cache-write prices, plus max_tokens at the output price) would take the spend past this many USD (BUDGET_STOP; the answers before it are kept). Needs the model\'s price: the bundled table\'s, or the config\'s prices: (default: no cap)', parseUsd)
    .option('--resume <dir>', 'carry on the stopped model run whose receipt.json is in <dir> (it must verify), with the same config, provider, model, seed and repeat: each answer it holds is used again when its recorded request body is the one this run would send (RESUME_MISMATCH otherwise), so no paid call is repeated; --out must be another folder (default: a new run)')
    .addHelpText('after', exampleHelp(io, 'routing --config routing.yaml --out runs/routing'))
    .action(async (flags: RoutingFlags) => {
      // Checked here rather than by commander: a required option of this command would also be
      // required of `routing verify`.
      if (flags.config === undefined) throw new McpctxError('USAGE', `routing needs --config FILE (see examples/routing/config.yaml), or: ${invocationOf(io)} routing verify RECEIPT`);
      const config = await loadRoutingConfig(flags.config, io.cwd);
      if (flags.provider !== undefined && flags.model === undefined) throw new McpctxError('USAGE', '--provider needs --model');
      const provider = flags.provider === undefined ? undefined : providerFrom(flags, io);
      const progress = io.stderr.isTTY === true ? (done: number, total: number) => void io.stderr.write(`\r${done}/${total} answers`) : undefined;
      const resume = flags.resume === undefined ? undefined : await stoppedRun(resolve(io.cwd, flags.resume), flags.out === undefined ? undefined : resolve(io.cwd, flags.out));
      const run = await runRouting({
        config,
        env: io.env,
        ...(flags.repeat === undefined ? {} : { repeat: flags.repeat }),
        ...(provider ? { provider, model: flags.model! } : {}),
        ...(progress ? { onAnswer: progress } : {}),
        ...(flags.maxUsd === undefined ? {} : { maxUsd: flags.maxUsd }),
        ...(resume === undefined ? {} : { resume }),
      });
      if (progress) io.stderr.write('\n');
      const written = flags.out === undefined ? undefined : await writeRoutingOutput(resolve(io.cwd, flags.out), routingReceipt(run, config));
      if (flags.json) io.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
      else {
        io.stdout.write(`${renderRecall(run)}${run.model ? `\n${renderAccuracy(run)}` : ''}`);
        if (written) {
          const csv = written.csv.map((file) => basename(file)).join(', ');
          io.stdout.write(`\nwrote ${printableText(written.receipt, 'note')}, ${printableText(written.report, 'note')} and ${printableText(written.chart, 'note')}; its tables as CSV beside them: ${printableText(csv, 'note')}\n`);
        }
      }
      if (run.failure) {
        const kept = written ? `; the ${run.answers.length} answers before it are in the receipt` : `; ${run.answers.length} answers came before it (keep them with --out)`;
        io.stderr.write(`mcpctx: the model run stopped at call ${run.failure.call + 1} (${run.failure.protocol}, ${run.failure.kind}, size ${run.failure.size}, request ${printableText(run.failure.requestId, 'note')}): ${printableText(run.failure.message, 'note')}${kept}\n`);
      }
      setExit(run.failure ? EXIT.failed : EXIT.ok);
    });

  routing
    .command('verify')
    .summary('recompute the tables of a routing receipt from its rows')
    .description(
      [
        'Recompute a receipt written by mcpctx routing --out: every catalog order from the seed and the tools, each condition\'s distractors and catalog tokens, every BM25 ranking by ranking again and every embeddings ranking by cosine from the recorded vectors, each request body rebuilt from the plan of calls, each answer\'s choice (read again from its raw content), outcome and catalog tokens, the recall, accuracy and model-call time tables from those rows, and the times of each call in run order; then compare with what the receipt records, and each CSV export found beside the receipt cell by cell.',
        'Exit codes: 0 every figure recomputes; 1 a figure differs (each difference listed); 2 the file does not exist; 3 it cannot be read or is not a routing receipt.',
      ].join('\n\n'),
    )
    .argument('<receipt>', 'receipt.json written by mcpctx routing --out')
    .option('--json', 'print the verification as JSON')
    .addHelpText('after', exampleHelp(io, 'routing verify runs/routing/receipt.json'))
    .action(async (file: string, flags: { json?: boolean }) => {
      const report = await verifyRoutingReceiptFile(resolve(io.cwd, file));
      if (flags.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else {
        const { checked } = report;
        const csv = report.csvFiles.length === 0 ? '' : `, ${report.csvFiles.join(', ')}`;
        const what = `${checked.catalogs} catalogs, ${checked.rankings} rankings, ${checked.answers} answers, ${checked.cells} table cells${csv}`;
        io.stdout.write(`${report.ok ? 'ok' : 'FAILED'}: ${printableText(report.file ?? file, 'note')}: ${report.ok ? `recomputed ${what}` : `${report.differenceCount} differences (checked ${what})`}\n`);
        for (const difference of report.differences) {
          io.stdout.write(`  ${printableText(`${difference.field}: recorded ${brief(difference.recorded)}, recomputed ${brief(difference.recomputed)}`, 'note')}\n`);
        }
      }
      setExit(report.ok ? EXIT.ok : EXIT.finding);
    });
}

/** The stopped run's receipt for --resume, verified; never written over (its folder is not --out). */
async function stoppedRun(dir: string, out: string | undefined): Promise<RoutingReceipt> {
  if (out !== undefined && resolve(out) === resolve(dir)) throw new McpctxError('USAGE', '--resume needs another --out folder: the stopped run\'s receipt is kept as it is');
  return readVerifiedRoutingReceipt(join(dir, RECEIPT_FILE));
}

function parseRoutingRepeat(value: string): number {
  const repeat = parsePositiveInteger(value);
  if (repeat > MAX_ROUTING_REPEAT) throw new InvalidArgumentError(`at most ${MAX_ROUTING_REPEAT}`);
  return repeat;
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

function providerFrom(flags: RoutingFlags, io: CliIo): Provider {
  return chooseProvider(
    {
      provider: flags.provider ?? 'anthropic',
      ...(flags.script === undefined ? {} : { script: resolve(io.cwd, flags.script) }),
      ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
      ...(flags.apiKeyEnv === undefined ? {} : { keyEnv: flags.apiKeyEnv }),
    },
    io.env,
  );
}

/** Accuracy per protocol (and retriever), kind and size, with the outcome counts and token costs. */
export function renderAccuracy(run: RoutingRun): string {
  const columns: Column[] = ACCURACY_HEADERS.map((header, index) => (ACCURACY_NUMERIC_COLUMNS.has(index) ? { header, align: 'right' } : { header }));
  const repeat = run.repeat ?? 1;
  const accuracy = `${run.model!.provider} ${run.model!.name}: routing accuracy${repeat === 1 ? '' : ` (each request asked ${repeat} times)`}\n${renderTable(columns, run.accuracy.map(accuracyRow))}`;
  const times = run.callTimes ?? [];
  if (times.length === 0) return accuracy;
  const timeColumns: Column[] = CALL_TIME_HEADERS.map((header, index) => (CALL_TIME_NUMERIC_COLUMNS.has(index) ? { header, align: 'right' } : { header }));
  return `${accuracy}\nmodel-call time (wall-clock on this machine, retries included; not a verdict)\n${renderTable(timeColumns, times.map(callTimeRow))}`;
}

/** One table per retriever: a row per kind and size, a column per k. */
export function renderRecall(run: RoutingRun): string {
  const withTool = new Set(run.retrieval.filter((row) => row.expected !== null).map((row) => row.requestId)).size;
  const requests = new Set(run.catalogs.map((catalog) => catalog.requestId)).size;
  const lines = [
    `routing: ${run.tools.domain.length} domain tools, ${requests} requests (${withTool} with a right tool, ${requests - withTool} needing none), seed ${run.seed}`,
    `pools: ${run.tools.unrelated.length} unrelated, ${run.tools.confusable.length} confusable; sizes ${run.sizes.join(', ')}`,
    '',
  ];
  const retrievers = [...new Set(run.recall.map((cell) => cell.retriever))];
  for (const retriever of retrievers) {
    const cells = run.recall.filter((cell) => cell.retriever === retriever);
    const columns: Column[] = [{ header: 'kind' }, { header: 'size', align: 'right' }, { header: 'n', align: 'right' }, ...run.recallAt.map((k) => ({ header: `recall@${k}`, align: 'right' as const }))];
    lines.push(`${retriever}: recall@k (right tool within the first k)`);
    lines.push(renderTable(columns, cells.map((cell) => [cell.kind, String(cell.size), String(cell.requests), ...cell.hits.map((hit) => formatRecall(hit, cell.requests))])));
  }
  lines.push('catalog cost: o200k tokens of the whole catalog, as the tools field and as the constrained listing');
  lines.push(
    renderTable(
      [{ header: 'kind' }, { header: 'size', align: 'right' }, { header: 'native', align: 'right' }, { header: 'per tool', align: 'right' }, { header: 'constrained', align: 'right' }, { header: 'per tool', align: 'right' }],
      run.catalogCosts.map((cost) => [cost.kind, String(cost.size), formatCount(cost.nativeTokens), cost.nativeTokensPerTool.toFixed(1), formatCount(cost.constrainedTokens), cost.constrainedTokensPerTool.toFixed(1)]),
    ),
  );
  return `${lines.join('\n')}`;
}

function formatRecall(hit: RecallCell['hits'][number], requests: number): string {
  return hit.recall === null ? '-' : `${hit.recall.toFixed(3)} (${hit.hits}/${requests})`;
}
