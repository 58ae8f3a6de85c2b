import { describe, expect, it, vi } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { ContextOptimizer, normalizeRecords, parseSourceTags, type ContextResult, type OptimizerInput, type SessionRecords } from '../../src/optimizer/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { inInputOrder, reorderInput } from './_shuffle.js';

const HOUR = 3_600_000;
function at(hours: number): string {
  return new Date(Date.UTC(2026, 10, 30, 8) + hours * HOUR).toISOString();
}

/** A small debugging session: a failing test buried in noise, a constraint, a decision, repeated runs. */
function session(): OptimizerInput {
  const noise = Array.from({ length: 40 }, (_, i) => ({
    role: 'assistant' as const,
    text: `Looking at module number ${i} of the dashboard widgets; the chart legend colours are configured in theme${i}.json and nothing there is related.`,
    timestamp: at(i * 0.1),
  }));
  return {
    task: 'Fix the TypeError in parseConfig when src/config/loader.ts reads an empty file',
    messages: [
      { id: 'ask', role: 'user', text: 'The loader crashes on empty files. You must not change the public API of loadConfig.', timestamp: at(0) },
      ...noise,
      { role: 'assistant', text: 'I fixed the bug, it should work now.', timestamp: at(5) },
    ],
    toolOutputs: [
      { id: 'run-1', command: 'npx vitest run test/config', output: 'FAIL test/config/loader.test.ts\nTypeError: Cannot read properties of undefined (reading \'split\')\n    at parseConfig (src/config/loader.ts:42:17)', exitCode: 1, timestamp: at(1) },
      { id: 'run-2', command: 'npx vitest run test/config', output: 'FAIL test/config/loader.test.ts\nTypeError: Cannot read properties of undefined (reading \'split\')\n    at parseConfig (src/config/loader.ts:44:17)', exitCode: 1, timestamp: at(3) },
      { id: 'ls', command: 'ls docs', output: Array.from({ length: 200 }, (_, i) => `chapter-${i}.md`).join('\n'), exitCode: 0, timestamp: at(2) },
    ],
    files: [
      { id: 'loader', path: 'src/config/loader.ts', content: 'export function parseConfig(text: string) {\n  const lines = text.split("\\n");\n  return lines.map((l) => l.trim());\n}\n', timestamp: at(2) },
      { id: 'theme', path: 'src/ui/theme.ts', content: 'export const colours = {\n' + Array.from({ length: 120 }, (_, i) => `  c${i}: "#${(i * 4099).toString(16).padStart(6, '0')}",`).join('\n') + '\n};\n', timestamp: at(2) },
    ],
    testResults: [{ id: 'empty-file', name: 'loader › reads an empty file', status: 'failed', output: 'TypeError: Cannot read properties of undefined (reading \'split\')', timestamp: at(3) }],
    decisions: [{ id: 'keep-api', text: 'Keep loadConfig(path) signature; handle empty input inside parseConfig.', status: 'accepted', timestamp: at(0.5) }],
    tokenBudget: 1_200,
  };
}

function recordsOf(input: OptimizerInput): SessionRecords {
  const { task: _task, tokenBudget: _budget, ...records } = input;
  return records;
}

function recordIds(input: OptimizerInput): Set<string> {
  return new Set(normalizeRecords(recordsOf(input)).records.map((record) => record.id));
}

function expectWellFormed(result: ContextResult, input: OptimizerInput): void {
  const ids = recordIds(input);
  const tags = parseSourceTags(result.context);
  expect(tags.length).toBeGreaterThan(0);
  for (const tag of tags) {
    expect(ids.has(tag.recordId)).toBe(true);
    expect(tag.fragmentId.startsWith(`${tag.recordId}#`)).toBe(true);
  }
  expect(result.sources.map((s) => s.fragmentId)).toEqual(tags.map((t) => t.fragmentId));
  expect(result.stats.tokensOut).toBe(countTokens(result.context));
}

describe('buildContext', () => {
  it('keeps the facts the task needs, mandatory ones marked, within budget, every tag resolving to an input record', () => {
    const input = session();
    const result = new ContextOptimizer().buildContext(input);
    expectWellFormed(result, input);
    expect(result.stats.tokensOut).toBeLessThanOrEqual(1_200);
    expect(result.stats.withinBudget).toBe(true);
    expect(result.report.selection.conflict).toBeUndefined();
    expect(result.context).toContain('You must not change the public API of loadConfig');
    expect(result.context).toContain('Keep loadConfig(path) signature');
    expect(result.context).toContain("TypeError: Cannot read properties of undefined (reading 'split')");
    expect(result.context).toContain('const lines = text.split');
    const mandatory = result.sources.filter((s) => s.mandatory).map((s) => s.recordId);
    expect(mandatory).toEqual(expect.arrayContaining(['ask', 'keep-api', 'empty-file']));
    expect(result.stats.reduction).toBeGreaterThan(0.5);
  });

  it('drops noise with a reason for every omission, and says in the text that something was omitted', () => {
    const input = session();
    const result = new ContextOptimizer().buildContext(input);
    expect(result.context).not.toContain('chapter-150.md');
    expect(result.context).not.toContain('c100:');
    const ids = recordIds(input);
    const kept = new Set(result.sources.map((s) => s.recordId));
    const accounted = new Set([...kept, ...result.omitted.map((o) => o.recordId)]);
    expect([...ids].every((id) => accounted.has(id))).toBe(true);
    for (const entry of result.omitted) expect(entry.detail.length).toBeGreaterThan(0);
    expect(result.context).toMatch(/\[omitted: \d+ fragments \(.*\); the report lists each with its reason\]/);
  });

  it('folds an earlier run of the same command into a one-line history on the latest run', () => {
    const result = new ContextOptimizer().buildContext(session());
    const merge = result.report.dedupe.merges.find((m) => m.merged === 'run-1');
    expect(merge).toMatchObject({ kept: 'run-2', reason: 'repeated-run' });
    expect(result.omitted).toContainEqual(expect.objectContaining({ recordId: 'run-1', reason: 'repeated-run', keptAs: 'run-2' }));
    if (result.sources.some((s) => s.recordId === 'run-2')) expect(result.context).toContain(`earlier runs (1): exit 1 at ${at(1)}`);
  });

  it('stays within every budget from tight to loose, and reports BUDGET_CONFLICT only when the mandatory part does not fit', () => {
    const optimizer = new ContextOptimizer();
    for (const budget of [120, 250, 400, 600, 900, 1_500, 3_000, 10_000]) {
      const input = { ...session(), tokenBudget: budget };
      const result = optimizer.buildContext(input);
      expectWellFormed(result, input);
      const conflict = result.report.selection.conflict;
      if (conflict === undefined) {
        expect(result.stats.tokensOut).toBeLessThanOrEqual(budget);
      } else {
        expect(conflict.code).toBe('BUDGET_CONFLICT');
        expect(result.stats.withinBudget).toBe(false);
        // Nothing mandatory is dropped however small the budget.
        for (const id of ['ask', 'keep-api', 'empty-file']) expect(result.sources.map((s) => s.recordId)).toContain(id);
        expect(result.sources.every((s) => s.mandatory)).toBe(true);
      }
    }
    expect(optimizer.buildContext({ ...session(), tokenBudget: 120 }).report.selection.conflict?.code).toBe('BUDGET_CONFLICT');
  });

  it('explains every score: contribution = value × weight, the score is their sum, weights are configurable', () => {
    const result = new ContextOptimizer({ weights: { recency: 0 } }).buildContext(session());
    for (const source of result.sources) {
      let sum = 0;
      for (const signal of Object.values(source.signals)) {
        expect(signal.contribution).toBeCloseTo(signal.value * signal.weight, 3);
        sum += signal.contribution;
      }
      expect(source.score).toBeCloseTo(sum, 3);
      expect(source.signals.recency.weight).toBe(0);
    }
    expect(result.report.weights.recency).toBe(0);
    expect(() => new ContextOptimizer({ weights: { luck: 1 } as never })).toThrow(/unknown weight 'luck'/);
  });

  it('measures recency from the newest timestamp in the data, with a 7-day half-life', () => {
    const input: OptimizerInput = {
      task: 'why does the parser fail',
      errors: [
        { id: 'old', message: 'Error: the parser fails on tabs', timestamp: '2026-11-16T00:00:00Z' },
        { id: 'new', message: 'Error: the parser rejects an empty header row', timestamp: '2026-11-30T00:00:00Z' },
      ],
    };
    const result = new ContextOptimizer().buildContext(input);
    const recency = Object.fromEntries(result.sources.map((s) => [s.recordId, s.signals.recency.value]));
    expect(recency).toEqual({ old: 0.25, new: 1 });
  });

  it('makes only the newest occurrence of an error mandatory, and a generic error type alone is not an identifier', () => {
    const errors = Array.from({ length: 40 }, (_, i) => ({
      id: `e${i}`,
      message: `TypeError: Cannot read properties of undefined (reading 'split') at attempt ${i}`,
      stack: `    at parseConfig (src/config/loader.ts:${40 + i}:17)\n    at worker${i} (src/jobs/w${i}.ts:${i}:1)`,
      timestamp: at(i),
    }));
    const unrelated = Array.from({ length: 10 }, (_, i) => ({ id: `u${i}`, message: `TypeError: x${i} is not a function`, stack: `    at render${i} (src/ui/view${i}.ts:3:9)`, timestamp: at(i) }));
    const result = new ContextOptimizer().buildContext({ task: 'Fix the TypeError in parseConfig', errors: [...errors, ...unrelated], tokenBudget: 4_000 });
    const mandatory = result.sources.filter((s) => s.mandatory).map((s) => s.recordId);
    expect(mandatory).toEqual(['e39']);
    for (const source of result.sources.filter((s) => s.recordId.startsWith('u'))) expect(source.signals.identifier.value).toBe(0);
  });

  it('labels chars/4 figures as estimates', () => {
    const result = new ContextOptimizer({ counter: 'chars/4' }).buildContext(session());
    expect(result.stats).toMatchObject({ counter: 'chars/4', exact: false });
    expect(result.report.counter).toMatchObject({ name: 'chars/4', exact: false });
    expect(result.report.counter.note).toMatch(/estimate/);
    expect(new ContextOptimizer().buildContext(session()).report.counter).toEqual({ name: 'o200k', exact: true });
  });

  it('never mutates its input', () => {
    const input = session();
    const copy = structuredClone(input);
    new ContextOptimizer().buildContext(input);
    expect(input).toEqual(copy);
  });
});

describe('the order of the input (the rule: src/optimizer/_recency.ts)', () => {
  it('gives the same bytes for the session with its records in another order, and does not read the clock', () => {
    const reference = JSON.stringify(new ContextOptimizer().buildContext(session()));
    vi.useFakeTimers();
    try {
      vi.setSystemTime(new Date('2031-01-01T00:00:00Z'));
      for (let seed = 1; seed <= 5; seed++) {
        const reordered = reorderInput(session(), seed);
        expect(reordered.moved).toBeGreaterThan(0);
        expect(inInputOrder(new ContextOptimizer().buildContext(reordered.input), reordered), `seed ${seed}`).toBe(reference);
      }
    } finally {
      vi.useRealTimers();
    }
  });

  /** Three runs of one command, the undated one between the 07:00 and the 05:00 run in the input; undated and dated notes. */
  function mixedSession(): OptimizerInput {
    const output = (result: string) => `${result} test/parser.test.ts\nparseHeader rejects an empty header row (${result === 'FAIL' ? 'expected 1 to be 0' : 'ok'})`;
    return {
      task: 'Fix parseHeader in src/parser.ts for an empty header row',
      tokenBudget: 4_000,
      toolOutputs: [
        { id: 'run-0700', command: 'npm test', output: output('PASS'), exitCode: 0, timestamp: '2026-11-30T07:00:00Z' },
        { id: 'run-undated', command: 'npm test', output: output('FAIL'), exitCode: 1 },
        { id: 'run-0500', command: 'npm test', output: `${output('FAIL')}\nat parseHeader (src/parser.ts:12:3)`, exitCode: 1, timestamp: '2026-11-30T05:00:00Z' },
      ],
      messages: [
        { id: 'note-a', role: 'user', text: 'parseHeader in src/parser.ts: first look at the header row handling.' },
        { id: 'note-0600', role: 'assistant', text: 'parseHeader in src/parser.ts trims the header row before the check.', timestamp: '2026-11-30T06:00:00Z' },
        { id: 'note-b', role: 'user', text: 'parseHeader in src/parser.ts: then look at the empty header row case.' },
        { id: 'note-0400', role: 'assistant', text: 'parseHeader in src/parser.ts was added for the header row format.', timestamp: '2026-11-30T04:00:00Z' },
      ],
    };
  }

  it('counts an undated record as older than every dated one: the 07:00 run is kept, not the 05:00 run', () => {
    const result = new ContextOptimizer().buildContext(mixedSession());
    const kept = result.sources.filter((source) => source.kind === 'toolOutput').map((source) => source.recordId);
    expect(kept).toEqual(['run-0700']);
    expect(result.context).toContain('earlier runs (2): exit 1; exit 1 at 2026-11-30T05:00:00Z');
    expect(result.report.dedupe.merges.map((merge) => [merge.kept, merge.merged])).toEqual([
      ['run-0700', 'run-0500'],
      ['run-0700', 'run-undated'],
    ]);
    // Chronological within a section: the undated notes in their input order, then the dated ones by time.
    const conversation = parseSourceTags(result.context).filter((tag) => tag.recordId.startsWith('note-')).map((tag) => tag.recordId);
    expect(conversation).toEqual(['note-a', 'note-b', 'note-0400', 'note-0600']);
  });

  it('gives the same bytes when dated records move around undated ones, which keep their order', () => {
    const reference = JSON.stringify(new ContextOptimizer().buildContext(mixedSession()));
    let moved = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const reordered = reorderInput(mixedSession(), seed);
      moved += reordered.moved;
      expect(inInputOrder(new ContextOptimizer().buildContext(reordered.input), reordered), `seed ${seed}`).toBe(reference);
    }
    expect(moved).toBeGreaterThan(0);
  });

  it('tells records without ids apart by content and time, not by position: equal outputs at different times', () => {
    const input: OptimizerInput = {
      task: 'why does npm test fail on the parser',
      toolOutputs: ['09:00', '10:00', '11:00'].map((time) => ({ command: 'npm test', output: 'FAIL test/parser.test.ts\nexpected 1 to be 0', exitCode: 1, timestamp: `2026-11-30T${time}:00Z` })),
    };
    const reference = new ContextOptimizer().buildContext(input);
    expect(reference.report.dedupe.merges).toHaveLength(2);
    for (let seed = 1; seed <= 5; seed++) {
      const reordered = reorderInput(input, seed);
      expect(inInputOrder(new ContextOptimizer().buildContext(reordered.input), reordered), `seed ${seed}`).toBe(JSON.stringify(reference));
    }
  });

  it('search breaks a tie of scores by recency, newest first, whatever the input order', () => {
    // One second apart: recency values equal to 4 decimals, so the scores tie.
    const records: SessionRecords = {
      messages: [3, 1, 4, 2, 5].map((second) => ({ id: `m${second}`, role: 'assistant' as const, text: `The tokenizer keeps comments (note ${second}).`, timestamp: `2026-11-30T09:00:0${second}Z` })),
    };
    const optimizer = new ContextOptimizer();
    const hits = optimizer.search(records, 'tokenizer comments', 5);
    expect(new Set(hits.map((hit) => hit.score)).size).toBe(1);
    expect(hits.map((hit) => hit.recordId)).toEqual(['m5', 'm4', 'm3', 'm2', 'm1']);
    for (let seed = 1; seed <= 5; seed++) {
      const reordered = reorderInput(records, seed);
      expect(inInputOrder(optimizer.search(reordered.input, 'tokenizer comments', 5), reordered)).toBe(JSON.stringify(hits));
    }
  });
});

describe('search', () => {
  it('ranks the fragments that name the query first, with provenance and a breakdown', () => {
    const input = session();
    const hits = new ContextOptimizer().search(recordsOf(input), 'parseConfig loader.ts TypeError', 3);
    expect(hits.length).toBe(3);
    expect(hits[0]?.signals.identifier.value).toBeGreaterThan(0);
    for (const hit of hits) {
      expect(hit.text.length).toBeGreaterThan(0);
      expect(recordIds(input).has(hit.recordId)).toBe(true);
    }
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  });
});

describe('malformed input never crashes or hangs', () => {
  function code(run: () => unknown): string | undefined {
    try {
      run();
    } catch (error) {
      if (isMcpctxError(error)) return error.code;
      throw error;
    }
    return undefined;
  }

  it('wrong types and a missing task are clear errors', () => {
    const optimizer = new ContextOptimizer();
    expect(code(() => optimizer.buildContext({ messages: [] } as never))).toBe('INVALID_ARGUMENT');
    expect(code(() => optimizer.buildContext({ task: 't', messages: 'hello' } as never))).toBe('INVALID_RECORDS');
    expect(code(() => optimizer.buildContext({ task: 't', toolOutputs: [{ command: 'x', output: 42 }] } as never))).toBe('INVALID_RECORDS');
    expect(code(() => optimizer.buildContext(undefined as never))).toBe('INVALID_ARGUMENT');
    expect(code(() => optimizer.buildContext({ task: 't', tokenBudget: Infinity }))).toBe('INVALID_ARGUMENT');
  });

  it('options and arguments of the wrong type are INVALID_ARGUMENT, even values String() cannot print', () => {
    // An object without a prototype makes String() throw a TypeError; the message must still be built.
    const unprintable = Object.create(null) as never;
    expect(code(() => new ContextOptimizer({ counter: unprintable }))).toBe('INVALID_ARGUMENT');
    expect(code(() => new ContextOptimizer({ minRelevance: unprintable }))).toBe('INVALID_ARGUMENT');
    expect(code(() => new ContextOptimizer({ nearDuplicateThreshold: unprintable }))).toBe('INVALID_ARGUMENT');
    expect(code(() => new ContextOptimizer({ weights: { lexical: unprintable } }))).toBe('INVALID_ARGUMENT');
    expect(code(() => new ContextOptimizer({ maxRecordChars: unprintable }).buildContext({ task: 't' }))).toBe('INVALID_ARGUMENT');
    expect(code(() => new ContextOptimizer().search({}, 'query', unprintable))).toBe('INVALID_ARGUMENT');
  });

  it('a 50 MB record is refused by default, naming the record, the size and the limit', () => {
    const huge = 'x'.repeat(50 * 1024 * 1024);
    let message = '';
    try {
      new ContextOptimizer().buildContext({ task: 'anything', toolOutputs: [{ command: 'cat big.log', output: huge }] });
    } catch (error) {
      message = error instanceof Error ? error.message : '';
    }
    expect(message).toMatch(/^toolOutputs\[0\]\.output is 52,428,800 characters, over the limit of 4,194,304/);
  });

  it('with the limit raised, a 50 MB single-line record gives a bounded result within budget', () => {
    const line = 'GET /api/items 200 12ms '.repeat(Math.ceil((50 * 1024 * 1024) / 24));
    const optimizer = new ContextOptimizer({ maxRecordChars: 64 * 1024 * 1024, counter: 'chars/4' });
    const result = optimizer.buildContext({ task: 'which request was slow', toolOutputs: [{ command: 'cat access.log', output: line }], tokenBudget: 2_000 });
    expect(result.stats.tokensOut).toBeLessThanOrEqual(2_000);
    expect(result.context.length).toBeLessThan(20_000);
  });

  it('invalid UTF-16 is replaced, counted, and the output is well-formed', () => {
    const input: OptimizerInput = {
      task: 'fix the \uD800 parser',
      messages: [{ role: 'user', text: 'The parser \uDC00 must never drop a \uD83D line.' }],
      errors: [{ message: 'Error: bad \uD800\uD800 byte in parser' }],
    };
    const result = new ContextOptimizer().buildContext(input);
    // No surrogate is left once the valid pairs are removed.
    expect(/[\uD800-\uDFFF]/.test(result.context.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''))).toBe(false);
    expect(result.report.normalize.replacedInvalidUtf16).toBe(4);
    expect(result.context).toContain('must never drop a \uFFFD line');
  });
});

describe("the user's words, the agent's first reply to them and the session's edits are never dropped as irrelevant", () => {
  const aside = 'Leave the cli dump spec for now, that is a separate ticket.';
  const plan = 'Got it. Plan: keep the old dump format and add a schema version column.';
  const chatter = 'Looking around the repository layout before starting anything else.';
  const session: SessionRecords = {
    messages: [
      { id: 'u1', role: 'user', text: 'Fix the invoice exporter: it writes 0 rows for customer 42.', timestamp: at(0) },
      { id: 'a1', role: 'assistant', text: plan, timestamp: at(1) },
      { id: 'a2', role: 'assistant', text: chatter, timestamp: at(1.5) },
      { id: 'u2', role: 'user', text: aside, timestamp: at(2) },
    ],
    toolOutputs: [{ id: 'log', command: 'npm run export', output: 'the invoice exporter wrote 0 rows for customer 42', exitCode: 1, timestamp: at(3) }],
    diffs: [{ id: 'd1', path: 'db/migrate/20261130_add_sent_at.rb', diff: '+add_column :reminders, :sent_at, :datetime', timestamp: at(4) }],
  };
  const task = 'Why does the invoice exporter write 0 rows?';

  it('keeps a user message, the reply to it and a diff that share no word with the task when there is room, and drops later assistant chatter as low-relevance', () => {
    const result = new ContextOptimizer().buildContext({ ...session, task, tokenBudget: 4_000 });
    expect(result.context).toContain(aside);
    expect(result.context).toContain(plan);
    expect(result.context).toContain('+add_column :reminders, :sent_at, :datetime');
    expect(result.context).not.toContain(chatter);
    expect(result.omitted.find((entry) => entry.recordId === 'a2')?.reason).toBe('low-relevance');
  });

  it('counts replies per session: a message of another session between them is not a reply', () => {
    const result = new ContextOptimizer().buildContext({
      task,
      messages: [
        { id: 'u1', role: 'user', session: 'one', text: 'Fix the invoice exporter: it writes 0 rows for customer 42.', timestamp: at(0) },
        { id: 'x1', role: 'assistant', session: 'two', text: chatter, timestamp: at(1) },
        { id: 'a1', role: 'assistant', session: 'one', text: plan, timestamp: at(2) },
      ],
      session: 'one',
      tokenBudget: 4_000,
    });
    expect(result.context).toContain(plan);
    expect(result.omitted.find((entry) => entry.recordId === 'x1')?.reason).toBe('low-relevance');
  });

  it('still spends the budget by score: with no room the user message is omitted as over budget, not as irrelevant', () => {
    const result = new ContextOptimizer().buildContext({ ...session, task, tokenBudget: 90 });
    expect(result.stats.withinBudget).toBe(true);
    const entry = result.omitted.find((omitted) => omitted.recordId === 'u2');
    expect(entry?.reason).toBe('over-budget');
  });
});

describe('the newest failing run of each set of failures is mandatory, not every command that showed it', () => {
  const failure = (test: string, seconds: string): string => `F\n=== FAILURES ===\nE   assert loaded == expected\nFAILED ${test} - AssertionError\n1 failed in ${seconds}s`;
  const records: SessionRecords = {
    testResults: [
      { id: 'r1', name: 'pytest tests/test_loader.py', status: 'failed', output: failure('tests/test_loader.py::test_aliases', '0.41'), timestamp: at(1) },
      { id: 'r2', name: 'pytest -x tests/test_loader.py', status: 'failed', output: failure('tests/test_loader.py::test_aliases', '0.39'), timestamp: at(2) },
      { id: 'r3', name: 'python -m pytest -q tests/test_loader.py', status: 'failed', output: failure('tests/test_loader.py::test_aliases', '0.44'), timestamp: at(3) },
      { id: 'w1', name: 'pytest tests/test_watcher.py', status: 'failed', output: failure('tests/test_watcher.py::test_reload', '0.20'), timestamp: at(2) },
    ],
  };

  it('keeps the newest of three runs that fail the same way mandatory, and a run that fails otherwise too', () => {
    const result = new ContextOptimizer().buildContext({ ...records, task: 'Get the loader and watcher specs green.', tokenBudget: 4_000 });
    const mandatory = result.sources.filter((source) => source.mandatoryReason === 'newest failure of a test').map((source) => source.recordId);
    expect(mandatory.sort()).toEqual(['r3', 'w1']);
  });
});

describe('mandatoryOverBudget: what happens when the mandatory fragments alone are over the budget', () => {
  const records: SessionRecords = {
    messages: [{ id: 'u1', role: 'user', text: 'Checkout fails with a 500 when the cart has a gift card. Fix it in src/checkout/total.ts; do not change the public API of CartTotal.', timestamp: at(0) }],
    errors: [{ id: 'e1', message: "TypeError: Cannot read properties of undefined (reading 'amount')\n    at applyGiftCard (src/checkout/total.ts:42:17)", timestamp: at(1) }],
    testResults: [{ id: 'r1', name: 'checkout applies a gift card', status: 'failed', output: 'expected 40.00, got NaN', timestamp: at(2) }],
    decisions: [{ id: 'd1', text: 'Gift cards are applied after tax, never before.', status: 'accepted', timestamp: at(3) }],
  };
  const input = { ...records, task: 'Fix the gift card checkout failure in src/checkout/total.ts', tokenBudget: 140 };

  it('include-all (the default) keeps every mandatory fragment and goes over, with the conflict reported', () => {
    const result = new ContextOptimizer().buildContext(input);
    expect(result.stats.withinBudget).toBe(false);
    expect(result.report.selection.conflict?.mandatoryOmitted).toBeUndefined();
    expect(result.sources.filter((source) => source.mandatory)).toHaveLength(4);
  });

  it('best-first stays within the budget, keeps the best-ranked, and lists every mandatory fragment left out', () => {
    const result = new ContextOptimizer({ mandatoryOverBudget: 'best-first' }).buildContext(input);
    expect(result.stats.withinBudget).toBe(true);
    const kept = result.sources.filter((source) => source.mandatory).length;
    expect(kept).toBeGreaterThan(0);
    const conflict = result.report.selection.conflict;
    expect(conflict?.code).toBe('BUDGET_CONFLICT');
    expect(conflict?.mandatoryOmitted).toBe(4 - kept);
    expect(result.omitted.filter((entry) => entry.reason === 'over-budget' && entry.detail.startsWith('mandatory ('))).toHaveLength(4 - kept);
  });

  it('refuses a value it does not know', () => {
    expect(() => new ContextOptimizer({ mandatoryOverBudget: 'drop' as 'best-first' })).toThrow(/mandatoryOverBudget must be "include-all" or "best-first"/);
  });
});
