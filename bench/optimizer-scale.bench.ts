// The context optimizer at scale: generated sessions of 1,000, 10,000 and 100,000 records
// (bench/optimizer/_generate.ts, seeded), each size built in a fresh child process so that its
// time and peak memory are its own. Reported: wall ms of buildContext, peak RSS, and the growth
// ratios between sizes. Targets (reported, not asserted): 10x more records cost at most 15x the
// time from 10,000 to 100,000, and 10,000 records build in under 5 seconds.
import { spawn } from 'node:child_process';
import { type BenchContext, type BenchReport, PROJECT_ROOT, median, round } from './_harness.js';
import type { ScaleSample } from './optimizer/_scale-child.js';

const CHILD = `${PROJECT_ROOT}bench/optimizer/_scale-child.ts`;
const SIZES = [1_000, 10_000, 100_000] as const;
/** Fresh processes per size; the median is reported. One at 100,000 (about half a minute each). */
const RUNS: Readonly<Record<(typeof SIZES)[number], number>> = { 1_000: 5, 10_000: 3, 100_000: 1 };
const CHILD_TIMEOUT_MS = 10 * 60_000;
const TARGET_GROWTH = 15;
const TARGET_10K_MS = 5_000;

function measureOnce(records: number): Promise<ScaleSample> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, String(records)], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk.slice(0, 4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`scale child for ${records} records ended with ${signal ?? `exit ${code}`}: ${stderr.trim()}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout.trim()) as ScaleSample);
      } catch {
        reject(new Error(`scale child for ${records} records printed no JSON: ${stdout.slice(0, 500)}`));
      }
    });
  });
}

interface SizeFigures {
  records: number;
  runs: number;
  inputChars: number;
  tokensIn: number;
  tokensOut: number;
  conflict: boolean;
  medianBuildMs: number;
  samplesMs: number[];
  /** Peak RSS of the process after the build, MiB (median over runs). */
  peakRssMiB: number;
  /** Peak RSS growth during the build (generation excluded), MiB. */
  buildRssMiB: number;
}

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  const figures: SizeFigures[] = [];
  for (const records of SIZES) {
    const samples: ScaleSample[] = [];
    for (let attempt = 1; attempt <= RUNS[records]; attempt++) {
      progress(`${records.toLocaleString('en-US')} records, run ${attempt}/${RUNS[records]}`);
      samples.push(await measureOnce(records));
    }
    const first = samples[0] as ScaleSample;
    figures.push({
      records,
      runs: samples.length,
      inputChars: first.inputChars,
      tokensIn: first.tokensIn,
      tokensOut: first.tokensOut,
      conflict: first.conflict,
      medianBuildMs: median(samples.map((sample) => sample.buildMs)),
      samplesMs: samples.map((sample) => round(sample.buildMs, 1)),
      peakRssMiB: round(median(samples.map((sample) => sample.maxRssKiBAfterBuild)) / 1024, 1),
      buildRssMiB: round(median(samples.map((sample) => sample.maxRssKiBAfterBuild - sample.maxRssKiBBeforeBuild)) / 1024, 1),
    });
  }
  const [small, medium, large] = figures as [SizeFigures, SizeFigures, SizeFigures];
  const growthSmallToMedium = medium.medianBuildMs / small.medianBuildMs;
  const growthMediumToLarge = large.medianBuildMs / medium.medianBuildMs;

  const rows = figures.map((size, index): Array<string | number> => {
    const previous = figures[index - 1];
    return [
      size.records.toLocaleString('en-US'),
      size.runs,
      round(size.inputChars / 1e6, 1),
      size.tokensIn,
      size.tokensOut,
      size.conflict ? 'BUDGET_CONFLICT' : 'within',
      round(size.medianBuildMs, 0),
      previous === undefined ? '-' : `${round(size.medianBuildMs / previous.medianBuildMs, 2)}x`,
      size.peakRssMiB,
      size.buildRssMiB,
    ];
  });

  return {
    title: 'ContextOptimizer.buildContext on generated sessions of 1k, 10k and 100k records (budget 8,000), one fresh process per run',
    table: {
      columns: ['records', 'runs', 'input MB', 'tokens in', 'tokens out', 'budget', 'build ms (median)', 'vs previous size', 'peak RSS MiB', 'RSS growth in build MiB'],
      rows,
    },
    figures: {
      generator: 'bench/optimizer/_generate.ts (seeded; realistic mix of messages, tool outputs, errors, files, diffs, test results, decisions)',
      sizes: figures,
      growth: { from1kTo10k: round(growthSmallToMedium, 2), from10kTo100k: round(growthMediumToLarge, 2) },
      targets: {
        growth10kTo100kAtMost: TARGET_GROWTH,
        growthMet: growthMediumToLarge <= TARGET_GROWTH,
        build10kUnderMs: TARGET_10K_MS,
        build10kMet: medium.medianBuildMs < TARGET_10K_MS,
      },
    },
    notes: [
      `Growth of the build time: 1k -> 10k ${round(growthSmallToMedium, 2)}x, 10k -> 100k ${round(growthMediumToLarge, 2)}x (target <= ${TARGET_GROWTH}x: ${growthMediumToLarge <= TARGET_GROWTH ? 'met' : 'NOT met'}).`,
      `10,000 records build in ${round(medium.medianBuildMs, 0).toLocaleString('en-US')} ms (target < ${TARGET_10K_MS.toLocaleString('en-US')} ms: ${medium.medianBuildMs < TARGET_10K_MS ? 'met' : 'NOT met'}).`,
      'Build ms is wall time around buildContext only (generation excluded); peak RSS is process.resourceUsage().maxRSS after the build, which includes the generated input.',
    ],
  };
}
