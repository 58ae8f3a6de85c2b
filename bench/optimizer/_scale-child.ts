// One measurement of the scale benchmark, in a process of its own so that heap and peak RSS belong
// to one size and one implementation only:
// `node --import tsx bench/optimizer/_scale-child.ts <input.json> <optimizer index.ts> <cli|default>`
// reads the records as the CLI receives them (the JSON file's text, parsed), imports the optimizer
// at the path given (this tree's, or another revision's that `_previous.ts` materialised), builds
// the context once and prints one JSON line on stdout. `cli`: the V8 heap policy `mcpctx optimize`
// sets (`preferSmallHeap`); `default`: V8's own, as the CLI ran before it set one.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { preferSmallHeap } from '../../src/cli/_heap.js';
import type * as OptimizerModule from '../../src/optimizer/index.js';
import { countTokens } from '../../src/tokens/index.js';

export type HeapPolicy = 'cli' | 'default';

export interface ScaleSample {
  records: number;
  inputBytes: number;
  /** Reading the file and JSON.parse, as the CLI does before the build. */
  parseMs: number;
  buildMs: number;
  /** CPU time (user + system, all threads: the collector's helpers too) during the build: less sensitive than wall time to other load on the machine. */
  buildCpuMs: number;
  /** Peak resident set size of the process after the build, in KiB (`process.resourceUsage().maxRSS`). */
  maxRssKiBAfterBuild: number;
  tokensIn: number;
  tokensOut: number;
  selected: number;
  omitted: number;
  conflict: boolean;
  /** sha256 of the context: the same input must give the same bytes whatever the heap policy. */
  contextSha256: string;
}

const [file, implementation, heap] = process.argv.slice(2);
if (file === undefined || implementation === undefined || (heap !== 'cli' && heap !== 'default')) {
  process.stderr.write('usage: _scale-child.ts <input.json> <path of an optimizer index.ts> <cli|default>\n');
  process.exit(2);
}
if (heap === 'cli') preferSmallHeap();
const { ContextOptimizer } = (await import(pathToFileURL(implementation).href)) as typeof OptimizerModule;
// Warm the tokenizer outside the timed region: the first count loads its tables.
countTokens('warm up the encoder');
type Input = Parameters<OptimizerModule.ContextOptimizer['buildContext']>[0];
/** In a function of its own so that the file's text (twice its bytes when it holds one non-Latin-1 character) is garbage once parsed, as in the CLI. */
function readInput(path: string): { input: Input; inputBytes: number } {
  const text = readFileSync(path, 'utf8');
  return { input: JSON.parse(text) as Input, inputBytes: Buffer.byteLength(text) };
}
const parseStarted = performance.now();
const { input, inputBytes } = readInput(file);
const parseMs = performance.now() - parseStarted;
let records = 0;
for (const value of Object.values(input)) if (Array.isArray(value)) records += value.length;
const cpuBefore = process.cpuUsage();
const started = performance.now();
const result = new ContextOptimizer().buildContext(input);
const buildMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const sample: ScaleSample = {
  records,
  inputBytes,
  parseMs,
  buildMs,
  buildCpuMs: (cpu.user + cpu.system) / 1000,
  maxRssKiBAfterBuild: process.resourceUsage().maxRSS,
  tokensIn: result.stats.tokensIn,
  tokensOut: result.stats.tokensOut,
  selected: result.stats.selected,
  omitted: result.stats.omitted,
  conflict: result.report.selection.conflict !== undefined,
  contextSha256: createHash('sha256').update(result.context).digest('hex'),
};
process.stdout.write(`${JSON.stringify(sample)}\n`);
