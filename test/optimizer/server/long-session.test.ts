// The server on long sessions, in process: build_context's summary costs at most 1.25x its context
// and answers every budget up to the cap; search_context ranks an exact phrase first; calls after
// start do not re-read the store; a slow build_context does not hold up get_decisions; closing the
// server ends its worker.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateSession } from '../../../bench/optimizer/_generate.js';
import { MemoryRecordStore, parseSourceTags, type RecordStore, type SessionRecords } from '../../../src/optimizer/index.js';
import { liveBuildWorkers } from '../../../src/optimizer/server/_builder.js';
import type { SearchHit } from '../../../src/optimizer/server/_server-tools.js';
import { countTokens } from '../../../src/tokens/index.js';
import { answerText, startInProcess, summaryOf, type InProcessServer } from './_in-process.js';

const running: InProcessServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

async function serve(store: RecordStore): Promise<InProcessServer> {
  const server = await startInProcess(store);
  running.push(server);
  return server;
}

function generatedStore(records: number, seed?: number): { store: MemoryRecordStore; task: string } {
  const { task, tokenBudget: _budget, ...session } = generateSession(records, seed);
  const store = new MemoryRecordStore();
  store.add(session);
  return { store, task };
}

describe('build_context on a 10k-record session', () => {
  const { store, task } = generatedStore(10_000);

  it('answers budgets 2,000 to 20,000 with a context each time, the answer at most 1.25x the context', async () => {
    const server = await serve(store);
    const ratios: string[] = [];
    for (const budget of [2_000, 5_000, 10_000, 20_000]) {
      const summary = summaryOf(await server.call('build_context', { task, tokenBudget: budget }));
      expect(summary.context.length).toBeGreaterThan(0);
      expect(summary.sources?.rows.length).toBeGreaterThan(0);
      const ratio = summary.answerTokens / countTokens(summary.context);
      ratios.push(`${budget}: ${ratio.toFixed(3)} (${summary.stats.tokensOut} context tokens)`);
      expect(ratio, `budget ${budget}`).toBeLessThanOrEqual(1.25);
    }
    console.log(`answer/context ratio on 10k records: ${ratios.join(', ')}`);
  }, 240_000);

  it('answers the cap itself (25,000) with a context, never RESULT_TOO_LARGE', async () => {
    const server = await serve(store);
    const summary = summaryOf(await server.call('build_context', { task, tokenBudget: 25_000 }));
    expect(summary.answerTokens).toBeLessThanOrEqual(25_000);
    expect(summary.stats.tokensOut).toBeGreaterThan(15_000);
  }, 240_000);
});

describe('search_context', () => {
  it('ranks the fragment holding an exact phrase first among near-miss distractors', async () => {
    const store = new MemoryRecordStore();
    const phrase = 'lease renewal skipped for tenant';
    store.add({
      messages: [
        // Each distractor has every word of the phrase, more often, but never the phrase itself.
        { role: 'user', text: 'tenant lease: renewal for tenant skipped; lease renewal tenant skipped again, tenant lease renewal was skipped for the tenant' },
        { role: 'assistant', text: 'skipped renewal for lease tenant; for tenant renewal, lease skipped; the lease tenant renewal for skipped jobs' },
        { role: 'assistant', text: 'Renewal of the lease for tenant 7 was skipped. Tenant lease renewal skipped, renewal for tenant skipped.' },
      ],
      toolOutputs: [
        { command: 'npm test', output: `FAIL billing.test.ts\n  Error: ${phrase} 42 after the grace period\n    at renew (src/billing/lease.ts:88:11)`, exitCode: 1 },
        { command: 'grep -r renewal src', output: 'src/lease/renewal.ts: tenant lease renewal for tenant skipped (tenant)\nsrc/lease/tenant.ts: skipped renewal for lease' },
      ],
      errors: [{ message: 'LeaseError: tenant renewal skipped for lease', stack: 'at renewLease (src/lease/renewal.ts:12:3)' }],
    });
    const server = await serve(store);
    const { hits } = JSON.parse(answerText(await server.call('search_context', { query: phrase }))) as { hits: SearchHit[] };
    expect(hits.length).toBeGreaterThan(3);
    expect(hits[0]?.text).toContain(phrase);
    expect(hits[0]?.phrase).toBe(true);
    expect(hits.slice(1).every((hit) => !hit.phrase)).toBe(true);

    const quoted = JSON.parse(answerText(await server.call('search_context', { query: `why is "${phrase}" in npm test` }))) as { hits: SearchHit[] };
    expect(quoted.hits[0]?.text).toContain(phrase);
  });

  it('matches identifiers by their parts and ranks by the query, not the task signals', async () => {
    const store = new MemoryRecordStore();
    store.add({
      decisions: [{ text: 'Keep the public API of the parser unchanged.', status: 'accepted', id: 'dec-api' }],
      files: [
        { path: 'src/billing/invoiceTotals.ts', content: 'export function computeInvoiceTotal(lines) {\n  return lines.reduce((sum, line) => sum + line.amount, 0);\n}\n', id: 'file-totals' },
        { path: 'src/parser.ts', content: 'export function parseExpression(tokens) {\n  return tokens[0];\n}\n', id: 'file-parser' },
      ],
    });
    const server = await serve(store);
    const { hits } = JSON.parse(answerText(await server.call('search_context', { query: 'invoice total' }))) as { hits: SearchHit[] };
    expect(hits[0]?.recordId).toBe('file-totals');
    // A constraint scores high for any task; for this query it is no match at all.
    expect(hits.map((hit) => hit.recordId)).not.toContain('dec-api');
  });
});

/** A store that counts how often the whole store is read. */
class CountingStore implements RecordStore {
  readonly #inner = new MemoryRecordStore();
  reads = 0;

  add(records: SessionRecords): { added: number } {
    return this.#inner.add(records);
  }

  all(): SessionRecords {
    this.reads++;
    return this.#inner.all();
  }

  count(): number {
    return this.#inner.count();
  }

  close(): void {
    this.#inner.close();
  }
}

describe('prepared state', () => {
  it('reads the whole store once, at start: ingests and every tool answer from memory, with the ids build_context uses', async () => {
    const store = new CountingStore();
    store.add({ messages: [{ role: 'user', text: 'The parser crashes on empty input in src/parser.ts' }] });
    const server = await serve(store);
    const batches: SessionRecords[] = [
      { errors: [{ message: "TypeError: Cannot read properties of undefined (reading 'kind')", stack: 'at parseExpression (src/parser.ts:42:17)' }] },
      { files: [{ path: 'src/parser.ts', content: 'export function parseExpression(tokens) {\n  return tokens[0].kind;\n}\n' }] },
      { decisions: [{ text: 'Keep the public API of parseExpression unchanged.', status: 'accepted' }] },
    ];
    for (const batch of batches) answerText(await server.call('ingest_records', batch as Record<string, unknown>));
    const task = 'fix the parseExpression TypeError in src/parser.ts';
    const summary = summaryOf(await server.call('build_context', { task, tokenBudget: 4_000 }));
    const search = JSON.parse(answerText(await server.call('search_context', { query: 'parseExpression' }))) as { records: number; hits: SearchHit[] };
    const decisions = JSON.parse(answerText(await server.call('get_decisions', {}))) as { decisions: Array<{ id: string }> };
    answerText(await server.call('get_relevant_errors', { query: 'TypeError kind' }));
    answerText(await server.call('get_file_history', { path: 'src/parser.ts' }));
    answerText(await server.call('build_context', { task: 'keep the API', tokenBudget: 2_000 }));
    expect(store.reads).toBeLessThanOrEqual(1);
    expect(search.records).toBe(4);
    // Ids agree across tools: what search and get_decisions name is what build_context's sources name.
    const built = new Set(parseSourceTags(summary.context).map((tag) => tag.recordId));
    expect(built.has(decisions.decisions[0]?.id ?? '')).toBe(true);
    for (const hit of search.hits) expect(built.has(hit.recordId), hit.recordId).toBe(true);
  });
});

describe('prepared state across an id change', () => {
  it('a later caller id equal to an earlier derived id renames the earlier record everywhere, as build_context does', async () => {
    const server = await serve(new MemoryRecordStore());
    answerText(await server.call('ingest_records', { decisions: [{ text: 'Keep the lexer streaming; never buffer the whole file.', status: 'accepted' }] }));
    const first = JSON.parse(answerText(await server.call('get_decisions', {}))) as { decisions: Array<{ id: string; text: string }> };
    const derived = first.decisions[0]?.id ?? '';
    answerText(await server.call('ingest_records', { decisions: [{ text: 'Parse numbers with BigInt.', status: 'accepted', id: derived }] }));

    const summary = summaryOf(await server.call('build_context', { task: 'lexer streaming buffer', tokenBudget: 2_000 }));
    // Both decisions are accepted, so both are in: the new one under the id it was given, the old one renamed.
    const tagged = parseSourceTags(summary.context).map((tag) => tag.recordId);
    expect(tagged).toContain(derived);
    const renamed = tagged.find((id) => id !== derived) ?? '';
    expect(renamed).not.toBe('');
    const decisions = JSON.parse(answerText(await server.call('get_decisions', {}))) as { decisions: Array<{ id: string; text: string }> };
    expect(decisions.decisions.find((decision) => decision.text.startsWith('Keep the lexer'))?.id).toBe(renamed);
    expect(decisions.decisions.find((decision) => decision.text.startsWith('Parse numbers'))?.id).toBe(derived);
    const { hits } = JSON.parse(answerText(await server.call('search_context', { query: 'never buffer the whole file' }))) as { hits: SearchHit[] };
    expect(hits[0]?.recordId).toBe(renamed);
    expect(hits.map((hit) => hit.fragmentId)).not.toContain(`${derived}#1`);
  });
});

describe('build_context off the main thread', () => {
  it('answers get_decisions while a build on a large store runs; closing the server ends the worker', async () => {
    const { store, task } = generatedStore(20_000, 7);
    const server = await serve(store);
    const arrivals: string[] = [];
    const build = server.call('build_context', { task, tokenBudget: 8_000 }).then((result) => {
      arrivals.push('build_context');
      return result;
    });
    // Let the build start (a macrotask), then ask three times in a row, each after the last answer:
    // a build on the main thread would hold all three (or all but one) until it ends.
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (let call = 0; call < 3; call++) {
      answerText(await server.call('get_decisions', { limit: 5 }));
      arrivals.push('get_decisions');
    }
    answerText(await build);
    expect(arrivals).toEqual(['get_decisions', 'get_decisions', 'get_decisions', 'build_context']);
    expect(liveBuildWorkers()).toBe(1);
    await running.pop()?.close();
    await vi.waitFor(() => expect(liveBuildWorkers()).toBe(0), { timeout: 20_000, interval: 50 });
  }, 240_000);
});
