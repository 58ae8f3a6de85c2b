// countTokens (gpt-tokenizer, o200k_base) against js-tiktoken (o200k_base), side by side in one
// process on a real 424 KB GitHub API payload; and the early-exit limit check against a full count.
import { readFileSync } from 'node:fs';
import { clearMergeCache } from 'gpt-tokenizer/encoding/o200k_base';
import { getEncoding } from 'js-tiktoken';
import { countTokens, isWithinTokenLimit, TOKENIZER } from '../src/tokens/index.js';
import { type BenchContext, type BenchReport, PROJECT_ROOT, median, megabytesPerSecond, round } from './_harness.js';

const PAYLOAD = 'test/fixtures/github-pulls-issues/pygithub/openmicroscopy_ome-documentation_pulls_state-closed.body.json';
const WARMUP_RUNS = 3;
const RUNS = 15;
const LIMIT = 1000;

interface Contender {
  label: string;
  /** Returns what is compared across contenders (a token count, or the limit verdict). */
  call: () => number | false;
  /** Runs untimed right before each timed call (e.g. emptying a cache). */
  before?: () => void;
}

interface Timed {
  samplesMs: number[];
  results: Array<number | false>;
}

/**
 * Warms each contender up, then runs them interleaved, swapping the order every round so that
 * neither always runs first (GC debt and CPU frequency land on both alike).
 */
function interleave(contenders: readonly Contender[], progress: (message: string) => void): Timed[] {
  const timed: Timed[] = contenders.map(() => ({ samplesMs: [], results: [] }));
  for (const contender of contenders) {
    for (let run = 0; run < WARMUP_RUNS; run += 1) {
      contender.before?.();
      contender.call();
    }
  }
  for (let round = 0; round < RUNS; round += 1) {
    progress(`round ${round + 1}/${RUNS}`);
    const order = contenders.map((_, index) => index);
    if (round % 2 === 1) order.reverse();
    for (const index of order) {
      const contender = contenders[index] as Contender;
      const slot = timed[index] as Timed;
      contender.before?.();
      const started = performance.now();
      const result = contender.call();
      slot.samplesMs.push(performance.now() - started);
      slot.results.push(result);
    }
  }
  return timed;
}

function onlyResult(label: string, results: ReadonlyArray<number | false>): number | false {
  const distinct = new Set(results);
  if (distinct.size !== 1) throw new Error(`${label} gave different results across runs: ${[...distinct].join(', ')}`);
  return results[0] as number | false;
}

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  const bytes = readFileSync(`${PROJECT_ROOT}${PAYLOAD}`);
  const text = bytes.toString('utf8');
  const byteLength = Buffer.byteLength(text);
  const tiktoken = getEncoding('o200k_base');

  // 1. Full count: ours (warm merge cache, as in a long-lived process), ours with the cache
  // emptied before every run (js-tiktoken has no cache), and js-tiktoken.
  const countContenders: Contender[] = [
    { label: 'countTokens (mcpctx)', call: () => countTokens(text) },
    { label: 'countTokens, merge cache cleared', call: () => countTokens(text), before: clearMergeCache },
    { label: 'js-tiktoken encode().length', call: () => tiktoken.encode(text, [], []).length },
  ];
  progress('full count: gpt-tokenizer vs js-tiktoken');
  const counted = interleave(countContenders, progress);
  const counts = countContenders.map((contender, index) => onlyResult(contender.label, (counted[index] as Timed).results));
  if (new Set(counts).size !== 1) {
    throw new Error(
      `token counts differ on ${PAYLOAD}: ` + countContenders.map((contender, index) => `${contender.label} = ${counts[index]}`).join('; '),
    );
  }
  const tokenCount = counts[0] as number;
  const countMedians = counted.map((slot) => median(slot.samplesMs));
  const [oursMs, oursColdMs, tiktokenMs] = countMedians as [number, number, number];

  // 2. Early exit: isWithinTokenLimit(text, 1000) against the full count, same text.
  const limitContenders: Contender[] = [
    { label: `isWithinTokenLimit(text, ${LIMIT})`, call: () => isWithinTokenLimit(text, LIMIT) },
    { label: 'countTokens(text)', call: () => countTokens(text) },
  ];
  progress(`early exit: isWithinTokenLimit(text, ${LIMIT}) vs countTokens`);
  const limited = interleave(limitContenders, progress);
  const verdict = onlyResult(limitContenders[0]?.label ?? '', (limited[0] as Timed).results);
  if (verdict !== false) throw new Error(`isWithinTokenLimit(text, ${LIMIT}) should be false for ${tokenCount} tokens, got ${verdict}`);
  const [limitMs, fullMs] = limited.map((slot) => median(slot.samplesMs)) as [number, number];

  const figure = (label: string, ms: number, samplesMs: readonly number[]) => ({
    label,
    medianMs: round(ms, 3),
    megabytesPerSecond: round(megabytesPerSecond(byteLength, ms), 1),
    samplesMs: samplesMs.map((sample) => round(sample, 3)),
  });

  return {
    title: `o200k_base token count of a real ${byteLength.toLocaleString('en-US')}-byte JSON payload: gpt-tokenizer (ours) vs js-tiktoken, ${RUNS} interleaved runs each`,
    table: {
      columns: ['case', 'median ms', 'MB/s', 'result', 'js-tiktoken / this'],
      rows: [
        ...countContenders.map((contender, index) => {
          const ms = countMedians[index] as number;
          return [contender.label, round(ms, 2), round(megabytesPerSecond(byteLength, ms), 1), tokenCount, `${round(tiktokenMs / ms, 2)}x`];
        }),
        [`isWithinTokenLimit(text, ${LIMIT})`, round(limitMs, 3), round(megabytesPerSecond(byteLength, limitMs), 1), 'false', '-'],
        ['countTokens(text), same rounds', round(fullMs, 2), round(megabytesPerSecond(byteLength, fullMs), 1), tokenCount, '-'],
      ],
    },
    figures: {
      payload: { path: PAYLOAD, bytes: byteLength, chars: text.length, tokens: tokenCount },
      tokenizer: TOKENIZER,
      peer: { name: 'js-tiktoken', encoding: 'o200k_base', call: 'getEncoding("o200k_base").encode(text, [], []).length' },
      warmupRuns: WARMUP_RUNS,
      runs: RUNS,
      countsEqual: true,
      count: {
        ours: figure(countContenders[0]?.label ?? '', oursMs, (counted[0] as Timed).samplesMs),
        oursColdCache: figure(countContenders[1]?.label ?? '', oursColdMs, (counted[1] as Timed).samplesMs),
        jsTiktoken: figure(countContenders[2]?.label ?? '', tiktokenMs, (counted[2] as Timed).samplesMs),
        ratioJsTiktokenOverOurs: round(tiktokenMs / oursMs, 2),
        ratioJsTiktokenOverOursColdCache: round(tiktokenMs / oursColdMs, 2),
      },
      earlyExit: {
        limit: LIMIT,
        result: verdict,
        withinLimit: figure(limitContenders[0]?.label ?? '', limitMs, (limited[0] as Timed).samplesMs),
        fullCount: figure(limitContenders[1]?.label ?? '', fullMs, (limited[1] as Timed).samplesMs),
        speedup: round(fullMs / limitMs, 1),
      },
    },
    notes: [
      `Both counters gave ${tokenCount.toLocaleString('en-US')} tokens for ${byteLength.toLocaleString('en-US')} bytes.`,
      `js-tiktoken / ours: ${round(tiktokenMs / oursMs, 2)}x with gpt-tokenizer's merge cache warm, ${round(tiktokenMs / oursColdMs, 2)}x with it cleared before each run.`,
      `Early exit at ${LIMIT} tokens: ${round(fullMs / limitMs, 1)}x faster than the full count.`,
      'MB = 10^6 bytes of UTF-8.',
    ],
  };
}
