// The shaping half of the gateway benchmark: the gateway's ResultShaper on a ~650 KB tools/call
// result built from the real pull-request recording, against JSON.parse + one countTokens of the
// same result's JSON, interleaved in one process.
import { readFileSync } from 'node:fs';
import { ResultShaper, createMemoryStore, type ResultContext, type ResultRules, type ShapeOutcome } from '../src/gateway/index.js';
import { countTokens } from '../src/tokens/index.js';
import { type Progress, PROJECT_ROOT, median } from './_harness.js';

export const PULLS_PATH = 'examples/pull-requests/data/pulls.json';
/** The size the issue names; the result is the first N pull requests whose wire JSON comes closest. */
export const TARGET_RESULT_BYTES = 650_000;
export const SHAPE_WARMUP_RUNS = 3;
export const SHAPE_RUNS = 15;
/** The summary projection of the pull-requests example and of the gateway's acceptance test. */
export const SUMMARY_PROJECTION: NonNullable<ResultRules['project']> = [
  'number',
  'title',
  'state',
  { path: 'user.login', as: 'author' },
  'created_at',
  'merged_at',
  { path: 'body', maxChars: 280 },
];
export const PAGE_TOKENS = 4_000;
export const CAP_TOKENS = 25_000;
/** A cap above the whole result, so that case (c) is the pass-through path: measured, checked, sent as is. */
export const PASS_CAP_TOKENS = 1_000_000;
/** Fixed, so that handles and cursors (and so the delivered tokens) repeat from run to run. */
const SHAPER_KEY = new Uint8Array(32).fill(11);

export interface ShapeData {
  records: number;
  /** The tools/call result as JSON text: what arrives in the frame. */
  wireText: string;
  wireBytes: number;
  /** Bytes of the text block alone (the records as JSON). */
  textBytes: number;
}

/**
 * The `before` result of the example (the records as a text block and again as
 * structuredContent) for the first N pull requests, N making its JSON closest to 650 KB.
 */
export function shapeData(): ShapeData {
  const pulls = JSON.parse(readFileSync(`${PROJECT_ROOT}${PULLS_PATH}`, 'utf8')) as unknown[];
  let best: ShapeData | undefined;
  for (let count = 1; count <= pulls.length; count += 1) {
    const shown = pulls.slice(0, count);
    const text = JSON.stringify(shown);
    const wireText = JSON.stringify({ content: [{ type: 'text', text }], structuredContent: { pull_requests: shown } });
    const candidate = { records: count, wireText, wireBytes: Buffer.byteLength(wireText), textBytes: Buffer.byteLength(text) };
    if (best === undefined || Math.abs(candidate.wireBytes - TARGET_RESULT_BYTES) < Math.abs(best.wireBytes - TARGET_RESULT_BYTES)) best = candidate;
  }
  if (best === undefined) throw new Error(`${PULLS_PATH} holds no pull requests`);
  return best;
}

export type ShapeCase = 'baseline' | 'offload' | 'paged' | 'passed';

export interface ShapeTiming {
  samplesMs: Record<ShapeCase, number[]>;
  medianMs: Record<ShapeCase, number>;
  offload: ShapeOutcome;
  paged: ShapeOutcome;
  passed: ShapeOutcome;
  /** o200k tokens of the wire JSON (what the baseline counts). */
  wireTokens: number;
}

function context(rules: ResultRules | undefined, capTokens = CAP_TOKENS): ResultContext {
  return { sessionId: 'bench-session', tool: 'list_pull_requests', rules, capTokens, offload: true };
}

/**
 * Times the baseline, (a) capTokens only, (b) project + pageTokens and (c) a cap above the result
 * (passed through), in an order rotated every
 * round. Each shape gets its own parsed copy of the result and a fresh store, made outside the
 * timed region: the gateway has parsed the frame before it shapes, and the store starts empty.
 */
export function measureShaping(data: ShapeData, progress: Progress): ShapeTiming {
  const samplesMs: Record<ShapeCase, number[]> = { baseline: [], offload: [], paged: [], passed: [] };
  let offload: ShapeOutcome | undefined;
  let paged: ShapeOutcome | undefined;
  let passed: ShapeOutcome | undefined;
  let wireTokens = 0;
  const shapeOnce = (rules: ResultRules | undefined, capTokens = CAP_TOKENS): { ms: number; outcome: ShapeOutcome } => {
    const result = JSON.parse(data.wireText) as Record<string, unknown>;
    const shaper = new ResultShaper({ store: createMemoryStore(), key: SHAPER_KEY });
    const started = performance.now();
    const outcome = shaper.shape(result, {}, context(rules, capTokens));
    return { ms: performance.now() - started, outcome };
  };
  const runners: Record<ShapeCase, () => number> = {
    baseline: () => {
      const started = performance.now();
      JSON.parse(data.wireText);
      wireTokens = countTokens(data.wireText);
      return performance.now() - started;
    },
    offload: () => {
      const run = shapeOnce(undefined);
      offload = run.outcome;
      return run.ms;
    },
    paged: () => {
      const run = shapeOnce({ project: SUMMARY_PROJECTION, pageTokens: PAGE_TOKENS });
      paged = run.outcome;
      return run.ms;
    },
    passed: () => {
      const run = shapeOnce(undefined, PASS_CAP_TOKENS);
      passed = run.outcome;
      return run.ms;
    },
  };
  const order: ShapeCase[] = ['baseline', 'offload', 'paged', 'passed'];
  for (let round = 0; round < SHAPE_WARMUP_RUNS + SHAPE_RUNS; round += 1) {
    progress(`shaping: round ${round + 1}/${SHAPE_WARMUP_RUNS + SHAPE_RUNS}`);
    for (let step = 0; step < order.length; step += 1) {
      const name = order[(round + step) % order.length] as ShapeCase;
      const elapsed = runners[name]();
      if (round >= SHAPE_WARMUP_RUNS) samplesMs[name].push(elapsed);
    }
  }
  if (offload?.action !== 'offloaded') throw new Error(`capTokens only: expected an offload, got ${offload?.action}`);
  if (paged?.action !== 'paged') throw new Error(`project + pageTokens: expected a page, got ${paged?.action}`);
  if (passed?.action !== 'passed') throw new Error(`cap above the result: expected it passed, got ${passed?.action}`);
  const medianMs = { baseline: median(samplesMs.baseline), offload: median(samplesMs.offload), paged: median(samplesMs.paged), passed: median(samplesMs.passed) };
  return { samplesMs, medianMs, offload, paged, passed, wireTokens };
}
