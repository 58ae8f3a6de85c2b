// One measurement of the scale benchmark, in a process of its own so that heap and peak RSS belong
// to one size and one implementation only:
// `node --import tsx bench/optimizer/_scale-child.ts <records> [<optimizer index.ts>]` generates the
// session, imports the optimizer (this tree's by default, or the path given: `_previous.ts`
// materialises another revision's), builds the context once, and prints one JSON line on stdout.
import { pathToFileURL } from 'node:url';
import type * as OptimizerModule from '../../src/optimizer/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { generateSession } from './_generate.js';
import { CURRENT_OPTIMIZER } from './_previous.js';

export interface ScaleSample {
  records: number;
  inputChars: number;
  buildMs: number;
  /** CPU time (user + system, all threads: the collector's helpers too) during the build: less sensitive than wall time to other load on the machine. */
  buildCpuMs: number;
  /** Peak resident set size of the process, in KiB (`process.resourceUsage().maxRSS`). */
  maxRssKiBBeforeBuild: number;
  maxRssKiBAfterBuild: number;
  tokensIn: number;
  tokensOut: number;
  selected: number;
  omitted: number;
  conflict: boolean;
}

const records = Number(process.argv[2]);
const implementation = process.argv[3] ?? CURRENT_OPTIMIZER;
if (!Number.isInteger(records) || records <= 0) {
  process.stderr.write('usage: _scale-child.ts <records> [<path of an optimizer index.ts>]\n');
  process.exit(2);
}
const { ContextOptimizer } = (await import(pathToFileURL(implementation).href)) as typeof OptimizerModule;
const input = generateSession(records);
let inputChars = 0;
for (const value of Object.values(input)) {
  if (Array.isArray(value)) for (const record of value) inputChars += JSON.stringify(record).length;
}
// Warm the tokenizer outside the timed region: the first count loads its tables.
countTokens('warm up the encoder');
const rssBefore = process.resourceUsage().maxRSS;
const cpuBefore = process.cpuUsage();
const started = performance.now();
const result = new ContextOptimizer().buildContext(input);
const buildMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const sample: ScaleSample = {
  records,
  inputChars,
  buildMs,
  buildCpuMs: (cpu.user + cpu.system) / 1000,
  maxRssKiBBeforeBuild: rssBefore,
  maxRssKiBAfterBuild: process.resourceUsage().maxRSS,
  tokensIn: result.stats.tokensIn,
  tokensOut: result.stats.tokensOut,
  selected: result.stats.selected,
  omitted: result.stats.omitted,
  conflict: result.report.selection.conflict !== undefined,
};
process.stdout.write(`${JSON.stringify(sample)}\n`);
