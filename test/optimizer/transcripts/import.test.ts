// Transcripts in: Claude Code sessions, Codex rollouts and SWE-agent trajectories become the
// optimizer's records, in order, with the transcript's ids and times; what is not read is counted,
// a last line cut short is reported, and hostile lines (huge, deep, `__proto__`) are data.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseOptimizerInput } from '../../../src/optimizer/index.js';
import { detectTranscriptFormat, importTranscript, sweIssueText, type TranscriptImport } from '../../../src/optimizer/transcripts/index.js';

const FIXTURES = new URL('../../fixtures/transcripts/', import.meta.url);
const SWE = new URL('../../../bench/optimizer/fixtures/swe-agent-trajectories/', import.meta.url);
const CLAUDE = readFileSync(new URL('claude-code-session.jsonl', FIXTURES), 'utf8');
const CODEX = readFileSync(new URL('codex-rollout.jsonl', FIXTURES), 'utf8');
const PYDICOM = readFileSync(new URL('gpt4__pydicom__pydicom-1458.traj', SWE), 'utf8');
const MARSHMALLOW = readFileSync(new URL('replay_function_calling_replace_from_source__marshmallow-code__marshmallow-1867.traj', SWE), 'utf8');

/** The records must be what the optimizer accepts as they are. */
function accepted(imported: TranscriptImport): TranscriptImport {
  expect(parseOptimizerInput({ task: 'x', ...imported.records })).toMatchObject(imported.records);
  return imported;
}

const counts = (imported: TranscriptImport): Record<string, number> => Object.fromEntries(Object.entries(imported.records).map(([array, list]) => [array, (list as unknown[]).length]));

describe('format detection', () => {
  it('tells each format from its text', () => {
    expect(detectTranscriptFormat(CLAUDE)).toBe('claude-code');
    expect(detectTranscriptFormat(CODEX)).toBe('codex');
    expect(detectTranscriptFormat(PYDICOM)).toBe('swe-agent');
    expect(detectTranscriptFormat(MARSHMALLOW)).toBe('swe-agent');
    expect(detectTranscriptFormat('{"hello":"world"}\n')).toBeUndefined();
    expect(() => importTranscript('{"hello":"world"}\n')).toThrow(/not one of claude-code, codex, swe-agent/);
  });
});

describe('Claude Code sessions', () => {
  const imported = accepted(importTranscript(CLAUDE));

  it('maps text, Bash runs, reads, edits, test runs and errors, with uuids or tool_use ids and times', () => {
    expect(imported.format).toBe('claude-code');
    expect(imported.session).toBe('7d0c6a52-3f1e-4b8e-9a51-2c4f0e9b1d17');
    expect(counts(imported)).toEqual({ messages: 6, toolOutputs: 3, errors: 2, files: 1, diffs: 2, testResults: 2 });
    const { messages = [], toolOutputs = [], errors = [], files = [], diffs = [], testResults = [] } = imported.records;
    expect(messages.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'assistant', 'assistant', 'user']);
    expect(messages[1]).toMatchObject({ id: 'c1a00003-5b2e-4c1d-8f00-000000000003', timestamp: '2026-11-30T09:00:21.777Z', session: imported.session });
    expect(toolOutputs.map((t) => [t.id, t.command ?? t.tool, t.exitCode])).toEqual([
      ['toolu_01A1pytestfail', 'python -m pytest tests/test_cart.py -q', 1],
      ['toolu_01C3readmissing', 'Read /home/dev/shop/shop/rounding.py', undefined],
      ['toolu_01F6pytestpass', 'python -m pytest tests/test_cart.py -q', 0],
    ]);
    expect(toolOutputs[0]?.output.startsWith('F.')).toBe(true);
    expect(testResults.map((t) => [t.id, t.status])).toEqual([
      ['toolu_01A1pytestfail:test', 'failed'],
      ['toolu_01F6pytestpass:test', 'passed'],
    ]);
    expect(errors.map((e) => e.message)).toEqual(["E       AssertionError: assert Decimal('3.10') == Decimal('3.11') (at tests/test_cart.py:9)", 'File does not exist.']);
    expect(files[0]).toMatchObject({ id: 'toolu_01B2readcart', path: 'shop/cart.py' });
    expect(files[0]?.content).toContain('rounding=ROUND_DOWN');
    expect(diffs[0]).toMatchObject({ id: 'toolu_01D4editcart', path: 'shop/cart.py' });
    expect(diffs[0]?.diff).toContain('--- a/shop/cart.py\n+++ b/shop/cart.py\n@@ -9,4 +9,4 @@\n');
    expect(diffs[0]?.diff).toContain('\n-        return net.quantize(Decimal("0.01"), rounding=ROUND_DOWN)\n+        return net.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)\n');
    // In transcript order within each kind.
    const times = [...messages, ...toolOutputs].map((r) => r.timestamp ?? '');
    expect(messages.map((m) => m.timestamp)).toEqual([...messages.map((m) => m.timestamp)].sort());
    expect(times.every((t) => t.startsWith('2026-11-30T09:'))).toBe(true);
  });

  it('counts what it does not read, unknown event types included, and finds the last request the user typed', () => {
    expect(imported.skipped).toEqual({
      summary: 1,
      'file-history-snapshot': 1,
      'user (meta)': 1,
      'assistant content thinking': 1,
      system: 1,
      'agent-telemetry-v9': 1,
    });
    expect(imported.lastUserRequest).toBe('Now also add a test for a 0% discount.');
    expect(imported.truncatedLastLine).toBeUndefined();
    expect(imported.badLines).toEqual({ count: 0, first: [] });
  });

  it('reports a last line cut short and counts a bad line elsewhere, without failing', () => {
    const lines = CLAUDE.split('\n');
    const last = lines[lines.length - 2] as string;
    const cut = `${lines.slice(0, -2).join('\n')}\n${last.slice(0, 40)}`;
    const truncated = accepted(importTranscript(cut));
    expect(truncated.truncatedLastLine).toEqual({ line: lines.length - 1, bytes: 40 });
    expect(truncated.records.messages).toHaveLength(5);
    const bad = accepted(importTranscript(`${lines.slice(0, 3).join('\n')}\n{"type":"user",\nnot json\n${lines.slice(3).join('\n')}`));
    expect(bad.badLines).toEqual({ count: 2, first: [4, 5] });
    expect(bad.truncatedLastLine).toBeUndefined();
    expect(bad.records.messages).toHaveLength(6);
  });

  it('reads JSON own properties only: __proto__ and constructor keys are data', () => {
    const hostile = [
      '{"__proto__":{"type":"user","message":{"role":"user","content":"polluted"}},"uuid":"p1"}',
      '{"type":"__proto__","uuid":"p2","sessionId":"s","message":{"role":"user","content":"x"}}',
      '{"type":"user","uuid":"p3","timestamp":"2026-11-30T10:00:00Z","message":{"role":"user","content":"kept","__proto__":{"content":"not this"}}}',
      '{"type":"assistant","uuid":"p4","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"__proto__":{"command":"rm -rf /"}}}]}}',
      '{"type":"user","uuid":"p5","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"toolUseResult":{"__proto__":{"stdout":"forged"}}}',
    ].join('\n');
    const imported = accepted(importTranscript(hostile, { format: 'claude-code' }));
    expect(Object.getPrototypeOf(imported.skipped)).toBe(Object.prototype);
    expect(Object.hasOwn(imported.skipped, '__proto__')).toBe(true);
    expect(imported.skipped).toMatchObject({ '(no type)': 1 });
    expect(imported.records.messages?.map((m) => m.text)).toEqual(['kept']);
    expect(imported.records.toolOutputs).toEqual([{ id: 't1', session: 's', tool: 'Bash', output: 'ok', exitCode: 0 }]);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });

  it('skips and counts a line over 8 MiB and a line nested too deep', () => {
    const huge = `{"type":"user","uuid":"h","message":{"role":"user","content":"${'a'.repeat(8 * 1024 * 1024)}"}}`;
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const imported = accepted(importTranscript(`${huge}\n${deep}\n${CLAUDE}`, { format: 'claude-code' }));
    expect(imported.skipped).toMatchObject({ 'line over 8 MiB': 1, 'line nested over 64 levels': 1 });
    expect(imported.records.messages).toHaveLength(6);
  });

  it('cuts a text over the record cap the way the optimizer accepts, and keeps ids unique', () => {
    const long = `${'x'.repeat(5000)}END`;
    const text = [
      `{"type":"user","uuid":"same","message":{"role":"user","content":"${long}"}}`,
      '{"type":"user","uuid":"same","message":{"role":"user","content":"again"}}',
      '{"type":"user","uuid":"a|b[c]","timestamp":"yesterday","message":{"role":"user","content":"odd id"}}',
    ].join('\n');
    const imported = importTranscript(text, { format: 'claude-code', maxRecordChars: 1000 });
    expect(parseOptimizerInput({ task: 'x', ...imported.records }, { maxRecordChars: 1000 })).toBeDefined();
    const [first, second, third] = imported.records.messages ?? [];
    expect(first?.text).toHaveLength(1000);
    expect(first?.text).toContain('characters cut by mcpctx');
    expect(first?.text.endsWith('END')).toBe(true);
    expect([first?.id, second?.id, third?.id]).toEqual(['same', 'same~2', 'a_b_c_']);
    expect(third?.timestamp).toBeUndefined();
  });

  it('stops at maxRecords and counts the rest', () => {
    const imported = importTranscript(CLAUDE, { maxRecords: 4 });
    expect(Object.values(counts(imported)).reduce((a, b) => a + b, 0)).toBe(4);
    expect(imported.skipped['records over maxRecords']).toBe(12);
  });

  it('reads a 5 MB transcript of repeated turns with fresh ids', () => {
    const turns = CLAUDE.split('\n').filter((line) => line.includes('"sessionId"'));
    const parts: string[] = [];
    let size = 0;
    let copies = 0;
    while (size < 5 * 1024 * 1024) {
      copies += 1;
      const copy = turns.map((line) => line.replace(/c1a0(\d{4})-/g, `c1a0$1-${copies}-`).replace(/toolu_01/g, `toolu_${copies}x`)).join('\n');
      parts.push(copy);
      size += copy.length + 1;
    }
    const imported = accepted(importTranscript(`${parts.join('\n')}\n`));
    expect(size).toBeGreaterThan(5 * 1024 * 1024);
    expect(counts(imported)).toEqual({ messages: 6 * copies, toolOutputs: 3 * copies, errors: 2 * copies, files: copies, diffs: 2 * copies, testResults: 2 * copies });
    expect(imported.skipped).toMatchObject({ 'user (meta)': copies, 'agent-telemetry-v9': copies });
    expect(imported.badLines.count).toBe(0);
  });
});

describe('Codex rollouts', () => {
  const imported = accepted(importTranscript(CODEX));

  it('maps messages, shell calls with exit codes, test runs and apply_patch, with call ids and times', () => {
    expect(imported.format).toBe('codex');
    expect(imported.session).toBe('0199a3c4-6e21-7f30-b1d2-8c5e4a7f9b10');
    expect(counts(imported)).toEqual({ messages: 3, toolOutputs: 3, errors: 1, diffs: 1, testResults: 2 });
    const { messages = [], toolOutputs = [], errors = [], diffs = [], testResults = [] } = imported.records;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(toolOutputs.map((t) => [t.id, t.tool, t.command, t.exitCode])).toEqual([
      ['call_Jx01failrun', 'shell', 'npx jest src/sum.test.js', 1],
      ['call_Jx02cat', 'shell', 'cat src/sum.js', 0],
      ['call_Jx04passrun', 'shell_command', 'npx jest src/sum.test.js', 0],
    ]);
    expect(toolOutputs[0]?.timestamp).toMatch(/^2026-11-28T14:00:/);
    expect(toolOutputs[2]?.output.startsWith('PASS src/sum.test.js')).toBe(true);
    expect(testResults.map((t) => t.status)).toEqual(['failed', 'passed']);
    expect(errors[0]?.message).toBe('● sumCents › adds prices exactly (at src/sum.test.js:5)');
    // The error keeps the frames; the whole output stays in the tool output only.
    expect(errors[0]?.stack).toBe('      at Object.toBe (src/sum.test.js:5:34)');
    expect(diffs[0]).toMatchObject({ id: 'call_Jx03patch', path: 'src/sum.js' });
    expect(diffs[0]?.diff).toContain('--- a/src/sum.js\n+++ b/src/sum.js\n@@\n');
    expect(diffs[0]?.diff).toContain('\n-  return prices.reduce((total, price) => total + price, 0);\n+  const cents');
    expect(imported.lastUserRequest).toBe('npm test fails on src/sum.test.js: sumCents gives 0.30000000000000004. Make sumCents add integer cents.');
  });

  it('counts the context message, reasoning, UI events and unknown items as skipped', () => {
    expect(imported.skipped).toEqual({
      session_meta: 1,
      'response_item:message (context)': 1,
      turn_context: 1,
      'event_msg:user_message': 1,
      'response_item:reasoning': 1,
      'event_msg:token_count': 1,
      'event_msg:patch_apply_end': 1,
      'response_item:ghost_snapshot': 1,
      'event_msg:agent_message': 1,
    });
  });

  it('reports a last line cut short', () => {
    const cut = CODEX.slice(0, CODEX.length - 30);
    const truncated = accepted(importTranscript(cut));
    expect(truncated.truncatedLastLine?.line).toBe(CODEX.split('\n').length - 1);
    expect(truncated.records.messages).toHaveLength(2);
  });
});

describe('SWE-agent trajectories', () => {
  it('maps the issue and every step, with step ids, and the submission as diffs; the harness\'s prompt and demonstration are skipped and counted', () => {
    const imported = accepted(importTranscript(PYDICOM));
    expect(imported.format).toBe('swe-agent');
    expect(imported.records.messages?.slice(0, 2).map((m) => m.id)).toEqual(['issue', 'step-01-thought']);
    // The issue alone, without the instructions template around it: its "you must" sentences are the harness's.
    expect(imported.records.messages?.[0]?.text).toBe(imported.lastUserRequest);
    expect(imported.records.messages?.[0]?.text).not.toMatch(/INSTRUCTIONS:/);
    expect(imported.skipped).toMatchObject({ 'system prompt': 1, demonstration: 1 });
    expect(imported.records.toolOutputs?.map((t) => t.id)).toEqual(Array.from({ length: 12 }, (_, i) => `step-${String(i + 1).padStart(2, '0')}-output`));
    expect(imported.records.errors?.[0]?.message).toMatch(/Error/);
    expect(imported.lastUserRequest?.startsWith('Pixel Representation attribute should be optional')).toBe(true);
    const marshmallow = accepted(importTranscript(MARSHMALLOW, { format: 'swe-agent' }));
    expect(marshmallow.records.toolOutputs).toHaveLength(13);
    expect(marshmallow.records.diffs?.[0]?.path).toBe('src/marshmallow/fields.py');
  });

  it('takes the issue from between ISSUE: and INSTRUCTIONS:, else the whole message, in one pass over a hostile text', () => {
    expect(sweIssueText('We are solving this.\r\nISSUE:\r\nThe parser drops a BOM.\r\n\r\nINSTRUCTIONS:\r\nYou must edit.')).toBe('The parser drops a BOM.');
    expect(sweIssueText('  no markers at all \n')).toBe('no markers at all');
    expect(sweIssueText('ISSUE:\nonly the start')).toBe('ISSUE:\nonly the start');
    // 300,000 ISSUE: lines (2 MB) and no INSTRUCTIONS: one pass takes milliseconds; a search retried
    // from each line (the lazy regex this replaced) takes over 20 s even in vitest, past this test's 10 s.
    const hostile = `${'ISSUE:\n'.repeat(300_000)}x`;
    expect(sweIssueText(hostile)).toBe(hostile.trim());
  }, 10_000);

  it('refuses a text that is not a trajectory', () => {
    expect(() => importTranscript('{"trajectory": 3}', { format: 'swe-agent' })).toThrow(/no "trajectory" array/);
  });
});

describe('edges of every format', () => {
  it('reads a legacy Codex rollout, whose items are not in envelopes', () => {
    const legacy = [
      '{"id":"0c1d2e3f-legacy","timestamp":"2025-05-01T10:00:00.000Z","instructions":null}',
      '{"type":"message","role":"user","content":[{"type":"input_text","text":"run the tests"}]}',
      `{"type":"function_call","name":"shell","arguments":${JSON.stringify(JSON.stringify({ command: ['bash', '-lc', 'go test ./...'] }))},"call_id":"call_old1"}`,
      `{"type":"function_call_output","call_id":"call_old1","output":${JSON.stringify(JSON.stringify({ output: 'ok  \texample.com/tally\t0.01s\n', metadata: { exit_code: 0 } }))}}`,
    ].join('\n');
    expect(detectTranscriptFormat(legacy)).toBe('codex');
    const imported = accepted(importTranscript(legacy));
    expect(imported.records.toolOutputs).toEqual([{ id: 'call_old1', tool: 'shell', command: 'go test ./...', output: 'ok  \texample.com/tally\t0.01s\n', exitCode: 0 }]);
    expect(imported.records.testResults?.[0]).toMatchObject({ id: 'call_old1:test', status: 'passed' });
    expect(imported.lastUserRequest).toBe('run the tests');
  });

  it('cuts a last user request over the task cap, so it can be the task', () => {
    const request = `please look at this log\n${'line of log\n'.repeat(20_000)}`;
    const imported = importTranscript(`{"type":"user","uuid":"u1","message":{"role":"user","content":${JSON.stringify(request)}}}\n`);
    expect(imported.lastUserRequest?.length).toBe(100_000);
    expect(parseOptimizerInput({ task: imported.lastUserRequest, ...imported.records }).task).toBe(imported.lastUserRequest);
  });
});
