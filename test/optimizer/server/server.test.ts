// `mcpctx optimizer serve` over real stdio (the built CLI, run `npm run build` first): ingest,
// search, lookups and build_context against the library's own answer; a malformed or clashing
// batch stores nothing; the SQLite store survives a restart; no result passes the 25k cap;
// stdout carries protocol frames only, the server exits when stdin closes, and nothing leaks.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ExitStatus } from '../../../src/mcp/index.js';
import { normalizePath } from '../../../src/optimizer/_paths.js';
import { mentionsPath, samePath, type SearchHit } from '../../../src/optimizer/server/_server-tools.js';
import type * as ServerEntry from '../../../src/optimizer/server/index.js';
import { jsonResult } from '../../../src/optimizer/server/_server.js';
import { ContextOptimizer, parseSourceTags, type ContextResult, type SessionRecords } from '../../../src/optimizer/index.js';
import { startSession } from '../../support/mcp-session.js';
import { markedEnv, waitForNoMarkedProcesses } from '../../support/processes.js';
import { countTokens } from '../../../src/tokens/index.js';
import { summaryOf } from './_in-process.js';

const CLI = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));
const CALL_BUDGET_MS = 30_000;
const tempDir = mkdtempSync(join(tmpdir(), 'mcpctx-optimizer-server-'));

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

interface Server {
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  toolNames(): Promise<string[]>;
  /** Ends stdin and waits for the exit; also reports any stdout line that was not JSON-RPC. */
  close(): Promise<{ status: ExitStatus; noiseLines: number; stderr: string }>;
}

const running: Server[] = [];

async function startServer(store?: string): Promise<Server> {
  const args = [CLI, 'optimizer', 'serve', ...(store === undefined ? [] : ['--store', store])];
  const session = await startSession(args, {}, { maxFrameBytes: 64 * 1024 * 1024 });
  const server: Server = {
    call: async (name, callArgs = {}) => (await session.call(name, callArgs)) as ToolResult,
    toolNames: async () => (await session.listTools()).map((tool) => tool.name),
    close: async () => {
      const status = await session.close();
      return { status, noiseLines: session.noiseLines(), stderr: session.stderr() };
    },
  };
  running.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  rmSync(tempDir, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

function ok<T>(result: ToolResult): T {
  expect(result.isError, JSON.stringify(result).slice(0, 2000)).not.toBe(true);
  // Text only: a structured copy would be paid for twice.
  expect(result.structuredContent).toBeUndefined();
  expect(result.content).toHaveLength(1);
  return JSON.parse(result.content[0]?.text ?? '') as T;
}

function refusal(result: ToolResult): string {
  expect(result.isError, JSON.stringify(result).slice(0, 2000)).toBe(true);
  return result.content[0]?.text ?? '';
}

/** The library's result as it travels: JSON has no -0, so a zero contribution arrives as 0. */
function asSent<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

async function total(server: Server): Promise<number> {
  return ok<{ added: number; total: number }>(await server.call('ingest_records', {})).total;
}

// A small debugging session. Arrays in the input format's order, so origins match the library's.
const SESSION = {
  messages: [
    {
      id: 'msg-task',
      role: 'user',
      text: 'The parser crashes on empty input. Fix parseExpression in src/parser.ts; do not change the public API.',
      timestamp: '2026-11-30T09:00:00Z',
    },
  ],
  toolOutputs: [
    {
      id: 'run-test',
      command: 'npm test',
      output: "FAIL test/parser.test.ts\n  x parses empty input\nTypeError: Cannot read properties of undefined (reading 'kind')\n    at parseExpression (src/parser.ts:42:17)",
      exitCode: 1,
      timestamp: '2026-11-30T09:01:00Z',
    },
    { id: 'run-lint', command: 'npm run lint', output: 'no problems found', exitCode: 0, timestamp: '2026-11-30T09:01:05Z' },
  ],
  errors: [
    {
      id: 'err-parse',
      message: "TypeError: Cannot read properties of undefined (reading 'kind')",
      stack: 'at parseExpression (C:\\repo\\src\\parser.ts:42:17)\nat Object.<anonymous> (C:\\repo\\test\\parser.test.ts:7:5)',
      timestamp: '2026-11-30T09:01:30Z',
    },
    { id: 'err-config', message: "ENOENT: no such file or directory, open 'config.json'", timestamp: '2026-11-30T09:06:00Z' },
    { id: 'err-tsx', message: 'SyntaxError: Unexpected token in src/parser.tsx:3:1', timestamp: '2026-11-30T09:07:00Z' },
  ],
  files: [
    { id: 'file-parser-1', path: 'src/parser.ts', content: 'export function parseExpression(tokens) {\n  return tokens[0].kind;\n}\n', timestamp: '2026-11-30T09:00:30Z' },
    {
      id: 'file-parser-2',
      path: 'src\\parser.ts',
      content: 'export function parseExpression(tokens) {\n  if (tokens.length === 0) return { kind: "empty" };\n  return tokens[0].kind;\n}\n',
      timestamp: '2026-11-30T09:05:00Z',
    },
    { id: 'file-lexer', path: 'src/lexer.ts', content: 'export function lex(text) {\n  return text.split(" ");\n}\n', timestamp: '2026-11-30T09:00:40Z' },
  ],
  diffs: [
    {
      id: 'diff-parser',
      path: './src/parser.ts',
      diff: '@@ -1,3 +1,4 @@\n export function parseExpression(tokens) {\n+  if (tokens.length === 0) return { kind: "empty" };\n   return tokens[0].kind;\n',
      timestamp: '2026-11-30T09:04:00Z',
    },
  ],
  testResults: [
    { id: 'test-empty', name: 'parser parses empty input', status: 'failed', output: "TypeError: Cannot read properties of undefined (reading 'kind')", timestamp: '2026-11-30T09:01:10Z' },
    { id: 'test-numbers', name: 'parser parses numbers', status: 'passed', timestamp: '2026-11-30T09:01:10Z' },
  ],
  decisions: [
    { id: 'dec-api', text: 'Keep the public API of parseExpression unchanged.', status: 'accepted', timestamp: '2026-11-30T09:02:00Z' },
    { id: 'dec-rewrite', text: 'Rewrite the parser as a Pratt parser.', status: 'rejected', timestamp: '2026-11-30T09:02:30Z' },
    { id: 'dec-empty', text: 'Return an empty node for empty input.', status: 'accepted', timestamp: '2026-11-30T09:03:00Z' },
    { id: 'dec-warn', text: 'Log a warning for empty input.', status: 'proposed', timestamp: '2026-11-30T09:03:30Z' },
  ],
} satisfies SessionRecords;

const INGESTED_IDS = new Set(Object.values(SESSION).flatMap((records: Array<{ id: string }>) => records.map((record) => record.id)));
const RECORD_COUNT = INGESTED_IDS.size;
const TASK = 'Fix the parseExpression TypeError on empty input in src/parser.ts';

describe('the mcpctx/optimizer/server entry (built package)', () => {
  // Through the package's own "exports", as a user imports it; variables keep tsc off dist/ types.
  const serverEntry: string = 'mcpctx/optimizer/server';
  const pureEntry: string = 'mcpctx/optimizer';

  it('serves the SQLite store and the MCP server; mcpctx/optimizer no longer exports them', async () => {
    const server = (await import(serverEntry)) as typeof ServerEntry;
    const store = server.SqliteRecordStore.open(join(tempDir, 'entry.db'));
    try {
      expect(store.add({ decisions: [{ id: 'd1', text: 'Keep the public API.', status: 'accepted' }] })).toEqual({ added: 1 });
      expect(typeof server.createOptimizerServer({ store }).connect).toBe('function');
      expect(server.OPTIMIZER_TOOLS.map((tool) => tool.name)).toContain('build_context');
    } finally {
      store.close();
    }
    const pure = (await import(pureEntry)) as Record<string, unknown>;
    expect(Object.keys(pure)).toContain('ContextOptimizer');
    expect(Object.keys(pure)).toContain('MemoryRecordStore');
    for (const moved of ['SqliteRecordStore', 'createOptimizerServer', 'serveOptimizerStdio', 'OPTIMIZER_TOOLS']) expect(Object.keys(pure)).not.toContain(moved);
  });
});

describe('optimizer serve: catalog and process', () => {
  it('offers the six tools, writes nothing but protocol frames on stdout, and exits 0 when stdin closes', async () => {
    const server = await startServer();
    expect((await server.toolNames()).sort()).toEqual(['build_context', 'get_decisions', 'get_file_history', 'get_relevant_errors', 'ingest_records', 'search_context']);
    ok(await server.call('ingest_records', SESSION));
    summaryOf(await server.call('build_context', { task: TASK }));
    running.splice(running.indexOf(server), 1);
    const { status, noiseLines } = await server.close();
    expect(noiseLines).toBe(0);
    expect(status).toEqual({ code: 0, signal: null });
  });

  it('refuses to start on a file that is not a record store: exit 3, the reason on stderr, nothing on stdout', async () => {
    const notes = join(tempDir, 'notes.txt');
    writeFileSync(notes, 'plain notes, not a database\n'.repeat(50));
    const outcome = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [CLI, 'optimizer', 'serve', '--store', notes], { env: markedEnv(), timeout: CALL_BUDGET_MS }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr }),
      );
      child.stdin?.end();
    });
    expect(outcome.code).toBe(3);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toContain('is not an mcpctx record store');
  });
});

describe('optimizer serve: ingest, search, build', () => {
  it('ingests a batch and reports added and total', async () => {
    const server = await startServer();
    expect(ok(await server.call('ingest_records', SESSION))).toEqual({ added: RECORD_COUNT, total: RECORD_COUNT });
    expect(ok(await server.call('ingest_records', { messages: [{ role: 'assistant', text: 'Looking at the lexer too.' }] }))).toEqual({ added: 1, total: RECORD_COUNT + 1 });
  });

  it('search_context finds an ingested record with its score and provenance', async () => {
    const server = await startServer();
    ok(await server.call('ingest_records', SESSION));
    const { records, total, hits } = ok<{ records: number; total: number; hits: SearchHit[] }>(await server.call('search_context', { query: 'ENOENT config.json', limit: 3 }));
    expect(records).toBe(RECORD_COUNT);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(total).toBeGreaterThanOrEqual(hits.length);
    const top = hits[0] as SearchHit;
    expect(top).toMatchObject({ recordId: 'err-config', kind: 'error', origin: 'errors[1]', fragmentId: 'err-config#1', label: "ENOENT: no such file or directory, open 'config.json'" });
    expect(top.text).toContain("open 'config.json'");
    expect(top.score).toBeGreaterThan(0);
  });

  it('build_context with detail "full" returns exactly what buildContext returns, its source tags naming ingested records', async () => {
    const server = await startServer();
    ok(await server.call('ingest_records', SESSION));
    const result = ok<ContextResult>(await server.call('build_context', { task: TASK, tokenBudget: 2_000, detail: 'full' }));
    expect(result).toEqual(asSent(new ContextOptimizer().buildContext({ ...SESSION, task: TASK, tokenBudget: 2_000 })));
    const tags = parseSourceTags(result.context);
    expect(tags.length).toBeGreaterThan(0);
    for (const tag of tags) expect(INGESTED_IDS.has(tag.recordId), tag.recordId).toBe(true);
    expect(result.sources.map((source) => source.fragmentId)).toEqual(tags.map((tag) => tag.fragmentId));
    // Accepted decisions are mandatory: they are always in.
    expect(tags.map((tag) => tag.recordId)).toEqual(expect.arrayContaining(['dec-api', 'dec-empty']));
  });

  it('build_context passes its session on, and builds again after an ingest from the records as they are then', async () => {
    const server = await startServer();
    ok(await server.call('ingest_records', SESSION));
    const scoped = ok<ContextResult>(await server.call('build_context', { task: TASK, tokenBudget: 2_000, detail: 'full', session: 'other-session' }));
    expect(scoped).toEqual(asSent(new ContextOptimizer().buildContext({ ...SESSION, task: TASK, tokenBudget: 2_000, session: 'other-session' })));
    expect(scoped.report.mandatory.scope).toEqual(asSent(new ContextOptimizer().buildContext({ ...SESSION, task: TASK, session: 'other-session' })).report.mandatory.scope);
    const later = { messages: [{ id: 'late-note', role: 'user' as const, text: 'Also you must keep the retry limit at 3 in the parser.' }] };
    ok(await server.call('ingest_records', later));
    const after = ok<ContextResult>(await server.call('build_context', { task: TASK, tokenBudget: 2_000, detail: 'full' }));
    const both = { ...SESSION, messages: [...(SESSION.messages ?? []), ...later.messages] };
    expect(after).toEqual(asSent(new ContextOptimizer().buildContext({ ...both, task: TASK, tokenBudget: 2_000 })));
    expect(refusal(await server.call('build_context', { task: TASK, session: '' }))).toContain('session');
  });

  it('refuses bad task and budget arguments before doing any work', async () => {
    const server = await startServer();
    expect(refusal(await server.call('build_context', { task: '' }))).toContain('task');
    expect(refusal(await server.call('build_context', { task: TASK, tokenBudget: 1_000_001 }))).toContain('tokenBudget');
    expect(refusal(await server.call('build_context', { task: TASK, tokenBudget: 2.5 }))).toContain('tokenBudget');
    expect(refusal(await server.call('search_context', { query: 'x', limit: 101 }))).toContain('limit');
    expect(refusal(await server.call('search_context', { query: 'x'.repeat(10_001) }))).toContain('query');
  });
});

describe('optimizer serve: refused batches store nothing', () => {
  it('refuses a batch whose second tool output has exitCode "1", naming toolOutputs[1].exitCode; the count is unchanged', async () => {
    const server = await startServer();
    ok(await server.call('ingest_records', SESSION));
    const message = refusal(
      await server.call('ingest_records', {
        messages: [{ role: 'user', text: 'this one is fine' }],
        toolOutputs: [
          { command: 'ls', output: 'src test' },
          { command: 'npm test', output: 'FAIL', exitCode: '1' },
        ],
      }),
    );
    expect(message).toContain('toolOutputs[1].exitCode');
    expect(message).toContain('Nothing was stored');
    expect(await total(server)).toBe(RECORD_COUNT);
  });

  it('refuses a batch reusing a stored id, naming the record; the count is unchanged', async () => {
    const server = await startServer();
    ok(await server.call('ingest_records', SESSION));
    const message = refusal(
      await server.call('ingest_records', {
        decisions: [
          { text: 'A new decision', status: 'proposed' },
          { text: 'Same id as before', status: 'accepted', id: 'dec-api' },
        ],
      }),
    );
    expect(message).toContain('decisions[1].id');
    expect(message).toContain('"dec-api"');
    expect(await total(server)).toBe(RECORD_COUNT);
  });

  it('refuses a key that is not part of the input format instead of dropping it', async () => {
    const server = await startServer();
    expect(refusal(await server.call('ingest_records', { task: 'not a record array' }))).toContain('task');
    expect(await total(server)).toBe(0);
  });
});

describe('optimizer serve: lookups', () => {
  it('get_decisions lists accepted, proposed, rejected, newest first within each, with their ids', async () => {
    const server = await startServer();
    ok(await server.call('ingest_records', SESSION));
    const all = ok<{ total: number; decisions: Array<{ id: string; status: string; text: string }> }>(await server.call('get_decisions'));
    expect(all.total).toBe(4);
    expect(all.decisions.map((decision) => [decision.id, decision.status])).toEqual([
      ['dec-empty', 'accepted'],
      ['dec-api', 'accepted'],
      ['dec-warn', 'proposed'],
      ['dec-rewrite', 'rejected'],
    ]);
    expect(all.decisions[0]?.text).toBe('Return an empty node for empty input.');
    const rejected = ok<{ total: number; decisions: Array<{ id: string }> }>(await server.call('get_decisions', { status: 'rejected' }));
    expect(rejected.decisions.map((decision) => decision.id)).toEqual(['dec-rewrite']);
    const first = ok<{ total: number; decisions: unknown[]; note?: string }>(await server.call('get_decisions', { limit: 1 }));
    expect(first.decisions).toHaveLength(1);
    expect(first.total).toBe(4);
    expect(first.note).toContain('1 of 4');
  });

  it('get_file_history returns snapshots, diffs and errors naming the file, in time order, whatever the separators', async () => {
    const server = await startServer();
    ok(await server.call('ingest_records', SESSION));
    const history = ok<{ total: number; entries: Array<{ id: string; kind: string; text: string }> }>(await server.call('get_file_history', { path: 'src\\parser.ts' }));
    // Not the lexer, not the error about parser.tsx, not the tool output (not an error record).
    expect(history.entries.map((entry) => [entry.id, entry.kind])).toEqual([
      ['file-parser-1', 'file'],
      ['err-parse', 'error'],
      ['diff-parser', 'diff'],
      ['file-parser-2', 'file'],
    ]);
    expect(history.entries[3]?.text).toContain('kind: "empty"');
    const newest = ok<{ total: number; entries: Array<{ id: string }> }>(await server.call('get_file_history', { path: '/repo/src/parser.ts', limit: 2 }));
    expect(newest.total).toBe(4);
    expect(newest.entries.map((entry) => entry.id)).toEqual(['diff-parser', 'file-parser-2']);
  });

  it('get_relevant_errors lists errors, failed tests and non-zero exits newest first, or ranked for a query', async () => {
    const server = await startServer();
    ok(await server.call('ingest_records', SESSION));
    const newest = ok<{ ranking: string; total: number; errors: Array<{ id: string }> }>(await server.call('get_relevant_errors'));
    expect(newest.ranking).toBe('newest');
    expect(newest.errors.map((entry) => entry.id)).toEqual(['err-tsx', 'err-config', 'err-parse', 'test-empty', 'run-test']);
    const ranked = ok<{ ranking: string; hits: SearchHit[] }>(await server.call('get_relevant_errors', { query: 'ENOENT config.json' }));
    expect(ranked.ranking).toBe('query');
    expect(ranked.hits[0]?.recordId).toBe('err-config');
    for (const hit of ranked.hits) expect(['run-lint', 'test-numbers', 'msg-task', 'dec-api']).not.toContain(hit.recordId);
  });
});

describe('optimizer serve: the SQLite store', () => {
  it('keeps the records across a restart: the new server builds the same context and still refuses the old ids', async () => {
    const store = join(tempDir, 'restart', 'session.db');
    const first = await startServer(store);
    ok(await first.call('ingest_records', SESSION));
    running.splice(running.indexOf(first), 1);
    expect((await first.close()).status.code).toBe(0);

    const second = await startServer(store);
    expect(await total(second)).toBe(RECORD_COUNT);
    const result = ok<ContextResult>(await second.call('build_context', { task: TASK, tokenBudget: 2_000, detail: 'full' }));
    expect(result).toEqual(asSent(new ContextOptimizer().buildContext({ ...SESSION, task: TASK, tokenBudget: 2_000 })));
    expect(refusal(await second.call('ingest_records', { errors: [{ message: 'again', id: 'err-parse' }] }))).toContain('errors[0].id');
    expect(await total(second)).toBe(RECORD_COUNT);
  });
});

/** Deterministic filler words, so files differ from each other and are not merged as near duplicates. */
function filler(seed: number, count: number): string {
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'so', 'ti', 'va', 'ze', 'po', 'qua', 'dre'];
  let state = seed * 2654435761;
  const words: string[] = [];
  for (let index = 0; index < count; index++) {
    let word = '';
    for (let part = 0; part < 3; part++) {
      state = (state * 1103515245 + 12345) % 2147483648;
      word += syllables[state % syllables.length];
    }
    words.push(word);
  }
  return words.join(' ');
}

describe('optimizer serve: the 25,000-token cap', () => {
  it('refuses a result over the cap, naming its size, the cap and the argument to change; a smaller one passes', async () => {
    const server = await startServer();
    const files = Array.from({ length: 60 }, (_, index) => ({
      path: `src/parser/part${index}.ts`,
      content: Array.from({ length: 20 }, (_, line) => `parseTokens(${index}, ${line}); // ${filler(index * 100 + line, 12)}`).join('\n'),
    }));
    ok(await server.call('ingest_records', { files }));
    const task = 'fix parseTokens in src/parser';

    const tooLarge = refusal(await server.call('build_context', { task, tokenBudget: 1_000_000 }));
    expect(tooLarge).toMatch(/^RESULT_TOO_LARGE: build_context would return [\d,]+ tokens/);
    expect(Number(/return ([\d,]+) tokens/.exec(tooLarge)?.[1]?.replace(/,/g, ''))).toBeGreaterThan(25_000);
    expect(tooLarge).toContain('cap of 25,000 tokens');
    expect(tooLarge).toContain('smaller tokenBudget');

    const searchTooLarge = refusal(await server.call('search_context', { query: task, limit: 100 }));
    expect(searchTooLarge).toContain('cap of 25,000 tokens');
    expect(searchTooLarge).toContain('smaller limit');

    const fits = summaryOf(await server.call('build_context', { task, tokenBudget: 4_000 }));
    expect(fits.stats.tokensOut).toBeLessThanOrEqual(4_000);
  });

  it('summarizes by default (the context once, a row per source, omissions counted) and gives the whole result with detail "full"', async () => {
    const server = await startServer();
    const messages = Array.from({ length: 40 }, (_, index) => ({ role: 'assistant', text: `unrelated chatter ${filler(index, 8)}` }));
    ok(await server.call('ingest_records', { ...SESSION, messages: [...SESSION.messages, ...messages] }));
    const summary = summaryOf(await server.call('build_context', { task: TASK }));
    const full = ok<ContextResult>(await server.call('build_context', { task: TASK, detail: 'full' }));
    // The context travels as plain text, not escaped inside JSON: the second block does not repeat it.
    const blocks = (await server.call('build_context', { task: TASK })).content.map((block) => block.text ?? '');
    expect(blocks[0]).toBe(full.context);
    expect(blocks[1]).not.toContain('"context"');
    expect(full.omitted.length).toBeGreaterThan(20);
    expect(summary.omitted).toEqual({ total: full.omitted.length, byReason: expect.objectContaining({ 'low-relevance': expect.any(Number) }) });
    expect(Object.values(summary.omitted.byReason).reduce((sum, count) => sum + count, 0)).toBe(full.omitted.length);
    expect(summary.merges).toBe(full.report.dedupe.merges.length);
    expect(summary.context).toBe(full.context);
    expect(summary.stats).toEqual(full.stats);
    expect(summary.sources?.columns).toEqual(['fragmentId', 'tokens', 'score', 'mandatory']);
    const reasons = summary.sources?.mandatoryReasons ?? [];
    expect(summary.sources?.rows.map(([fragmentId, tokens, score, mandatory]) => [fragmentId, tokens, score, mandatory === null ? null : reasons[mandatory]])).toEqual(
      full.sources.map((source) => [source.fragmentId, source.tokens, Math.round(source.score * 10) / 10, source.mandatoryReason ?? null]),
    );
    expect(reasons).toEqual(expect.arrayContaining(['accepted decision']));
    expect(new Set(reasons).size).toBe(reasons.length);
    // Each row's fragment is in the context, its tag naming the record and label.
    const tags = parseSourceTags(summary.context);
    expect(summary.sources?.rows.map((row) => row[0])).toEqual(tags.map((tag) => tag.fragmentId));
    expect(JSON.stringify(summary)).not.toContain('"signals"');
    expect(summary.answerTokens).toBe(countTokens(blocks[0] ?? '') + countTokens(blocks[1] ?? ''));
  });
});

describe('the 25,000-token cap, in process', () => {
  it('refuses a result whose text alone is over the cap without serializing it (its JSON would pass V8\u2019s longest string)', () => {
    const snapshot = 'x'.repeat(4 * 1024 * 1024);
    const history = { path: 'src/a.ts', total: 200, entries: Array.from({ length: 200 }, (_, i) => ({ id: `file-${i}`, text: snapshot })) };
    const result = jsonResult('get_file_history', history, 'Pass a smaller limit: the newest entries are kept.');
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toBe(
      "RESULT_TOO_LARGE: get_file_history would return more than 25,000 tokens, over this server's cap of 25,000 tokens per result, so nothing was returned. Pass a smaller limit: the newest entries are kept.",
    );
    expect(jsonResult('get_file_history', { entries: [{ text: 'small' }] }, '').content[0]?.text).toBe('{"entries":[{"text":"small"}]}');
  });
});

describe('file path matching (get_file_history)', () => {
  it('compares paths across separators, a leading ./ and extra leading folders', () => {
    expect(normalizePath('.\\src\\parser.ts')).toBe('src/parser.ts');
    expect(samePath(normalizePath('src/a/../a/b.rs'), normalizePath('./src/a/b.rs'))).toBe(true);
    expect(samePath(normalizePath('/repo/src/parser.ts'), 'src/parser.ts')).toBe(true);
    expect(samePath('src/parser.ts', normalizePath('C:\\repo\\src\\parser.ts'))).toBe(true);
    expect(samePath('src/parser.ts', 'lib/parser.ts')).toBe(false);
    expect(samePath('src/parser.ts', 'mysrc/parser.ts')).toBe(false);
  });

  it('finds the file in error text by its path or its basename after a separator, not inside a longer name', () => {
    expect(mentionsPath('at parse (C:\\repo\\src\\parser.ts:42:17)', 'src/parser.ts')).toBe(true);
    expect(mentionsPath('failed in /tmp/build/parser.ts.', 'src/parser.ts')).toBe(true);
    expect(mentionsPath('SyntaxError in src/parser.tsx:3:1', 'src/parser.ts')).toBe(false);
    expect(mentionsPath('see src/parser.ts.map', 'src/parser.ts')).toBe(false);
    expect(mentionsPath('the parser.ts file is broken', 'src/parser.ts')).toBe(false);
    expect(mentionsPath('cannot open README.md', 'README.md')).toBe(true);
    expect(mentionsPath('cannot open MYREADME.md', 'README.md')).toBe(false);
  });
});
