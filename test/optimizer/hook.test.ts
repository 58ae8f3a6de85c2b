// `runCompactionHook` fed the JSON Claude Code sends (hooks reference: SessionStart with source
// "compact", PreCompact with trigger and custom_instructions) and a fixed session from a fake
// transcript parser: the output's shape, the budget held, and bad input never answered with the
// blocking exit code 2.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionRecords } from '../../src/optimizer/index.js';
import {
  MAX_COMPACTION_HOOK_INPUT_BYTES,
  readTranscriptFile,
  runCompactionHook,
  type CompactionHookOptions,
  type TranscriptImporter,
} from '../../src/optimizer/server/index.js';
import { countTokens } from '../../src/tokens/index.js';

const TRANSCRIPT_PATH = '/home/u/.claude/projects/-home-u-shop/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl';

/** A session as a transcript parser would give it: a failing test, the error, a constraint, a long log. */
const SESSION: SessionRecords = {
  messages: [
    { id: 'u1', role: 'user', text: 'Checkout fails with a 500 when the cart has a gift card. Fix it in src/checkout/total.ts; do not change the public API of CartTotal.' },
    { id: 'a1', role: 'assistant', text: 'I will run the checkout tests first.' },
  ],
  toolOutputs: [
    { id: 't1', command: 'npm run build', output: Array.from({ length: 400 }, (_, index) => `compiled module ${index} of 400 in 3ms`).join('\n'), exitCode: 0 },
  ],
  errors: [{ id: 'e1', message: 'TypeError: Cannot read properties of undefined (reading \'amount\')\n    at applyGiftCard (src/checkout/total.ts:42:17)' }],
  files: [
    {
      id: 'f1',
      path: 'src/checkout/total.ts',
      content: Array.from({ length: 300 }, (_, index) => `export function giftCardStep${index}(cart: Cart): number { return applyGiftCard(cart, cart.giftCards[${index}]) + ${index}; }`).join('\n'),
    },
  ],
  testResults: [{ id: 'r1', name: 'checkout applies a gift card', status: 'failed', output: 'expected 40.00, got NaN' }],
  decisions: [{ id: 'd1', text: 'Gift cards are applied after tax, never before.', status: 'accepted' }],
};

const fakeImporter: TranscriptImporter = () => ({ records: SESSION, lastUserRequest: 'Fix the gift card checkout failure in src/checkout/total.ts' });

function stdinOf(value: unknown): AsyncIterable<Buffer> {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return (async function* () {
    yield Buffer.from(text);
  })();
}

const readTranscript = async (): Promise<string> => '{"type":"user"}\n';

function sessionStart(source: string): Record<string, unknown> {
  return { session_id: 'abc123', transcript_path: TRANSCRIPT_PATH, cwd: '/home/u/shop', hook_event_name: 'SessionStart', source, model: 'claude-sonnet-5' };
}

function run(input: unknown, options: Partial<CompactionHookOptions> = {}): ReturnType<typeof runCompactionHook> {
  return runCompactionHook({ stdin: stdinOf(input), readFile: readTranscript, importTranscript: fakeImporter, ...options });
}

describe('optimizer hook (Claude Code compaction)', () => {
  it('SessionStart after a compaction: prints hookSpecificOutput.additionalContext for the last user request, within the default budget', async () => {
    const outcome = await run(sessionStart('compact'));
    expect(outcome.exitCode).toBe(0);
    const output = JSON.parse(outcome.stdout ?? '') as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(Object.keys(output)).toEqual(['hookSpecificOutput']);
    expect(Object.keys(output.hookSpecificOutput)).toEqual(['hookEventName', 'additionalContext']);
    expect(output.hookSpecificOutput.hookEventName).toBe('SessionStart');
    const context = output.hookSpecificOutput.additionalContext;
    expect(context).toContain('Fix the gift card checkout failure');
    expect(context).toContain('src/checkout/total.ts:42');
    expect(context).toContain('Gift cards are applied after tax');
    expect(countTokens(context)).toBeLessThanOrEqual(8_000);
    expect(outcome.built?.tokens).toBe(countTokens(context));
  });

  it('holds a small --budget and builds for --task over the last request', async () => {
    for (const budget of [300, 500, 1_000, 2_000]) {
      const outcome = await run(sessionStart('compact'), { budget, task: 'why does the gift card test fail?' });
      expect(outcome.exitCode).toBe(0);
      const context = (JSON.parse(outcome.stdout ?? '') as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
      // Filled close to the budget (the session holds far more), never over it.
      expect(countTokens(context)).toBeLessThanOrEqual(budget);
      expect(countTokens(context)).toBeGreaterThan(budget * 0.5);
      expect(context).toContain('for the task: why does the gift card test fail?');
    }
  });

  it('leaves room for its heading: with a long task, every budget from 700 to 1,600 tokens gets a context, none refused', async () => {
    const task = `fix the gift card total in src/checkout/total.ts ${Array.from({ length: 60 }, (_, index) => `w${index * 7919}`).join(' ')}`;
    for (let budget = 700; budget <= 1_600; budget += 50) {
      const outcome = await run(sessionStart('compact'), { budget, task });
      expect(outcome.exitCode, `budget ${budget}: ${outcome.stderr ?? ''}`).toBe(0);
      expect(outcome.built?.tokens).toBeLessThanOrEqual(budget);
    }
  });

  it('a budget the mandatory facts do not all fit keeps the best-ranked within it and names the rest, never exceeding it', async () => {
    const full = await run(sessionStart('compact'), { budget: 8_000 });
    const everything = JSON.parse(full.stdout ?? '{}').hookSpecificOutput.additionalContext as string;
    expect(everything).toContain('do not change the public API of CartTotal');
    expect(everything).toContain('Gift cards are applied after tax, never before.');
    for (const budget of [150, 200]) {
      const outcome = await run(sessionStart('compact'), { budget });
      expect(outcome.exitCode).toBe(0);
      const context = JSON.parse(outcome.stdout ?? '{}').hookSpecificOutput.additionalContext as string;
      expect(countTokens(context)).toBeLessThanOrEqual(budget);
      expect(outcome.stderr).toMatch(/of the session's mandatory fragments did not fit --budget \d+ .*raise --budget/);
      // Something mandatory made it in: a constraint or the accepted decision.
      expect(/public API of CartTotal|applied after tax/.test(context)).toBe(true);
    }
  });

  it('a budget with no room after its heading is refused with a remedy, not exceeded', async () => {
    const outcome = await run(sessionStart('compact'), { budget: 30 });
    expect(outcome.stdout).toBeUndefined();
    expect(outcome.exitCode).toBe(3);
    expect(outcome.stderr).toMatch(/raise --budget/);
  });

  it('other SessionStart sources add nothing and exit 0', async () => {
    for (const source of ['startup', 'resume', 'clear', 'fork']) {
      const outcome = await run(sessionStart(source));
      expect(outcome).toMatchObject({ exitCode: 0 });
      expect(outcome.stdout).toBeUndefined();
      expect(outcome.stderr).toContain(`source "${source}"`);
    }
  });

  it('PreCompact (which cannot add context, only block) prints nothing and never blocks: exit 0', async () => {
    for (const trigger of ['manual', 'auto']) {
      const outcome = await run({ session_id: 'abc123', transcript_path: TRANSCRIPT_PATH, cwd: '/home/u/shop', hook_event_name: 'PreCompact', trigger, custom_instructions: '' });
      expect(outcome.exitCode).toBe(0);
      expect(outcome.stdout).toBeUndefined();
      expect(outcome.stderr).toMatch(/PreCompact cannot add context/);
    }
  });

  it('bad input says why on stderr and exits 3 (not blocking), never 2', async () => {
    const cases: Array<[string, unknown, Partial<CompactionHookOptions>, RegExp]> = [
      ['not JSON', '{"hook_event_name": "SessionStart", ', {}, /not JSON/],
      ['an array', [sessionStart('compact')], {}, /not a JSON object/],
      ['too big', `${' '.repeat(MAX_COMPACTION_HOOK_INPUT_BYTES)}{}`, {}, /over 1,048,576 bytes/],
      ['no transcript_path', { ...sessionStart('compact'), transcript_path: undefined }, {}, /no transcript_path/],
      ['a transcript that does not exist', { ...sessionStart('compact'), transcript_path: '/nonexistent/mcpctx/transcript.jsonl' }, { readFile: readTranscriptFile }, /cannot read the transcript \/nonexistent\/mcpctx\/transcript\.jsonl: .*ENOENT/],
      ['no user request', sessionStart('compact'), { importTranscript: () => ({ records: SESSION }) }, /no user request .*--task/],
      ['a bad budget', sessionStart('compact'), { budget: 0 }, /--budget must be a positive integer/],
      ['another event', { ...sessionStart('compact'), hook_event_name: 'PostToolUse' }, {}, /PostToolUse event/],
    ];
    for (const [name, input, options, reason] of cases) {
      const outcome = await run(input, options);
      expect(outcome.exitCode, name).toBe(3);
      expect(outcome.stdout, name).toBeUndefined();
      expect(outcome.stderr, name).toMatch(reason);
    }
  });

  it('reads own properties only: a transcript_path on a polluted Object.prototype is not taken', async () => {
    const prototype = Object.prototype as Record<string, unknown>;
    prototype.transcript_path = '/etc/passwd';
    try {
      const outcome = await run({ hook_event_name: 'SessionStart', source: 'compact' });
      expect(outcome).toMatchObject({ exitCode: 3 });
      expect(outcome.stderr).toMatch(/no transcript_path/);
    } finally {
      delete prototype.transcript_path;
    }
  });

  it('a transcript over the size limit is refused before it is read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpctx-hook-'));
    const file = join(dir, 'big.jsonl');
    writeFileSync(file, 'x'.repeat(2_000));
    await expect(readTranscriptFile(file, 1_000)).rejects.toThrow(/2,000 bytes, over the 1,000-byte limit/);
    await expect(readTranscriptFile(file, 2_000)).resolves.toHaveLength(2_000);
  });
});

describe('the hook on a real transcript, as Claude Code runs it', () => {
  const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'transcripts', 'claude-code-session.jsonl');
  const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
  const input = {
    session_id: '7d0c6a52-3f1e-4b8e-9a51-2c4f0e9b1d17',
    transcript_path: FIXTURE,
    cwd: '/home/dev/shop',
    hook_event_name: 'SessionStart',
    source: 'compact',
  };

  it('the built CLI reads the JSON on stdin and the transcript it names, and prints the context within the budget', () => {
    for (const budget of [600, 2500]) {
      const run = spawnSync(process.execPath, [CLI, 'optimizer', 'hook', '--budget', String(budget)], { input: JSON.stringify(input), encoding: 'utf8', timeout: 60_000 });
      expect(run.status, run.stderr).toBe(0);
      const output = JSON.parse(run.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
      expect(output.hookSpecificOutput.hookEventName).toBe('SessionStart');
      const context = output.hookSpecificOutput.additionalContext;
      expect(countTokens(context)).toBeLessThanOrEqual(budget);
      // What the session found survives the compaction: the rounding fix it made.
      expect(context).toContain('ROUND_HALF_UP');
    }
  }, 120_000);
});
