import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { McpctxError } from '../errors/index.js';
import { calibrateClaudeFactor, parseClaudeFactorTable, withClaudeFactor, type CalibrationResult, type ClaudeFactorTable } from '../tokens/index.js';
import { DEFAULT_CLAUDE_KEY_ENV, countTokensClient, type ClaudeFlags } from './_claude.js';
import { exampleHelp } from './_help.js';
import { EXIT, type CliIo } from './_io.js';
import { formatCount, renderTable } from './_table.js';

interface CalibrateFlags extends ClaudeFlags {
  claudeModel: string;
  samples?: string;
  out?: string;
  json?: boolean;
}

/** The bundled samples: realistic tool results (JSON, prose, code, logs, CSV) written for this. */
const BUNDLED_SAMPLES = fileURLToPath(new URL('../../examples/claude-calibration/samples/', import.meta.url));
const MAX_SAMPLES = 100;
const MAX_SAMPLE_BYTES = 1024 * 1024;
/** The message whose count is taken off each sample's: what a message costs around its text. */
const BASELINE_TEXT = '.';

export function setupCalibrate(command: Command, io: CliIo, setExit: (code: number) => void): void {
  command
    .description(
      [
        'Measure the Claude safety factor of one model: Claude has no local tokenizer, so caps in Claude tokens are met by o200k counts times this factor (the guard\'s safetyFactor, claudeSafetyFactor in gateway and host rules).',
        `Each sample file is sent to Anthropic's count_tokens as the text of one user message; its Claude tokens are that count minus the count of a message holding "${BASELINE_TEXT}" (method count-tokens-message-delta/v1), its ratio those tokens over its o200k count. The factor is the largest ratio over the samples, rounded up to 2 decimals.`,
        'With --out the entry (model, factor, date measured, method, sample count) replaces the model\'s entry in that table file, created if missing. The table mcpctx ships (examples/claude-calibration/claude-safety-factors.json) is empty on purpose: a factor is only as good as the measurement behind it.',
        'The key is read from ANTHROPIC_API_KEY (or the variable --claude-key-env names) and is never printed or written. Exit codes: 0 measured; 2 usage error (no key, an unreadable samples folder or table); 3 count_tokens failed.',
      ].join('\n\n'),
    )
    .requiredOption('--claude-model <model>', 'the model id count_tokens is asked for')
    .option('--samples <dir>', 'a folder of sample texts, each file one sample (default: the bundled samples)')
    .option('--out <file>', 'the table file to write the entry into (default: only print it)')
    .option('--json', 'print the entry and every sample as JSON')
    .option('--claude-key-env <NAME>', 'the environment variable holding the Anthropic API key', DEFAULT_CLAUDE_KEY_ENV)
    .option('--claude-base-url <url>', 'the Messages API base URL (default: https://api.anthropic.com)')
    .addHelpText('after', exampleHelp(io, 'calibrate --claude-model claude-sonnet-4-5 --out claude-safety-factors.json'))
    .action(async (flags: CalibrateFlags) => {
      setExit(await runCalibrate(flags, io));
    });
}

async function runCalibrate(flags: CalibrateFlags, io: CliIo): Promise<number> {
  const count = countTokensClient(flags.claudeModel, flags, io);
  const samples = await readSamples(flags.samples === undefined ? BUNDLED_SAMPLES : resolve(io.cwd, flags.samples));
  const outFile = flags.out === undefined ? undefined : resolve(io.cwd, flags.out);
  const table = outFile === undefined ? undefined : await readTable(outFile);
  const message = (text: string) => ({ messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text }] }] });
  let result: CalibrationResult;
  try {
    const baseline = await count(message(BASELINE_TEXT));
    result = await calibrateClaudeFactor({ model: flags.claudeModel, samples, countClaude: async (text) => (await count(message(text))) - baseline });
  } catch (error) {
    if (error instanceof McpctxError && error.code === 'USAGE') throw error;
    io.stderr.write(`calibration failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failed;
  }
  if (outFile !== undefined && table !== undefined) await writeFile(outFile, `${JSON.stringify(withClaudeFactor(table, result.entry), null, 2)}\n`);
  io.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : render(result, outFile));
  return EXIT.ok;
}

async function readSamples(dir: string): Promise<Array<{ name: string; text: string }>> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => !name.startsWith('.')).sort();
  } catch (error) {
    throw new McpctxError('USAGE', `cannot read the samples folder ${dir}: ${(error as Error).message}`, { dir });
  }
  if (names.length === 0) throw new McpctxError('USAGE', `the samples folder ${dir} has no files`, { dir });
  if (names.length > MAX_SAMPLES) throw new McpctxError('USAGE', `the samples folder ${dir} has ${names.length} files; at most ${MAX_SAMPLES} are read`, { dir, limit: MAX_SAMPLES });
  const samples: Array<{ name: string; text: string }> = [];
  for (const name of names) {
    const file = join(dir, name);
    const info = await stat(file);
    if (!info.isFile()) continue;
    if (info.size > MAX_SAMPLE_BYTES) throw new McpctxError('USAGE', `sample ${file} is over ${MAX_SAMPLE_BYTES} bytes`, { file, limit: MAX_SAMPLE_BYTES });
    samples.push({ name, text: await readFile(file, 'utf8') });
  }
  return samples;
}

/** The table at `file`, or an empty one when the file does not exist yet. */
async function readTable(file: string): Promise<ClaudeFactorTable> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, entries: [] };
    throw new McpctxError('USAGE', `cannot read the table ${file}: ${(error as Error).message}`, { file });
  }
  try {
    return parseClaudeFactorTable(JSON.parse(text) as unknown, file);
  } catch (error) {
    throw new McpctxError('USAGE', `the table ${file} is not a factor table: ${(error as Error).message}`, { file });
  }
}

function render(result: CalibrationResult, outFile: string | undefined): string {
  const rows = result.samples.map((sample) => [sample.name, formatCount(sample.o200kTokens), formatCount(sample.claudeTokens), sample.ratio.toFixed(3)]);
  const { entry } = result;
  return (
    renderTable([{ header: 'sample' }, { header: 'o200k', align: 'right' }, { header: 'claude', align: 'right' }, { header: 'ratio', align: 'right' }], rows) +
    `\nfactor ${entry.factor} for ${entry.model}: the largest ratio of ${entry.samples} samples, rounded up to 2 decimals (${entry.method}, measured ${entry.measuredOn})\n` +
    (outFile === undefined ? '' : `written to ${outFile}\n`)
  );
}
