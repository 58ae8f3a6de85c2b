import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordTurn, scriptedProvider, type ScriptedTurns } from '../../src/providers/index.js';
import { loadRoutingConfig, plannedCalls, routingReceipt, runRouting, verifyRoutingReceipt, verifyRoutingReceiptFile, writeRoutingOutput, type RoutingReceipt } from '../../src/routing/index.js';
import { csvText, parseCsv } from '../../src/csv/index.js';
import { loadRoutingTools } from '../../src/routing/config/index.js';
import { routingChart, routingMarkdown } from '../../src/routing/report/index.js';
import { runCliCaptured } from '../support/cli-run.js';
import { recallTable } from '../../src/routing/retrieval/index.js';
import { accuracyTable } from '../../src/routing/_score.js';
import { smallConfig } from './_fixtures.js';
import { wilsonInterval } from '../../src/stats/index.js';

let work: string;
let receipt: RoutingReceipt;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mcpctx-routing-receipt-'));
  const config = smallConfig({ protocols: ['native', 'constrained', 'retrieval'] });
  const tools = await loadRoutingTools(config);
  const offline = await runRouting({ config, tools });
  // A model that answers by the request: right for "stock", a wrong tool for "words", text for "lucy", and a call for "thanks".
  let script: ScriptedTurns = { version: 1, turns: {} };
  for (const call of plannedCalls({ ...offline, config, tools, model: 'm' })) {
    const pick = { stock: 'stock_level', words: 'sales_today', lucy: null, thanks: 'word_count' }[call.request.id as 'stock'] ?? null;
    const content =
      call.protocol === 'constrained'
        ? [{ type: 'text' as const, text: JSON.stringify({ tool: pick ?? 'none_of_these' }) }]
        : pick === null
          ? [{ type: 'text' as const, text: 'In words.' }]
          : [{ type: 'tool_use' as const, id: 'c1', name: pick, input: {} }];
    script = recordTurn(script, call.chat, { content });
  }
  const run = await runRouting({ config, tools, provider: scriptedProvider(script), model: 'm' });
  receipt = JSON.parse(JSON.stringify(routingReceipt(run, config, new Date('2026-12-02T00:00:00Z')))) as RoutingReceipt;
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function tampered(edit: (copy: RoutingReceipt) => void): RoutingReceipt {
  const copy = structuredClone(receipt);
  edit(copy);
  return copy;
}

describe('verifyRoutingReceipt', () => {
  it('recomputes an untouched receipt', () => {
    const report = verifyRoutingReceipt(receipt);
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.checked).toEqual({ catalogs: 24, rankings: 24, answers: 72, cells: 6 + 18 });
  });

  it('fails on a tampered table figure, naming it', () => {
    const report = verifyRoutingReceipt(tampered((copy) => ((copy.accuracy[0] as { accuracy: number }).accuracy = 0.99)));
    expect(report.ok).toBe(false);
    expect(report.differences).toEqual([{ field: 'accuracy[0].accuracy', recorded: 0.99, recomputed: receipt.accuracy[0]!.accuracy }]);
    const recall = verifyRoutingReceipt(tampered((copy) => ((copy.recall[2]!.hits[0] as { hits: number }).hits += 1)));
    expect(recall.differences.map((difference) => difference.field)).toEqual(['recall[2].hits[0].hits']);
  });

  it('fails on a tampered row: an outcome, a raw answer, a catalog order, a rank, catalog tokens', () => {
    const fields = (edit: (copy: RoutingReceipt) => void): string[] => verifyRoutingReceipt(tampered(edit)).differences.map((difference) => difference.field);
    // The table is recomputed from the re-derived rows, so it stands; the forged row is named.
    expect(fields((copy) => ((copy.answers[1] as { outcome: string }).outcome = 'right'))).toEqual(['answers[1].outcome']);
    // The parsed content says word_count; the raw bytes still say stock_level, and the choice follows them.
    const stock = receipt.answers.findIndex((row) => row.requestId === 'stock' && row.protocol === 'native');
    expect(fields((copy) => ((copy.answers[stock]!.content as unknown[])[0] = { type: 'tool_use', id: 'c1', name: 'word_count', input: {} }))).toEqual([`answers[${stock}].content[0].name`]);
    expect(fields((copy) => (copy.catalogs[5] as unknown as { order: string[] }).order.reverse())).toEqual(['catalogs[5].order']);
    expect(fields((copy) => ((copy.retrieval[0] as { rank: number | null }).rank = 4))).toEqual(['retrieval[0].rank']);
    expect(fields((copy) => ((copy.answers[0] as { catalogTokens: number }).catalogTokens -= 1))).toEqual(['answers[0].catalogTokens']);
    expect(fields((copy) => ((copy as { seed: number }).seed = 15))).toContain('catalogs[0].order');
  });
});

describe('report and chart', () => {
  it('the markdown links the chart and carries the tables; the chart is drawn from the data', () => {
    const markdown = routingMarkdown(receipt, { chartFile: 'chart.svg', receiptFile: 'receipt.json' });
    expect(markdown).toContain('![Accuracy and tokens against catalog size](chart.svg)');
    expect(markdown).toContain('## Routing accuracy');
    expect(markdown).toMatch(/\| native \| unrelated \| 4 \| 1\/4 \| 1 \| 1 \| 1 \| 0\.250 \| 0\.05-0\.70 \|/);
    // The provider's count and mcpctx's o200k estimate side by side, each named for what it is.
    expect(markdown).toMatch(/\| prompt tokens \(provider\) \| o200k\/tool \(catalog\) \|/);
    expect(markdown).toContain("counted by the model's own tokenizer");
    // A command that runs where the reader stands (a clone), not `mcpctx` (not on PATH) or `npx mcpctx` (not ours on npm).
    expect(markdown).toContain("with mcpctx's `routing verify`; in a clone of mcpctx, after `npm ci`: `node dist/cli/main.js routing verify path/to/receipt.json`.");
    expect(markdown).not.toMatch(/`(npx )?mcpctx /);
    const svg = routingChart(receipt);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    // One line per protocol and kind in each panel, a point per size.
    expect(svg.match(/<polyline /g)).toHaveLength(2 * 3 * 2);
    expect(svg.match(/<circle /g)).toHaveLength(2 * 3 * 2 * 3);
    expect(svg).toContain('Right tool chosen (m)');
    expect(svg).not.toMatch(/<script|href=/);
    expect(routingChart(receipt)).toBe(svg);
  });

  it('draws each accuracy point\'s 95% Wilson interval as an error bar, and offline each recall point\'s', () => {
    const svg = routingChart(receipt);
    // The accuracy panel only: a bar per protocol, kind and size (tokens have no interval).
    const bars = [...svg.matchAll(/<path d="M([\d.]+),([\d.]+)V([\d.]+)M[^"]*"[^>]*><title>([^<]*)<\/title><\/path>/g)];
    expect(bars).toHaveLength(2 * 3 * 3);
    // native, unrelated, first size: 1 of 4 right, Wilson 0.0456 to 0.6994; the plot's y runs from 268 (0) up to 48 (1).
    const cell = receipt.accuracy[0]!;
    expect([cell.low, cell.high]).toEqual([0.0456, 0.6994]);
    const first = bars.find((bar) => bar[4]!.startsWith(`native, unrelated: 95% interval 4.6% to 69.9%`));
    expect(first?.slice(2, 4)).toEqual(['114.1', '258']);
    for (const bar of bars) expect(Number(bar[2])).toBeLessThanOrEqual(Number(bar[3]));
    // Offline, recall@k with its Wilson interval of hits over requests.
    const offline = routingChart({ ...receipt, answers: [] });
    const recallBars = [...offline.matchAll(/<title>([^<]*recall@[^<]*: 95% interval [^<]*)<\/title><\/path>/g)].map((bar) => bar[1]);
    const k = [...receipt.recallAt].filter((value) => value <= receipt.topK).pop()!;
    const share = (value: number): string => `${(value * 100).toFixed(1)}%`;
    const expected = receipt.recall.flatMap((entry) => {
      const at = entry.hits.find((hit) => hit.k === k)!;
      const interval = wilsonInterval(at.hits, entry.requests);
      return at.recall === null || interval === null ? [] : [`${entry.retriever} recall@${k}, ${entry.kind}: 95% interval ${share(interval.low)} to ${share(interval.high)}`];
    });
    expect(expected.length).toBeGreaterThan(0);
    expect(recallBars.sort()).toEqual(expected.sort());
  });
});

describe('mcpctx routing --out and verify', () => {
  it('writes receipt, report and chart; verify passes, then fails on a tampered figure (exit 1)', async () => {
    const config = join(work, 'config.json');
    await writeFile(config, JSON.stringify({ domain: { tools: receipt.tools.domain }, distractors: { unrelated: { tools: receipt.tools.unrelated } }, sizes: [4, 8], requests: [{ text: 'count the words', tool: 'word_count' }] }));
    const run = await runCliCaptured(['routing', '--config', 'config.json', '--out', 'out'], work);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`wrote ${join(work, 'out', 'receipt.json')}, ${join(work, 'out', 'report.md')} and ${join(work, 'out', 'chart.svg')}`);
    expect(await readFile(join(work, 'out', 'report.md'), 'utf8')).toContain('](chart.svg)');
    const ok = await runCliCaptured(['routing', 'verify', 'out/receipt.json'], work);
    expect(ok).toMatchObject({ code: 0, stdout: `ok: ${join(work, 'out', 'receipt.json')}: recomputed 2 catalogs, 2 rankings, 0 answers, 2 table cells, recall.csv, catalog-cost.csv\n` });
    const written = JSON.parse(await readFile(join(work, 'out', 'receipt.json'), 'utf8')) as RoutingReceipt;
    (written.recall[0]!.hits[0] as { recall: number }).recall = 0.5;
    await writeFile(join(work, 'bad.json'), JSON.stringify(written));
    const bad = await runCliCaptured(['routing', 'verify', 'bad.json'], work);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^FAILED: .*bad\.json: 1 differences/);
    expect(bad.stdout).toContain('  recall[0].hits[0].recall: recorded 0.5, recomputed 1');
    expect((await runCliCaptured(['routing', 'verify', 'missing.json'], work)).code).toBe(2);
    await writeFile(join(work, 'other.json'), '{"format":"something-else"}');
    expect((await runCliCaptured(['routing', 'verify', 'other.json'], work)).code).toBe(3);
  });
});

describe('a model run stopped by a provider error', () => {
  it('keeps the answers before it, tables only the conditions answered in full, and exits 3 with the receipt written', async () => {
    const config = join(work, 'stops.json');
    await writeFile(
      config,
      JSON.stringify({ domain: { tools: receipt.tools.domain }, distractors: { unrelated: { tools: receipt.tools.unrelated } }, sizes: [4, 8], protocols: ['native'], requests: receipt.requests.map((request) => ({ ...request, tool: request.tool ?? 'none' })) }),
    );
    const loaded = await loadRoutingConfig(config);
    const tools = await loadRoutingTools(loaded);
    const offline = await runRouting({ config: loaded, tools });
    const calls = plannedCalls({ ...offline, config: loaded, tools, model: 'm' });
    // Turns for the first condition and one request of the second: the sixth call has none.
    let script: ScriptedTurns = { version: 1, turns: {} };
    for (const call of calls.slice(0, 5)) script = recordTurn(script, call.chat, { content: [{ type: 'text', text: 'words' }] });
    await writeFile(join(work, 'partial-turns.json'), JSON.stringify(script));
    const run = await runCliCaptured(['routing', '--config', 'stops.json', '--provider', 'scripted', '--script', 'partial-turns.json', '--model', 'm', '--out', 'stopped'], work);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^mcpctx: the model run stopped at call 6 \(native, unrelated, size 8, request words\): no scripted turn .*; the 5 answers before it are in the receipt\n$/);
    const written = JSON.parse(await readFile(join(work, 'stopped', 'receipt.json'), 'utf8')) as RoutingReceipt;
    expect(written.answers).toHaveLength(5);
    expect(written.failure).toMatchObject({ code: 'NO_SCRIPTED_TURN', call: 5, size: 8, requestId: 'words' });
    expect(written.accuracy.map((cell) => cell.size)).toEqual([4]);
    expect(await readFile(join(work, 'stopped', 'report.md'), 'utf8')).toContain('**The model run stopped early** at call 6');
    expect((await runCliCaptured(['routing', 'verify', 'stopped/receipt.json'], work)).code).toBe(0);
  });
});

describe('routing verify re-derives from the recorded bytes: each forgery fails, naming the path and both values', () => {
  const differences = (edit: (copy: RoutingReceipt) => void): Array<{ field: string; recorded: unknown; recomputed: unknown }> =>
    verifyRoutingReceipt(tampered(edit)).differences.map(({ field, recorded, recomputed }) => ({ field, recorded, recomputed }));
  // Forgeries keep the tables in step with the rows they edit: only the re-derivation can catch them.
  const retabled = (copy: RoutingReceipt): void => {
    (copy as { accuracy: unknown }).accuracy = accuracyTable(copy.answers, copy.requests.length);
    (copy as { recall: unknown }).recall = recallTable(copy.retrieval, copy.recallAt);
  };

  it('a wrong answer rewritten to the right tool in the parsed content, the raw bytes untouched', () => {
    const words = receipt.answers.findIndex((row) => row.requestId === 'words' && row.protocol === 'native');
    expect(receipt.answers[words]!.chosen).toBe('sales_today');
    const found = differences((copy) => {
      const row = copy.answers[words] as unknown as { content: Array<{ name: string }>; chosen: string; outcome: string };
      row.content[0]!.name = 'word_count';
      row.chosen = 'word_count';
      row.outcome = 'right';
      retabled(copy);
    });
    expect(found).toContainEqual({ field: `answers[${words}].chosen`, recorded: 'word_count', recomputed: 'sales_today' });
    expect(found).toContainEqual({ field: `answers[${words}].content[0].name`, recorded: 'word_count', recomputed: 'sales_today' });
    expect(found.map((difference) => difference.field)).not.toContain('accuracy');
  });

  it('a rewritten BM25 ranking', () => {
    const row = receipt.retrieval.findIndex((entry) => entry.requestId === 'words' && entry.kind === 'confusable' && entry.size === 12);
    const top = receipt.retrieval[row]!.top;
    const forged = [top[1]!, top[0]!, ...top.slice(2)];
    const found = differences((copy) => {
      const entry = copy.retrieval[row] as unknown as { top: string[]; rank: number };
      entry.top = forged;
      entry.rank = 2;
      retabled(copy);
    });
    expect(found).toContainEqual({ field: `retrieval[${row}].top`, recorded: forged, recomputed: top });
    expect(found).toContainEqual({ field: `retrieval[${row}].rank`, recorded: 2, recomputed: 1 });
  });

  it('an offered list that differs from the seeded catalog', () => {
    const at = receipt.answers.findIndex((row) => row.protocol === 'native' && row.size === 8);
    const offered = receipt.answers[at]!.offered;
    const outsider = receipt.tools.unrelated.map((tool) => tool.name).find((name) => !offered.includes(name))!;
    const forged = [...offered.slice(0, -1), outsider];
    const found = differences((copy) => {
      (copy.answers[at] as unknown as { offered: string[] }).offered = forged;
      retabled(copy);
    });
    expect(found).toContainEqual({ field: `answers[${at}].offered`, recorded: forged, recomputed: offered });
  });

  it('a reordering of the answers', () => {
    const found = differences((copy) => {
      const answers = copy.answers as unknown[];
      [answers[0], answers[1]] = [answers[1], answers[0]];
      retabled(copy);
    });
    expect(found).toContainEqual({ field: 'answers[0].requestId', recorded: receipt.answers[1]!.requestId, recomputed: receipt.answers[0]!.requestId });
  });
});

describe('report.md\'s tables as CSV beside it', () => {
  /** The rows of the markdown table under a `## heading`. */
  const markdownTable = (markdown: string, heading: string): string[][] =>
    markdown
      .split(`## ${heading}\n`)[1]!
      .split('\n## ')[0]!
      .split('\n')
      .filter((line) => line.startsWith('|') && !line.startsWith('|---'))
      .slice(1)
      .map((line) => line.slice(2, -2).split(' | '));

  it('writes recall.csv, catalog-cost.csv, accuracy.csv and call-time.csv holding the markdown tables\' figures and the receipt\'s, unformatted', async () => {
    const dir = join(work, 'csv');
    const written = await writeRoutingOutput(dir, receipt);
    expect(written.csv.map((file) => file.slice(dir.length + 1))).toEqual(['recall.csv', 'catalog-cost.csv', 'accuracy.csv', 'call-time.csv', 'spend.csv']);
    const markdown = await readFile(join(dir, 'report.md'), 'utf8');
    const [accuracyHeader, ...accuracy] = parseCsv(await readFile(join(dir, 'accuracy.csv'), 'utf8'));
    const column = (name: string): number => accuracyHeader!.indexOf(name);
    const shown = markdownTable(markdown, 'Routing accuracy');
    expect(accuracy).toHaveLength(receipt.accuracy.length);
    accuracy.forEach((row, index) => {
      const cell = receipt.accuracy[index]!;
      const printed = shown[index]!;
      // The markdown rounds; the CSV holds the receipt's figure, which rounds to what the markdown prints.
      expect(Number(row[column('accuracy')])).toBe(cell.accuracy);
      expect(Number(row[column('accuracy')]).toFixed(3)).toBe(printed[7]);
      expect([Number(row[column('ci95_low')]), Number(row[column('ci95_high')]), Number(row[column('tokens_per_tool')])]).toEqual([cell.low, cell.high, cell.tokensPerTool]);
      expect(`${Number(row[column('ci95_low')]).toFixed(2)}-${Number(row[column('ci95_high')]).toFixed(2)}`).toBe(printed[8]);
      expect(`${row[column('right')]}/${row[column('requests')]}`).toBe(printed[3]);
      expect(`${row[column('right_when_offered')]}/${row[column('right_tool_offered')]}`).toBe(printed[9]);
      expect([row[column('wrong_tool')], row[column('no_tool')], row[column('wrong_call')]]).toEqual([printed[4], printed[5], printed[6]]);
      expect(row[column('retriever')]).toBe(cell.retriever ?? ''); // empty: native and constrained have no retriever
      expect(row[column('mean_first_token_ms')]).toBe(''); // empty: no answer reported one
    });
    const [recallHeader, ...recall] = parseCsv(await readFile(join(dir, 'recall.csv'), 'utf8'));
    expect(recallHeader).toEqual(['retriever', 'kind', 'size', 'n', 'recall@1', 'hits@1', 'recall@3', 'hits@3', 'recall@5', 'hits@5']);
    const recallShown = markdownTable(markdown, 'bm25: recall@k');
    recall.forEach((row, index) => {
      expect([row[1], row[2], row[3]]).toEqual(recallShown[index]!.slice(0, 3));
      expect(`${Number(row[4]).toFixed(3)} (${row[5]})`).toBe(recallShown[index]![3]);
      expect(Number(row[4])).toBe(receipt.recall[index]!.hits[0]!.recall);
    });
    const [timeHeader, ...times] = parseCsv(await readFile(join(dir, 'call-time.csv'), 'utf8'));
    expect(timeHeader).toEqual(['protocol', 'retriever', 'kind', 'size', 'calls', 'total_ms', 'p50_ms', 'p95_ms']);
    const timesShown = markdownTable(markdown, 'Model-call time');
    expect(times).toHaveLength(receipt.callTimes!.length);
    times.forEach((row, index) => {
      const cell = receipt.callTimes![index]!;
      expect(row.slice(4).map(Number)).toEqual([cell.calls, cell.totalMs, cell.p50Ms, cell.p95Ms]);
      expect([row[4], (Number(row[5]) / 1000).toFixed(2), row[6], row[7]]).toEqual(timesShown[index]!.slice(3));
    });
    const [, ...costs] = parseCsv(await readFile(join(dir, 'catalog-cost.csv'), 'utf8'));
    expect(costs.map((row) => [row[0], row[1], row[2], row[4]])).toEqual(markdownTable(markdown, 'Catalog cost').map((row) => [row[0], row[1], row[2], row[4]]));
  });

  it('routing verify re-derives the CSVs found beside the receipt; a changed cell fails naming file, row, column and both values', async () => {
    const dir = join(work, 'csv-verify');
    await writeRoutingOutput(dir, receipt);
    const clean = await verifyRoutingReceiptFile(join(dir, 'receipt.json'));
    expect(clean.differences).toEqual([]);
    expect(clean.csvFiles).toEqual(['recall.csv', 'catalog-cost.csv', 'accuracy.csv', 'call-time.csv', 'spend.csv']);
    const rows = parseCsv(await readFile(join(dir, 'accuracy.csv'), 'utf8'));
    const at = rows[0]!.indexOf('accuracy');
    const original = rows[2]![at]!;
    rows[2]![at] = '0.99';
    await writeFile(join(dir, 'accuracy.csv'), csvText(rows[0]!, rows.slice(1)));
    const forged = await verifyRoutingReceiptFile(join(dir, 'receipt.json'));
    expect(forged.ok).toBe(false);
    expect(forged.differences).toEqual([{ field: 'accuracy.csv row 2, column accuracy', recorded: '0.99', recomputed: original }]);
  });
});
