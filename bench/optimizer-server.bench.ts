// The optimizer's MCP server on a 100,000-record store (bench/optimizer/_generate.ts, seeded, in a
// SQLite file): opening the store and the server (read once and normalized), then
// build_context through the protocol: the first call (which starts the worker and hands it the
// records) and later calls, each with the answer/context ratio in o200k tokens; get_decisions
// while a build runs; an ingest and the build after it. Target (reported, not asserted): a later
// build_context under 10 s.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Deadline, RawClient, initialize } from '../src/mcp/index.js';
import { SqliteRecordStore, createOptimizerServer } from '../src/optimizer/server/index.js';
import { countTokens } from '../src/tokens/index.js';
import { type BenchContext, type BenchReport, round } from './_harness.js';
import { generateSession } from './optimizer/_generate.js';

const RECORDS = 100_000;
const CALL_BUDGET_MS = 10 * 60_000;
const TARGET_LATER_MS = 10_000;
/** First call, then later calls: the default budget again, a small and a large one. */
const CALLS: readonly number[] = [8_000, 8_000, 2_000, 20_000];

interface CallFigures {
  call: string;
  budget: number;
  ms: number;
  contextTokens: number;
  answerTokens: number;
  ratio: number;
  isError: boolean;
}

interface ToolAnswer {
  content: Array<{ text?: string }>;
  isError?: boolean;
}

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-optimizer-server-bench-'));
  try {
    progress(`generating ${RECORDS.toLocaleString('en-US')} records into a SQLite store`);
    const { task, tokenBudget: _budget, ...session } = generateSession(RECORDS);
    const file = join(dir, 'session.db');
    const writer = SqliteRecordStore.open(file);
    writer.add(session);
    writer.close();

    const openStart = performance.now();
    const store = SqliteRecordStore.open(file);
    const storeOpenMs = performance.now() - openStart;
    const serverStart = performance.now();
    const server = createOptimizerServer({ store });
    const serverPrepareMs = performance.now() - serverStart;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new RawClient(clientSide);
    await client.start();
    await initialize(client, { deadline: new Deadline(30_000, 'initialize') });
    const call = async (name: string, args: Record<string, unknown>): Promise<{ answer: ToolAnswer; ms: number }> => {
      const start = performance.now();
      const answer = (await client.request('tools/call', { name, arguments: args }, new Deadline(CALL_BUDGET_MS, name))) as ToolAnswer;
      return { answer, ms: performance.now() - start };
    };
    const measured = (label: string, budget: number, answer: ToolAnswer, ms: number): CallFigures => {
      const blocks = answer.content.map((block) => block.text ?? '');
      const answerTokens = blocks.reduce((sum, text) => sum + countTokens(text), 0);
      if (answer.isError === true) return { call: label, budget, ms, contextTokens: 0, answerTokens, ratio: 0, isError: true };
      // The summary's first block is the context as it is; the second, the rest as JSON.
      const contextTokens = countTokens(blocks[0] ?? '');
      return { call: label, budget, ms, contextTokens, answerTokens, ratio: round(answerTokens / contextTokens, 3), isError: false };
    };

    const calls: CallFigures[] = [];
    try {
      for (const [index, budget] of CALLS.entries()) {
        progress(`build_context ${index === 0 ? 'first call' : `later call ${index}`}, budget ${budget}`);
        const { answer, ms } = await call('build_context', { task, tokenBudget: budget });
        calls.push(measured(index === 0 ? 'first' : `later ${index}`, budget, answer, ms));
      }

      progress('get_decisions while a build runs');
      const arrivals: string[] = [];
      const building = call('build_context', { task, tokenBudget: 8_000 }).then((outcome) => {
        arrivals.push('build_context');
        return outcome;
      });
      const decisions = await call('get_decisions', { limit: 20 });
      arrivals.push('get_decisions');
      const concurrentBuild = await building;

      progress('ingest one batch, then build_context');
      const ingest = await call('ingest_records', {
        messages: [{ role: 'user', text: `Still failing after the last change: ${task}`, timestamp: '2026-12-01T12:00:00Z' }],
      });
      const afterIngest = await call('build_context', { task, tokenBudget: 8_000 });
      calls.push(measured('after ingest', 8_000, afterIngest.answer, afterIngest.ms));

      const later = calls.filter((entry) => entry.call !== 'first');
      const slowestLater = Math.max(...later.map((entry) => entry.ms));
      const ratios = calls.filter((entry) => !entry.isError).map((entry) => entry.ratio);
      return {
        title: `The optimizer's MCP server on a ${RECORDS.toLocaleString('en-US')}-record SQLite store: build_context through the protocol (in process, in-memory transport)`,
        table: {
          columns: ['call', 'tokenBudget', 'ms', 'context tokens', 'answer tokens', 'answer/context', 'refused'],
          rows: calls.map((entry) => [entry.call, entry.budget, round(entry.ms, 0), entry.contextTokens, entry.answerTokens, entry.ratio, entry.isError ? 'yes' : 'no']),
        },
        figures: {
          records: RECORDS,
          generator: 'bench/optimizer/_generate.ts (seeded)',
          storeOpenMs: round(storeOpenMs, 0),
          serverPrepareMs: round(serverPrepareMs, 0),
          calls,
          getDecisionsDuringBuild: { ms: round(decisions.ms, 0), arrivedFirst: arrivals[0] === 'get_decisions', buildMs: round(concurrentBuild.ms, 0) },
          ingestMs: round(ingest.ms, 0),
          slowestLaterMs: round(slowestLater, 0),
          maxRatio: Math.max(...ratios),
          targets: { laterCallUnderMs: TARGET_LATER_MS, laterCallMet: slowestLater < TARGET_LATER_MS },
        },
        notes: [
          `Store open (quick_check, every row read and checked): ${round(storeOpenMs, 0).toLocaleString('en-US')} ms; server start (records normalized; the search index then fills in the background): ${round(serverPrepareMs, 0).toLocaleString('en-US')} ms.`,
          `Slowest later build_context: ${round(slowestLater, 0).toLocaleString('en-US')} ms (target < ${TARGET_LATER_MS.toLocaleString('en-US')} ms: ${slowestLater < TARGET_LATER_MS ? 'met' : 'NOT met'}); the time is the library's buildContext in the worker.`,
          `Answer/context ratio (o200k tokens of the answer's blocks, the context as plain text and the summary's JSON, over those of the context): at most ${Math.max(...ratios)}; an answer near the 25,000 cap leaves its source rows out.`,
          `get_decisions sent while a build ran answered in ${round(decisions.ms, 0)} ms, ${arrivals[0] === 'get_decisions' ? 'before' : 'AFTER'} the build (${round(concurrentBuild.ms, 0)} ms). An ingest of one record took ${round(ingest.ms, 0)} ms (every record is normalized again: see the README).`,
        ],
      };
    } finally {
      await client.close();
      await server.close();
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
