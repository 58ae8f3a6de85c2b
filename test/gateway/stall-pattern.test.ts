// Issue 30, item 3 (the pattern part): an upstream's inputSchema `pattern` must not let one call
// stall the gateway. `^(a+)+$` against 30 `a` and a `!` backtracks for seconds in JavaScript's
// RegExp; the gateway's argument checks run patterns on RE2 (linear time), so the call is refused
// at once. The call runs on one session of a real gateway process while a second session pings it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message } from '../support/wire-client.js';
import { markEnvEntries, tempDir, writeConfig } from './_gateway-process.js';
import { MAX_PING_GAP_MS, pingGapDuring, withTwoSessions } from './_ping-gap.js';

const CATALOG_SERVER = fileURLToPath(new URL('../servers/catalog-server.mjs', import.meta.url));
/** `a` before the `!`: 30 is the figure (8.4 s of backtracking); smaller values measure the unbounded code quickly. */
const RUN = Number(process.env.STALL_PATTERN_RUN ?? 30);

const TOOLS = [
  {
    name: 'lookup',
    description: 'Look a name up.',
    inputSchema: { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } }, required: ['name'] },
  },
];

function textOf(response: Message): string {
  const result = response.result as { content?: Array<{ text?: string }> } | undefined;
  return result?.content?.[0]?.text ?? '';
}

describe('schema patterns cannot stall the gateway (issue 30, item 3)', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it(`^(a+)+$ against ${RUN} a and a !: refused by the argument check, and a second session's pings wait at most ${MAX_PING_GAP_MS} ms`, async () => {
    const dir = tempDir();
    const catalog = join(dir, 'catalog.json');
    const calls = join(dir, 'calls.jsonl');
    writeFileSync(catalog, JSON.stringify(TOOLS));
    writeFileSync(calls, '');
    const config = writeConfig({ mcpServers: { names: { command: process.execPath, args: [CATALOG_SERVER], env: { ...markEnvEntries(), CATALOG_FILE: catalog, CALL_LOG: calls } } } }, dir);
    await withTwoSessions(['--config', config], async ({ attacker, probe }) => {
      // The client has seen the tool (its schema is what the call is checked against).
      const listed = (await attacker.request('tools/list')).result as { tools: Array<{ name: string }> };
      expect(listed.tools.map((tool) => tool.name)).toContain('lookup');
      const name = `${'a'.repeat(RUN)}!`;
      const gap = await pingGapDuring(probe, () => attacker.request('tools/call', { name: 'lookup', arguments: { name } }, 120_000));
      const text = textOf(gap.attack);
      console.log(`stall-pattern: ^(a+)+$ against ${RUN} a and !: longest ping gap ${gap.longestGapMs.toFixed(0)} ms over ${gap.pings} pings; answer ${JSON.stringify(text.slice(0, 160))}`);
      // The attack arrived and was answered: refused by the argument check, never sent upstream.
      expect((gap.attack.result as { isError?: boolean } | undefined)?.isError).toBe(true);
      expect(text).toContain('a string matching ^(a+)+$');
      expect(readFileSync(calls, 'utf8')).toBe('');
      expect(gap.pings).toBeGreaterThan(0);
      expect(gap.longestGapMs).toBeLessThanOrEqual(MAX_PING_GAP_MS);
      // A name that fits passes the check and reaches the server.
      const fine = await attacker.request('tools/call', { name: 'lookup', arguments: { name: 'aaa' } });
      expect(textOf(fine)).toBe('called lookup');
    });
  });
});
