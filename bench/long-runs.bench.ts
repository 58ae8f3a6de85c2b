// One long pre-tokenizer piece (a run of one letter): countTokens takes its exact heap-ordered
// path here; gpt-tokenizer alone and js-tiktoken merge such a piece in O(n^2).
import { clearMergeCache, countTokens as gptTokenizerCount } from 'gpt-tokenizer/encoding/o200k_base';
import { getEncoding } from 'js-tiktoken';
import { countTokens } from '../src/tokens/index.js';
import { type BenchContext, type BenchReport, median, round } from './_harness.js';

const RUNS = 3;
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

function timeRuns(call: () => number): { medianMs: number; result: number } {
  call(); // warm-up
  const samples: number[] = [];
  let result = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    result = call();
    samples.push(performance.now() - started);
  }
  return { medianMs: median(samples), result };
}

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  const tiktoken = getEncoding('o200k_base');
  // js-tiktoken takes about a minute at 32 KiB, so it runs at the smaller size only.
  const cases = [
    { chars: 8 * 1024, withTiktoken: true },
    { chars: 32 * 1024, withTiktoken: false },
  ];
  const rows: Array<Array<string | number>> = [];
  const figures: Record<string, unknown> = {};
  for (const { chars, withTiktoken } of cases) {
    const text = 'a'.repeat(chars);
    progress(`${chars} chars: mcpctx`);
    const ours = timeRuns(() => countTokens(text));
    progress(`${chars} chars: gpt-tokenizer`);
    // Its merge cache would remember the whole run after the warm-up; a new text is never cached.
    const gpt = timeRuns(() => {
      clearMergeCache();
      return gptTokenizerCount(text, AS_PLAIN_TEXT);
    });
    progress(`${chars} chars: js-tiktoken`);
    const tik = withTiktoken ? timeRuns(() => tiktoken.encode(text, [], []).length) : undefined;
    const results = [ours.result, gpt.result, ...(tik ? [tik.result] : [])];
    if (new Set(results).size !== 1) throw new Error(`counts differ on ${chars} x "a": ${results.join(', ')}`);
    rows.push([
      `${chars.toLocaleString('en-US')} x "a"`,
      ours.result,
      round(ours.medianMs, 2),
      round(gpt.medianMs, 1),
      `${round(gpt.medianMs / ours.medianMs, 1)}x`,
      tik ? round(tik.medianMs, 1) : '-',
      tik ? `${round(tik.medianMs / ours.medianMs, 1)}x` : '-',
    ]);
    figures[`a${chars}`] = {
      chars,
      tokens: ours.result,
      oursMedianMs: round(ours.medianMs, 3),
      gptTokenizerMedianMs: round(gpt.medianMs, 3),
      jsTiktokenMedianMs: tik ? round(tik.medianMs, 3) : null,
    };
  }
  return {
    title: `one long pre-tokenizer piece (a run of "a"): countTokens (mcpctx) vs gpt-tokenizer alone vs js-tiktoken, median of ${RUNS}`,
    table: {
      columns: ['text', 'tokens', 'mcpctx ms', 'gpt-tokenizer ms', 'gpt-tokenizer / mcpctx', 'js-tiktoken ms', 'js-tiktoken / mcpctx'],
      rows,
    },
    figures: { runs: RUNS, cases: figures },
    notes: ['All counters agree on every size run; a 1 MiB run, which gpt-tokenizer alone needs ~15 minutes for, is in test/tokens.'],
  };
}
