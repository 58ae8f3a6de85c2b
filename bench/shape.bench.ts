// mcpctx/shape on a real payload: the pull-requests example (examples/pull-requests) before and
// after shaping, the same summaries in four text formats, and the token-budget pager against one
// countTokens of the same records, side by side in one process.
import { pathToFileURL } from 'node:url';
import { BoundedStdioTransport, Deadline, RawClient, initialize, listAllTools } from '../src/mcp/index.js';
import {
  CursorCodec,
  pageByTokens,
  toCompactJson,
  toCsv,
  toToon,
  type Projection,
  type TextToolResult,
  type TokenPageResult,
} from '../src/shape/index.js';
import { TOKENIZER, countTokens } from '../src/tokens/index.js';
import { type BenchContext, type BenchReport, PROJECT_ROOT, median, round } from './_harness.js';

const EXAMPLE = 'examples/pull-requests';
const SERVER = `${PROJECT_ROOT}${EXAMPLE}/server.js`;
/** The pull request `get_pull_request` is measured on: the longest body of the recording. */
const GET_NUMBER = 233;
const PAGER_RECORDS = 10_000;
const WARMUP_RUNS = 2;
const WALK_RUNS = 15;
const FIRST_PAGE_RUNS = 25;
const CALL_TIMEOUT_MS = 60_000;
/** Fixed, so that cursors (and so the page token counts) are the same on every run. */
const BENCH_KEY = 'mcpctx-bench-shape-fixed-key-32b';

type Row = Record<string, unknown>;

interface PullRecord {
  number: number;
  [key: string]: unknown;
}

/** What the bench uses of examples/pull-requests/pulls.js (plain JavaScript, loaded at run time). */
interface PullsModule {
  DEFAULT_DATA_PATH: string;
  PAGE_TOKENS: number;
  ENVELOPE_RESERVE: number;
  BODY_PREVIEW_CHARS: number;
  BODY_MAX_CHARS: number;
  loadPullRequests(path: string): Promise<{ pulls: PullRecord[]; revision: string }>;
  summaryProjection(pulls: readonly PullRecord[]): Projection;
  beforePage(options: { pulls: readonly PullRecord[] }): { text: string; result: TextToolResult };
  listPage(options: {
    pulls: readonly PullRecord[];
    revision: string;
    cursor?: string | undefined;
    codec: CursorCodec;
    budget?: number;
    reserve?: number;
  }): TokenPageResult<Row>;
  getPullRequest(options: { pulls: readonly PullRecord[]; number: number }): { found: boolean; result: TextToolResult };
}

async function loadPullsModule(): Promise<PullsModule> {
  // A variable specifier: the module is JavaScript without declarations; the interface above is its contract.
  const specifier = pathToFileURL(`${PROJECT_ROOT}${EXAMPLE}/pulls.js`).href;
  return (await import(specifier)) as PullsModule;
}

function onlyText(result: { content?: unknown }): string {
  const blocks = result.content as Array<{ type?: string; text?: unknown }> | undefined;
  const text = blocks?.[0]?.text;
  if (blocks?.length !== 1 || typeof text !== 'string') throw new Error(`expected one text block, got ${JSON.stringify(result).slice(0, 300)}`);
  return text;
}

function percent(part: number, whole: number): string {
  return `${round((100 * part) / whole, 2)}%`;
}

function ratio(value: number, reference: number): string {
  const quotient = value / reference;
  return `${round(quotient, quotient < 0.1 ? 4 : 2)}x`;
}

// ---- 1. before and after, in process (deterministic) and on the wire (this run's cursors) ----

interface WireFigures {
  catalogTokens: number;
  textTokens: number[];
  structuredTokens: number[];
  texts: string[];
}

async function overStdio(mode: 'before' | 'after', calls: (call: (name: string, args: Row) => Promise<Row>) => Promise<void>): Promise<number> {
  const transport = new BoundedStdioTransport({ command: process.execPath, args: [SERVER, mode], env: {} });
  const client = new RawClient(transport);
  let catalogTokens: number;
  try {
    await client.start();
    await initialize(client, { deadline: new Deadline(CALL_TIMEOUT_MS, 'initialize') });
    const { tools } = await listAllTools(client, { deadline: new Deadline(CALL_TIMEOUT_MS, 'tools/list') });
    await calls(async (name, args) => (await client.request('tools/call', { name, arguments: args }, new Deadline(CALL_TIMEOUT_MS, name))) as Row);
    catalogTokens = countTokens(JSON.stringify(tools));
  } finally {
    await transport.shutdown();
  }
  const status = await transport.shutdown(); // idempotent: the status of the shutdown above
  if (status.code !== 0) throw new Error(`the ${mode} server exited with ${JSON.stringify(status)}; stderr: ${transport.stderrTail}`);
  return catalogTokens;
}

async function wireBefore(): Promise<WireFigures> {
  const figures: WireFigures = { catalogTokens: 0, textTokens: [], structuredTokens: [], texts: [] };
  figures.catalogTokens = await overStdio('before', async (call) => {
    const result = await call('list_pull_requests', {});
    const text = onlyText(result);
    figures.texts.push(text);
    figures.textTokens.push(countTokens(text));
    figures.structuredTokens.push(countTokens(JSON.stringify(result.structuredContent)));
  });
  return figures;
}

async function wireAfter(): Promise<WireFigures & { getText: string }> {
  const figures = { catalogTokens: 0, textTokens: [] as number[], structuredTokens: [] as number[], texts: [] as string[], getText: '' };
  figures.catalogTokens = await overStdio('after', async (call) => {
    let cursor: string | null = null;
    do {
      const result = await call('list_pull_requests', cursor === null ? {} : { cursor });
      if (result.isError === true || result.structuredContent !== undefined) throw new Error(`unexpected page: ${JSON.stringify(result).slice(0, 300)}`);
      const text = onlyText(result);
      figures.texts.push(text);
      figures.textTokens.push(countTokens(text));
      cursor = (JSON.parse(text) as { next_cursor: string | null }).next_cursor;
    } while (cursor !== null && figures.texts.length < 100);
    figures.getText = onlyText(await call('get_pull_request', { number: GET_NUMBER }));
  });
  return figures;
}

function withoutCursor(text: string): unknown {
  return { ...(JSON.parse(text) as Row), next_cursor: null };
}

// ---- 3. the pager against one count of the same records ----

/** `count` records cycled from the 30 summaries, each with its own number (and URL), newest first. */
function manyRecords(rows: readonly Row[], count: number): Row[] {
  return Array.from({ length: count }, (_, index) => {
    const row = rows[index % rows.length] as Row;
    const number = count - index;
    const url = typeof row.html_url === 'string' ? row.html_url.replace(/\/\d+$/, `/${number}`) : row.html_url;
    return { ...row, number, html_url: url };
  });
}

interface Walk {
  pages: number;
  tokens: number;
  maxPageTokens: number;
}

function walkAll(items: readonly Row[], codec: CursorCodec): Walk {
  const binding = { query: { tool: 'list_pull_requests', state: 'all' }, revision: 'bench' };
  let cursor: string | undefined;
  const walk: Walk = { pages: 0, tokens: 0, maxPageTokens: 0 };
  do {
    const page = pageByTokens({ items, budget: 4000, reserve: 150, cursor, codec, binding });
    walk.pages += 1;
    walk.tokens += page.tokens;
    walk.maxPageTokens = Math.max(walk.maxPageTokens, page.tokens);
    cursor = page.page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return walk;
}

function timed<T>(call: () => T): { ms: number; value: T } {
  const started = performance.now();
  const value = call();
  return { ms: performance.now() - started, value };
}

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  const pulls = await loadPullsModule();
  const { pulls: records, revision } = await pulls.loadPullRequests(pulls.DEFAULT_DATA_PATH);
  const codec = new CursorCodec({ key: BENCH_KEY });

  // 1. In process, with a fixed cursor key.
  progress('reduction: before and after on the recording');
  const before = pulls.beforePage({ pulls: records });
  const beforeText = countTokens(before.text);
  const beforeStructured = countTokens(JSON.stringify(before.result.structuredContent));
  const beforeWire = beforeText + beforeStructured;
  const pages: Array<TokenPageResult<Row>> = [];
  for (let cursor: string | undefined; pages.length === 0 || cursor !== undefined; ) {
    const page = pulls.listPage({ pulls: records, revision, cursor, codec });
    pages.push(page);
    cursor = page.page.next_cursor ?? undefined;
  }
  const afterTotal = pages.reduce((sum, page) => sum + page.tokens, 0);
  const get = pulls.getPullRequest({ pulls: records, number: GET_NUMBER });
  if (!get.found) throw new Error(`#${GET_NUMBER} is not in the recording`);
  const getText = onlyText(get.result);
  const getTokens = countTokens(getText);

  // The same tools over stdio: the texts must be the ones computed above (cursors aside: each
  // server process has its own random key, so its cursors, and their tokens, differ per run).
  progress('reduction: the same calls over stdio');
  const wireB = await wireBefore();
  const wireA = await wireAfter();
  if (wireB.texts[0] !== before.text || wireB.structuredTokens[0] !== beforeStructured) throw new Error('before: the wire differs from pulls.js');
  if (wireA.texts.length !== pages.length || wireA.texts.some((text, index) => JSON.stringify(withoutCursor(text)) !== JSON.stringify(withoutCursor(pages[index]?.text ?? '')))) {
    throw new Error('after: the wire pages differ from pulls.js');
  }
  if (wireA.getText !== getText) throw new Error('get_pull_request: the wire differs from pulls.js');
  const wireAfterTotal = wireA.textTokens.reduce((sum, tokens) => sum + tokens, 0);

  // 2. The 30 summaries in four formats.
  progress('formats');
  const projection = pulls.summaryProjection(records);
  const rows = records.map((record) => projection.apply(record));
  const formats = [
    { label: 'JSON, indented (2 spaces)', text: JSON.stringify(rows, null, 2) },
    { label: 'JSON, compact', text: toCompactJson(rows) },
    { label: 'TOON', text: toToon(rows) },
    { label: 'CSV', text: toCsv(rows) },
  ].map((format) => ({ ...format, bytes: Buffer.byteLength(format.text), tokens: countTokens(format.text) }));
  const indented = formats[0]?.tokens ?? 1;

  // 3. Walking every page of 10,000 records against one countTokens of them, interleaved.
  progress(`pager: ${PAGER_RECORDS.toLocaleString('en-US')} records`);
  const many = manyRecords(rows, PAGER_RECORDS);
  const manyText = JSON.stringify(many);
  const walkMs: number[] = [];
  const countMs: number[] = [];
  const firstPageMs: number[] = [];
  let walk: Walk | undefined;
  let wholeTokens = 0;
  const firstPage = () => pageByTokens({ items: many, budget: 4000, reserve: 150, codec, binding: { query: { tool: 'list_pull_requests', state: 'all' }, revision: 'bench' } });
  for (let round = 0; round < WARMUP_RUNS; round += 1) {
    walkAll(many, codec);
    countTokens(manyText);
    firstPage();
  }
  for (let round = 0; round < WALK_RUNS; round += 1) {
    progress(`pager round ${round + 1}/${WALK_RUNS}`);
    const doWalk = () => {
      const { ms, value } = timed(() => walkAll(many, codec));
      walkMs.push(ms);
      walk = value;
    };
    const doCount = () => {
      const { ms, value } = timed(() => countTokens(manyText));
      countMs.push(ms);
      wholeTokens = value;
    };
    // Swap the order every round so neither always runs first.
    if (round % 2 === 0) {
      doWalk();
      doCount();
    } else {
      doCount();
      doWalk();
    }
  }
  let firstPageTokens = 0;
  for (let round = 0; round < FIRST_PAGE_RUNS; round += 1) {
    const { ms, value } = timed(firstPage);
    firstPageMs.push(ms);
    firstPageTokens = value.tokens;
  }
  if (walk === undefined) throw new Error('no walk ran');
  const walkMedian = median(walkMs);
  const countMedian = median(countMs);
  // Each round's walk and count ran back to back: the median of their ratios is less exposed to
  // a machine that speeds up or slows down across rounds than the ratio of the two medians.
  const pairedRatio = median(walkMs.map((ms, index) => ms / (countMs[index] ?? Number.NaN)));
  const firstPageMedian = median(firstPageMs);

  const rowsOut: Array<Array<string | number>> = [
    ['before: list_pull_requests, text block', 1, beforeText, '100%'],
    ['before: the same as structuredContent', 1, beforeStructured, percent(beforeStructured, beforeText)],
    ['before: on the wire (text + structured)', 1, beforeWire, percent(beforeWire, beforeText)],
    ...pages.map((page, index): Array<string | number> => [
      `after: page ${index + 1} (PRs ${page.start + 1}-${page.end})`,
      1,
      page.tokens,
      percent(page.tokens, beforeText),
    ]),
    [`after: all ${pages.length} pages (30 PRs)`, pages.length, afterTotal, percent(afterTotal, beforeText)],
    [`after: get_pull_request #${GET_NUMBER} (longest body)`, 1, getTokens, percent(getTokens, beforeText)],
    ['tools/list: before (1 tool)', '-', wireB.catalogTokens, '-'],
    ['tools/list: after (2 tools)', '-', wireA.catalogTokens, '-'],
    ...formats.map((format): Array<string | number> => [`30 summaries as ${format.label}`, '-', format.tokens, ratio(format.tokens, indented)]),
    [
      `pageByTokens: every page of ${PAGER_RECORDS.toLocaleString('en-US')} records (ms)`,
      walk.pages,
      round(walkMedian, 1),
      ratio(walkMedian, countMedian),
    ],
    [`pageByTokens: first page only (ms)`, 1, round(firstPageMedian, 2), ratio(firstPageMedian, countMedian)],
    [`countTokens of the same records, once (ms)`, '-', round(countMedian, 1), '1x'],
  ];

  return {
    title:
      'mcpctx/shape on the real 30-PR recording (o200k tokens): before vs after shaping, four text formats, ' +
      `and pageByTokens over ${PAGER_RECORDS.toLocaleString('en-US')} records vs one countTokens (median of ${WALK_RUNS} interleaved runs)`,
    table: { columns: ['case', 'pages', 'tokens (or ms)', 'vs before text / indented JSON / countTokens'], rows: rowsOut },
    figures: {
      tokenizer: TOKENIZER,
      data: { path: `${EXAMPLE}/data/pulls.json`, revision, records: records.length, bytes: Buffer.byteLength(before.text) },
      reduction: {
        before: { textTokens: beforeText, structuredTokens: beforeStructured, wireTokens: beforeWire },
        after: {
          pageBudget: pulls.PAGE_TOKENS,
          envelopeReserve: pulls.ENVELOPE_RESERVE,
          bodyPreviewChars: pulls.BODY_PREVIEW_CHARS,
          pages: pages.map((page) => ({ records: page.end - page.start, tokens: page.tokens })),
          totalTokens: afterTotal,
          percentOfBeforeText: round((100 * afterTotal) / beforeText, 2),
          percentOfBeforeWire: round((100 * afterTotal) / beforeWire, 2),
          cursorKey: 'fixed (bench); the server draws a random key per process',
        },
        get: { number: GET_NUMBER, bodyMaxChars: pulls.BODY_MAX_CHARS, tokens: getTokens, percentOfBeforeText: round((100 * getTokens) / beforeText, 2) },
        wire: {
          beforeTextTokens: wireB.textTokens[0],
          beforeStructuredTokens: wireB.structuredTokens[0],
          afterPageTokens: wireA.textTokens,
          afterTotalTokens: wireAfterTotal,
          catalogTokens: { before: wireB.catalogTokens, after: wireA.catalogTokens, counted: 'compact JSON of the tools array of tools/list' },
        },
      },
      formats: formats.map((format) => ({ format: format.label, bytes: format.bytes, tokens: format.tokens, ratioToIndentedJson: round(format.tokens / indented, 3) })),
      pager: {
        records: PAGER_RECORDS,
        bytes: Buffer.byteLength(manyText),
        wholeTokens,
        budget: 4000,
        reserve: 150,
        pages: walk.pages,
        pageTokensSum: walk.tokens,
        maxPageTokens: walk.maxPageTokens,
        warmupRuns: WARMUP_RUNS,
        runs: WALK_RUNS,
        walkAllPages: { medianMs: round(walkMedian, 2), samplesMs: walkMs.map((ms) => round(ms, 2)) },
        countTokensOnce: { medianMs: round(countMedian, 2), samplesMs: countMs.map((ms) => round(ms, 2)) },
        firstPage: { runs: FIRST_PAGE_RUNS, tokens: firstPageTokens, medianMs: round(firstPageMedian, 3), samplesMs: firstPageMs.map((ms) => round(ms, 3)) },
        ratioWalkOverCount: round(walkMedian / countMedian, 2),
        medianOfPairedRatios: round(pairedRatio, 2),
        ratioFirstPageOverCount: round(firstPageMedian / countMedian, 5),
        target: 'walk / count <= 1.3',
      },
    },
    notes: [
      `before: one call with the defaults returns the whole recording, ${beforeText.toLocaleString('en-US')} tokens of text plus ${beforeStructured.toLocaleString('en-US')} as structuredContent.`,
      `after: ${pages.length} pages, ${afterTotal.toLocaleString('en-US')} tokens in all = ${percent(afterTotal, beforeText)} of the before text (${percent(afterTotal, beforeWire)} of the before wire). ` +
        `Over stdio this run: ${wireA.textTokens.join(' + ')} = ${wireAfterTotal.toLocaleString('en-US')} (each server process draws its own cursor key, so a cursor costs a few tokens more or less).`,
      `Formats: compact JSON ${ratio(formats[1]?.tokens ?? 0, indented)}, TOON ${ratio(formats[2]?.tokens ?? 0, indented)}, CSV ${ratio(formats[3]?.tokens ?? 0, indented)} of indented JSON.`,
      `Pager: walking all ${walk.pages} pages of ${PAGER_RECORDS.toLocaleString('en-US')} records takes ${ratio(walkMedian, countMedian)} the time of one countTokens of them ` +
        `(median of the per-round ratios: ${round(pairedRatio, 2)}x; target <= 1.3x); the first page alone ${ratio(firstPageMedian, countMedian)} (${round(firstPageMedian, 2)} ms).`,
    ],
  };
}
