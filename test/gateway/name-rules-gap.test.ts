// Issue 30, item 3 (a 280 KB tool name against `deny: ["*delete*repo*"]`): matching a name rule
// must not stall the gateway. Both paths that match a peer's name are attacked while a second
// session pings: a client's call of an unlisted name, and an upstream that lists the name.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message } from '../support/wire-client.js';
import { markEnvEntries, relayEntry, tempDir, writeConfig } from './_gateway-process.js';
import { MAX_PING_GAP_MS, pingGapDuring, withTwoSessions } from './_ping-gap.js';

const CATALOG_SERVER = fileURLToPath(new URL('../servers/catalog-server.mjs', import.meta.url));
/** 280,000 characters that hold "delete" everywhere and "repo" nowhere: the worst case of a backtracking `*delete*repo*`. */
const HUGE_NAME = 'delete_'.repeat(40_000);
const DENY = ['*delete*repo*'];
/** A call of ten seconds' work would take that long to answer; this bounds the attack's wait. */
const ATTACK_TIMEOUT_MS = 120_000;

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

function toolNames(response: Message): string[] {
  return ((response.result as { tools?: Array<{ name: string }> } | undefined)?.tools ?? []).map((tool) => tool.name);
}

describe('a huge tool name against a deny glob stalls no other session', () => {
  it("a client's call of a 280 KB name is refused without a stall", async () => {
    const config = writeConfig({ mcpServers: { shop: relayEntry('shop') }, deny: DENY });
    const gap = await withTwoSessions(['--config', config], async ({ attacker, probe }) => {
      // The session's catalog is built first, so the gap measures the name alone.
      await attacker.request('tools/list');
      return pingGapDuring(probe, () => attacker.request('tools/call', { name: HUGE_NAME, arguments: {} }, ATTACK_TIMEOUT_MS));
    });
    expect(gap.pings).toBeGreaterThan(0);
    expect(gap.longestGapMs, `longest ping gap ${Math.round(gap.longestGapMs)} ms over ${gap.pings} pings`).toBeLessThan(MAX_PING_GAP_MS);
    const result = gap.attack.result as { isError?: boolean; content?: Array<{ text?: string }> };
    expect(result.isError).toBe(true);
    expect(result.content?.[0]?.text).toMatch(/1,024 characters/);
  }, 180_000);

  it('an upstream that lists a 280 KB name: the tool is left out without a stall', async () => {
    const dir = tempDir('mcpctx-huge-name-');
    const catalog = join(dir, 'catalog.json');
    writeFileSync(catalog, JSON.stringify([{ name: HUGE_NAME, inputSchema: { type: 'object' } }, { name: 'read_file', inputSchema: { type: 'object' } }]));
    const entry = { command: process.execPath, args: [CATALOG_SERVER], env: { ...markEnvEntries(), CATALOG_FILE: catalog, CALL_LOG: join(dir, 'calls.log') } };
    const config = writeConfig({ mcpServers: { repo: entry }, deny: DENY }, dir);
    const gap = await withTwoSessions(['--config', config], async ({ attacker, probe }) => {
      // The probe's own list loads what any first list loads in a fresh process (the tokenizer, the
      // argument checker), so the gap measures the name alone; the attacker's session builds its own.
      await probe.request('tools/list');
      return pingGapDuring(probe, () => attacker.request('tools/list', {}, ATTACK_TIMEOUT_MS));
    });
    expect(gap.pings).toBeGreaterThan(0);
    expect(gap.longestGapMs, `longest ping gap ${Math.round(gap.longestGapMs)} ms over ${gap.pings} pings`).toBeLessThan(MAX_PING_GAP_MS);
    expect(toolNames(gap.attack)).toEqual(['read_file']);
  }, 180_000);
});
