// One measurement of the scale benchmark, in a process of its own so that heap and peak RSS belong
// to one size only: `node --import tsx bench/optimizer/_scale-child.ts <records>` generates the
// session, builds the context once, and prints one JSON line on stdout.
import { ContextOptimizer } from '../../src/optimizer/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { generateSession } from './_generate.js';

export interface ScaleSample {
  records: number;
  inputChars: number;
  buildMs: number;
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
if (!Number.isInteger(records) || records <= 0) {
  process.stderr.write('usage: _scale-child.ts <records>\n');
  process.exit(2);
}
const input = generateSession(records);
let inputChars = 0;
for (const value of Object.values(input)) {
  if (Array.isArray(value)) for (const record of value) inputChars += JSON.stringify(record).length;
}
// Warm the tokenizer outside the timed region: the first count loads its tables.
countTokens('warm up the encoder');
const rssBefore = process.resourceUsage().maxRSS;
const started = performance.now();
const result = new ContextOptimizer().buildContext(input);
const buildMs = performance.now() - started;
const sample: ScaleSample = {
  records,
  inputChars,
  buildMs,
  maxRssKiBBeforeBuild: rssBefore,
  maxRssKiBAfterBuild: process.resourceUsage().maxRSS,
  tokensIn: result.stats.tokensIn,
  tokensOut: result.stats.tokensOut,
  selected: result.stats.selected,
  omitted: result.stats.omitted,
  conflict: result.report.selection.conflict !== undefined,
};
process.stdout.write(`${JSON.stringify(sample)}\n`);
