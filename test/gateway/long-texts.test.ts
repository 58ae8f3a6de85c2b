// A result that takes long to count must not stall the gateway for its other sessions. Counting
// one long pre-tokenizer piece (a 4 MB word, 1 MiB of spaces, of newlines, of "=" or "-", 9 MiB of
// "a") took seconds on the event loop, and every other session waited that long for a ping. Here
// one session calls a tool whose upstream (the result server, over stdio) returns such a text,
// while a second session pings the gateway back to back (`_ping-gap.ts`); the longest wait of the
// second session must stay under MAX_PING_GAP_MS, and the result must still arrive, counted
// exactly (passed as it came, or offloaded behind a handle with its exact token count).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { markEnvEntries, tempDir, writeConfig } from './_gateway-process.js';
import { MAX_PING_GAP_MS, pingGapDuring, withTwoSessions } from './_ping-gap.js';

const RESULT_SERVER = new URL('../servers/result-server.mjs', import.meta.url).pathname;
const MIB = 1024 * 1024;
/** How long one huge call may take (counting seconds of merges on a loaded machine, in turns). */
const CALL_TIMEOUT_MS = 240_000;

/** One lowercase word of `length` letters, the same on every run (an LCG), so BPE has real merges to make. */
function word(length: number): string {
  let state = 20_260_901;
  const letters: string[] = [];
  for (let index = 0; index < length; index += 1) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    letters.push(String.fromCharCode(0x61 + (state >>> 16) % 26));
  }
  return letters.join('');
}

interface Case {
  /** The upstream's name in the gateway config, and the test's label. */
  readonly name: string;
  /** The file's text; the server sends it `repeat` times in one text block. */
  readonly text: () => string;
  readonly repeat: number;
  /** The o200k count of the whole text when it is known in closed form (one token per 128 spaces, 16 newlines, 64 "=" or "-", 8 "a"). */
  readonly tokens?: number;
}

const CASES: readonly Case[] = [
  { name: 'word', text: () => word(MIB), repeat: 4 },
  { name: 'spaces', text: () => ' '.repeat(MIB), repeat: 1, tokens: MIB / 128 },
  { name: 'newlines', text: () => '\n'.repeat(MIB), repeat: 1, tokens: MIB / 16 },
  { name: 'equals', text: () => '='.repeat(MIB), repeat: 1, tokens: MIB / 64 },
  { name: 'dashes', text: () => '-'.repeat(MIB), repeat: 1, tokens: MIB / 64 },
  { name: 'letter', text: () => 'a'.repeat(MIB), repeat: 9, tokens: (9 * MIB) / 8 },
];

describe('a result that is slow to count does not stall the other sessions', () => {
  let config: string;

  beforeAll(() => {
    const dir = tempDir('mcpctx-long-texts-');
    const mcpServers: Record<string, unknown> = {};
    for (const { name, text, repeat } of CASES) {
      const file = join(dir, `${name}.txt`);
      writeFileSync(file, text());
      mcpServers[name] = { command: process.execPath, args: [RESULT_SERVER], env: { ...markEnvEntries(), RESULT_FILE: file, RESULT_REPEAT: String(repeat) } };
    }
    config = writeConfig({ mcpServers }, dir);
  });

  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it(`answers a second session's pings within ${MAX_PING_GAP_MS} ms while each text is counted`, { timeout: CASES.length * CALL_TIMEOUT_MS }, async () => {
    const gaps: Array<{ name: string; longestGapMs: number; pings: number }> = [];
    await withTwoSessions(['--config', config], async ({ attacker, probe }) => {
      for (const { name, text, repeat, tokens } of CASES) {
        const chars = text().length * repeat;
        const gap = await pingGapDuring(probe, () => attacker.request('tools/call', { name: `${name}__get_result`, arguments: {} }, CALL_TIMEOUT_MS));
        const result = gap.attack.result as { content?: Array<{ text?: string }>; isError?: boolean } | undefined;
        const delivered = result?.content?.[0]?.text ?? '';
        // Passed as it came (under the 25,000-token cap), or offloaded: a preview naming its handle and size.
        const offloaded = delivered.length === chars ? undefined : (JSON.parse(delivered) as { handle?: unknown; tokens?: unknown });
        expect({ name, isError: result?.isError, handle: typeof offloaded?.handle }).toEqual({ name, isError: undefined, handle: offloaded ? 'string' : 'undefined' });
        if (tokens !== undefined && offloaded) expect({ name, tokens: offloaded.tokens }).toEqual({ name, tokens });
        gaps.push({ name, longestGapMs: Math.round(gap.longestGapMs), pings: gap.pings });
      }
    });
    if (process.env.MCPCTX_PRINT_GAPS === '1') console.log(JSON.stringify(gaps));
    expect(gaps.filter((gap) => gap.pings === 0 || gap.longestGapMs > MAX_PING_GAP_MS)).toEqual([]);
  });
});

// The same through a result rule: `project` and `format` make a new text from the records, and
// that text is counted again before it goes (a record can hold 1 MiB of spaces). Counted on the
// event loop, it held the other sessions 505-577 ms.
describe('a result shaped by a rule, holding a text that is slow to count, does not stall the other sessions', () => {
  const RULES: Readonly<Record<string, Record<string, unknown>>> = { json: { format: 'json' }, project: { project: ['id', 'body'] }, csv: { format: 'csv' } };

  it(`answers a second session's pings within ${MAX_PING_GAP_MS} ms while each shaped result is counted`, { timeout: 3 * CALL_TIMEOUT_MS }, async () => {
    const dir = tempDir('mcpctx-long-shaped-');
    const file = join(dir, 'records.json');
    writeFileSync(file, JSON.stringify([{ id: 1, body: `${' '.repeat(MIB)}x` }, { id: 2, body: 'short' }]));
    const mcpServers: Record<string, unknown> = {};
    const tools: Record<string, unknown> = {};
    for (const [name, rules] of Object.entries(RULES)) {
      mcpServers[name] = { command: process.execPath, args: [RESULT_SERVER], env: { ...markEnvEntries(), RESULT_FILE: file } };
      tools[`${name}__get_result`] = rules;
    }
    const gaps: Array<{ name: string; longestGapMs: number; pings: number }> = [];
    await withTwoSessions(['--config', writeConfig({ mcpServers, tools }, dir)], async ({ attacker, probe }) => {
      for (const name of Object.keys(RULES)) {
        const gap = await pingGapDuring(probe, () => attacker.request('tools/call', { name: `${name}__get_result`, arguments: {} }, CALL_TIMEOUT_MS));
        const result = gap.attack.result as { content?: Array<{ text?: string }>; isError?: boolean } | undefined;
        // The shaped records, under the cap: both records, the long body whole.
        expect({ name, isError: result?.isError, long: result?.content?.[0]?.text?.includes(`${' '.repeat(MIB)}x`), short: result?.content?.[0]?.text?.includes('short') }).toEqual({
          name,
          isError: undefined,
          long: true,
          short: true,
        });
        gaps.push({ name, longestGapMs: Math.round(gap.longestGapMs), pings: gap.pings });
      }
    });
    if (process.env.MCPCTX_PRINT_GAPS === '1') console.log(JSON.stringify(gaps));
    expect(gaps.filter((gap) => gap.pings === 0 || gap.longestGapMs > MAX_PING_GAP_MS)).toEqual([]);
  });
});
