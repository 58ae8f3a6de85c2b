// BM25 ranking of a 1,000-tool catalog per request: toolsearch's ToolIndex (what routing and the
// gateway's search_tools use) against a naive linear scoring (every tool's text tokenized and
// scored for every request, no index), side by side in one process.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ToolIndex, toolTerms, type SearchableTool } from '../src/toolsearch/index.js';
import { type BenchContext, type BenchReport, PROJECT_ROOT, median, round } from './_harness.js';

const CATALOG_SIZE = 1_000;
const WARMUP_ROUNDS = 1;
const ROUNDS = 5;
const CATALOGS = [
  'examples/routing/github/github-mcp-server.tools.json',
  'examples/routing/github/other-servers.tools.json',
  'examples/routing/shop.tools.json',
  'examples/routing/confusable.tools.json',
  'examples/routing/unrelated.tools.json',
];
const CONFIGS = ['examples/routing/config.yaml', 'examples/routing/github/config.yaml'];
// Copies of the real tools are told apart by a word, so their texts are not identical.
const COPY_WORDS = ['', 'staging', 'archive', 'mirror'];

/** 1,000 tools: the 264 real tools of the routing examples, then renamed copies of them. */
function catalog(): SearchableTool[] {
  const real = CATALOGS.flatMap((file) => (JSON.parse(readFileSync(`${PROJECT_ROOT}${file}`, 'utf8')) as { tools: SearchableTool[] }).tools);
  const tools: SearchableTool[] = [];
  for (const word of COPY_WORDS) {
    for (const tool of real) {
      if (tools.length === CATALOG_SIZE) return tools;
      tools.push(word === '' ? tool : { ...tool, name: `${tool.name}_${word}`, description: `${tool.description ?? ''} (${word} copy)` });
    }
  }
  return tools;
}

function queries(): string[] {
  return CONFIGS.flatMap((file) => (parse(readFileSync(`${PROJECT_ROOT}${file}`, 'utf8')) as { requests: Array<{ text: string }> }).requests.map((request) => request.text));
}

/**
 * The naive way: for each request, tokenize every tool's name and description and score BM25
 * (k1 1.2, b 0.75) in two linear passes over the catalog, then sort. No index, nothing kept
 * between requests, no stemming or field boosts: the floor a ranking without an index pays.
 */
function naiveRank(query: string, tools: readonly SearchableTool[]): string[] {
  const queryTerms = [...new Set(toolTerms(query))];
  const documents = tools.map((tool) => toolTerms(`${tool.name} ${tool.description ?? ''}`));
  const averageLength = documents.reduce((sum, terms) => sum + terms.length, 0) / documents.length;
  const documentFrequency = new Map<string, number>();
  for (const terms of documents) for (const term of new Set(terms)) if (queryTerms.includes(term)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const scored = documents.map((terms, index) => {
    let score = 0;
    for (const term of queryTerms) {
      const frequency = terms.filter((word) => word === term).length;
      if (frequency === 0) continue;
      const df = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (documents.length - df + 0.5) / (df + 0.5));
      score += (idf * frequency * 2.2) / (frequency + 1.2 * (0.25 + (0.75 * terms.length) / averageLength));
    }
    return { name: tools[index]!.name, score };
  });
  return scored.filter((entry) => entry.score > 0).sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1)).map((entry) => entry.name);
}

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  const tools = catalog();
  const texts = queries();
  const buildMs: number[] = [];
  let index: ToolIndex | undefined;
  const ours: number[] = [];
  const naive: number[] = [];
  let sameFirst = 0;
  for (let roundIndex = 0; roundIndex < WARMUP_ROUNDS + ROUNDS; roundIndex++) {
    const timed = roundIndex >= WARMUP_ROUNDS;
    progress(`${timed ? `round ${roundIndex - WARMUP_ROUNDS + 1}/${ROUNDS}` : 'warm-up'}`);
    const started = performance.now();
    index = new ToolIndex(tools, { minScore: 0 });
    if (timed) buildMs.push(performance.now() - started);
    for (const [position, query] of texts.entries()) {
      // Alternate which runs first, query by query, so neither always runs on a warmer cache.
      const order = (roundIndex + position) % 2 === 0 ? ['ours', 'naive'] : ['naive', 'ours'];
      let first: [string | undefined, string | undefined] = [undefined, undefined];
      for (const contender of order) {
        const mark = performance.now();
        if (contender === 'ours') first = [index!.search(query, { limit: tools.length })[0]?.name, first[1]];
        else first = [first[0], naiveRank(query, tools)[0]];
        const ms = performance.now() - mark;
        if (timed) (contender === 'ours' ? ours : naive).push(ms);
      }
      if (timed && roundIndex === WARMUP_ROUNDS && first[0] === first[1]) sameFirst += 1;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const oursMs = median(ours);
  const naiveMs = median(naive);
  return {
    title: `BM25 ranking of a ${CATALOG_SIZE.toLocaleString('en-US')}-tool catalog per request: ToolIndex against naive linear scoring`,
    table: {
      columns: ['ranking', 'median ms / request', 'p90 ms', 'vs ToolIndex'],
      rows: [
        ['ToolIndex.search (index built once)', round(oursMs, 3), round(percentile(ours, 0.9), 3), '1x'],
        ['naive linear BM25 (no index)', round(naiveMs, 3), round(percentile(naive, 0.9), 3), `${round(naiveMs / oursMs, 1)}x`],
        ['ToolIndex build (once per catalog)', round(median(buildMs), 1), round(percentile(buildMs, 0.9), 1), ''],
      ],
    },
    figures: {
      tools: tools.length,
      requests: texts.length,
      rounds: ROUNDS,
      toolIndexMedianMs: round(oursMs, 4),
      naiveMedianMs: round(naiveMs, 4),
      ratioNaiveOverToolIndex: round(naiveMs / oursMs, 2),
      buildMedianMs: round(median(buildMs), 2),
      sameFirstTool: sameFirst,
      samplesMs: { toolIndex: ours.map((value) => round(value, 4)), naive: naive.map((value) => round(value, 4)), build: buildMs.map((value) => round(value, 2)) },
    },
    notes: [
      `${tools.length} tools: the 264 real tools of examples/routing (github-mcp-server, seven other servers, the shop domain and its pools), then copies renamed with a word; ${texts.length} requests: those of examples/routing/config.yaml and examples/routing/github/config.yaml.`,
      `Per request the whole catalog is ranked (limit ${tools.length}, minScore 0), as routing does for recall@k; ${ROUNDS} rounds after ${WARMUP_ROUNDS} warm-up, the order of the two swapped request by request.`,
      `The naive scoring has no stemming, field boosts or vocabulary: it is the cost floor of ranking without an index, not a ranking to use. Same first tool on ${sameFirst} of ${texts.length} requests.`,
    ],
  };
}

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
}
