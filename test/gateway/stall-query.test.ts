// Issue 30, item 2: one read_result query must not stall the gateway for everyone. A query can
// build a value of shared references (`[@,@]|[@,@]|...` doubles it at every pipe), run a library
// function over a huge built value, or make a regular expression backtrack; the gateway bounds its
// evaluation with a step budget and refuses the query with INVALID_QUERY naming the budget. Each
// attack runs on one session of a real gateway process while a second session pings it: the
// longest wait between two answers must stay under MAX_PING_GAP_MS.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message, WireClient } from '../support/wire-client.js';
import { markEnvEntries, writeConfig } from './_gateway-process.js';
import { MAX_PING_GAP_MS, pingGapDuring, withTwoSessions } from './_ping-gap.js';

const RESULT_SERVER = fileURLToPath(new URL('../servers/result-server.mjs', import.meta.url));
/** Pipes of the doubling query: 40 is the query (2^40 values when written out). */
const PIPES = Number(process.env.STALL_QUERY_PIPES ?? 40);
/** Steps of the multiselect-hash query (each doubles the value) and spaces of the trim attack; smaller values measure the unbounded code without waiting forever. */
const HASHES = Number(process.env.STALL_QUERY_HASHES ?? 24);
const SPACES = Number(process.env.STALL_QUERY_SPACES ?? 20_000);

function textOf(response: Message): string {
  const result = response.result as { content?: Array<{ text?: string }> } | undefined;
  return result?.content?.[0]?.text ?? '';
}

function isError(response: Message): boolean {
  return (response.result as { isError?: boolean } | undefined)?.isError === true;
}

const call = (client: WireClient, name: string, args: Record<string, unknown>) => client.request('tools/call', { name, arguments: args }, 120_000);

/** A gateway whose one upstream is the result server, with a cap low enough that list_packages and a long echo are offloaded. */
function gatewayArgs(): string[] {
  const config = writeConfig({ mcpServers: { results: { command: process.execPath, args: [RESULT_SERVER], env: markEnvEntries() } }, capTokens: 500 });
  return ['--config', config];
}

/** The handle of an offloaded result: the preview is JSON with `handle`. */
async function offloaded(client: WireClient, tool: string, args: Record<string, unknown>): Promise<string> {
  const preview = await call(client, tool, args);
  expect(isError(preview), textOf(preview)).toBe(false);
  const body = JSON.parse(textOf(preview)) as { handle?: string };
  expect(typeof body.handle).toBe('string');
  return body.handle as string;
}

/** Enough varied words that an echo of them is over the gateway's cap (spaces alone are few tokens). */
const FILLER = Array.from({ length: 1500 }, (_, index) => `word${index}`).join(' ');

interface Attack {
  readonly name: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly query: string;
  /** The answer that proves the query arrived and was dealt with: a refusal naming the budget, or the value. */
  readonly answer: RegExp;
}

const doubled = (count: number, step = '[@,@]'): string => Array.from({ length: count }, () => step).join('|');

const ATTACKS: readonly Attack[] = [
  {
    // The query: 239 characters; every pipe doubles the value (shared references), so the depth check walked 2^40 nodes.
    name: `[@,@] piped ${PIPES} times`,
    tool: 'list_packages',
    args: {},
    query: doubled(PIPES),
    answer: /^INVALID_QUERY: .*characters of JSON written out, over the 2,000,000 a query may build/,
  },
  {
    // A cousin: objects instead of arrays, then a function that writes the whole built value out.
    name: `multiselect hashes ${HASHES} deep, then to_string of the built value`,
    tool: 'list_packages',
    args: {},
    query: `${doubled(HASHES, '{a:@,b:@}')} | to_string(@)`,
    answer: /^INVALID_QUERY: .*1,000,000-step budget of a query/,
  },
  {
    // Nested projections visit every copy of the doubled value: the work a query may do before its budget (or deadline) stops it.
    name: 'nested projections over a doubled value, up to the step budget',
    tool: 'list_packages',
    args: {},
    query: `${doubled(20)} | ${'[*]'.repeat(20)}.result[*].name`,
    answer: /^INVALID_QUERY: .*(1,000,000-step budget of a query|ms a query may take)/,
  },
  {
    // The library's trim_right builds the RegExp (.*?)[\s\x85]*$: it backtracks over a run of spaces before a newline.
    name: `trim_right over ${SPACES} spaces and a newline`,
    tool: 'echo_arguments',
    args: { text: `${' '.repeat(SPACES)}\nx`, filler: FILLER },
    query: 'trim_right(text)',
    answer: /^" {20,}\\nx"$/,
  },
];

describe('read_result queries cannot stall the gateway (issue 30, item 2)', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  for (const attack of ATTACKS) {
    it(`${attack.name}: refused or answered, and a second session's pings wait at most ${MAX_PING_GAP_MS} ms`, async () => {
      await withTwoSessions(gatewayArgs(), async ({ attacker, probe }) => {
        const handle = await offloaded(attacker, attack.tool, attack.args);
        const gap = await pingGapDuring(probe, () => call(attacker, 'read_result', { handle, query: attack.query }));
        const text = textOf(gap.attack);
        console.log(`stall-query: ${attack.name}: longest ping gap ${gap.longestGapMs.toFixed(0)} ms over ${gap.pings} pings; answer ${JSON.stringify(text.slice(0, 160))}`);
        expect(text).toMatch(attack.answer);
        expect(gap.pings).toBeGreaterThan(0);
        expect(gap.longestGapMs).toBeLessThanOrEqual(MAX_PING_GAP_MS);
      });
    });
  }
});
