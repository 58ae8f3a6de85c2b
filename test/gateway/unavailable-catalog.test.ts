// One upstream's unusable catalog (a name twice, a tool that is not an object, a name that is not a
// string, tools that are not an array) makes that upstream unavailable for the session, not the
// session: the other upstreams' tools are listed, the bad one is named in _meta, said once on
// stderr and in the list receipt, and a call to its tools is refused without reaching it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pollUntil, waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message } from '../support/wire-client.js';
import { markEnvEntries, relayEntry, tempDir, writeConfig } from './_gateway-process.js';
import { withInProcessGateway } from './_in-process.js';
import { scriptedEntry } from './_raw-stdio.js';

const CATALOG_SERVER = fileURLToPath(new URL('../servers/catalog-server.mjs', import.meta.url));

interface ToolsPage {
  tools: Array<{ name: string }>;
  _meta?: Record<string, Record<string, string>>;
}

const tool = (name: unknown): unknown => ({ name, description: 'x', inputSchema: { type: 'object' } });
const listed = (response: Message): ToolsPage => response.result as ToolsPage;
const textOf = (response: Message): string => ((response.result as { content: Array<{ text: string }> }).content[0]?.text ?? '');

/** A catalog-server upstream entry whose tools/list answers `{tools: <catalog>}`, and its call log. */
function catalogEntry(dir: string, name: string, catalog: unknown): { entry: Record<string, unknown>; calls: () => string } {
  const file = join(dir, `${name}.json`);
  const log = join(dir, `${name}.log`);
  writeFileSync(file, JSON.stringify(catalog));
  return {
    entry: { command: process.execPath, args: [CATALOG_SERVER], env: { ...markEnvEntries(), CATALOG_FILE: file, CALL_LOG: log } },
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8') : ''),
  };
}

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

describe('an upstream whose catalog cannot be used', () => {
  it.each([
    ['lists one name twice', [tool('send'), tool('read'), tool('send')], /bad listed the tool "send" twice/],
    ['lists a tool that is not an object', [tool('send'), 'read'], /bad listed a tool that is not an object \(tools\[1\]\)/],
    ['lists a tool whose name is not a string', [tool('send'), tool(7)], /bad listed a tool without a string name \(tools\[1\]\)/],
    ['answers tools that are not an array', { tools: { send: tool('send') } }, /bad answered tools\/list with a tools that is not an array/],
  ])('%s: is unavailable, the good upstream still lists and serves, its calls are refused', async (_case, catalog, reason) => {
    const dir = tempDir('mcpctx-bad-catalog-');
    const bad = catalogEntry(dir, 'bad', catalog);
    const receipts = join(dir, 'receipts.jsonl');
    const config = writeConfig({ mcpServers: { bad: bad.entry, good: relayEntry('good') } }, dir);
    await withInProcessGateway({ config, receipts }, async (gateway) => {
      await gateway.initialize();
      const first = listed(await gateway.request('tools/list'));
      expect(first.tools.length).toBeGreaterThan(0);
      expect(first.tools.every((one) => one.name.startsWith('good__'))).toBe(true);
      expect(Object.keys(first._meta?.['mcpctx/unavailable'] ?? {})).toEqual(['bad']);
      expect(first._meta?.['mcpctx/unavailable']?.bad).toMatch(reason);
      // The good upstream's list changes: the catalog is built again, and the bad one is not said twice.
      await gateway.request('tools/call', { name: 'good__change', arguments: {} });
      await gateway.waitFor((received) => received.some((message) => message.method === 'notifications/tools/list_changed'), 10_000, 'list_changed');
      expect(Object.keys(listed(await gateway.request('tools/list'))._meta?.['mcpctx/unavailable'] ?? {})).toEqual(['bad']);

      expect(textOf(await gateway.request('tools/call', { name: 'good__echo', arguments: { text: 'ok' } }))).toBe('ok');
      const refused = await gateway.request('tools/call', { name: 'bad__send', arguments: {} });
      expect(refused.result).toMatchObject({ isError: true });
      expect(textOf(refused)).toMatch(/^bad__send cannot be called: /);
      expect(textOf(refused)).toMatch(reason);
      expect(bad.calls()).toBe('');

      expect(await pollUntil(() => existsSync(receipts) && readFileSync(receipts, 'utf8').includes('"tool":"bad__send"'), 10_000)).toBe(true);
      const lines = gateway.stderr().split('\n').filter((line) => line.includes('bad: tools/list failed'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(reason);
      const listReceipts = readFileSync(receipts, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { kind: string; note?: string; action: string; tool: string | null });
      expect(listReceipts.filter((one) => one.kind === 'list').every((one) => (one.note ?? '').startsWith('bad unavailable: '))).toBe(true);
      expect(listReceipts.find((one) => one.tool === 'bad__send')).toMatchObject({ action: 'refused' });
    });
  }, 60_000);

  it('an upstream whose tools/list pages loop is unavailable and its calls are refused, not relayed', async () => {
    const config = writeConfig({ mcpServers: { loop: scriptedEntry('cursor-loop'), good: relayEntry('good') } });
    await withInProcessGateway({ config }, async (gateway) => {
      await gateway.initialize();
      const page = listed(await gateway.request('tools/list'));
      expect(page._meta?.['mcpctx/unavailable']?.loop).toMatch(/repeated the cursor/);
      const refused = await gateway.request('tools/call', { name: 'loop__echo', arguments: {} });
      expect(refused.result).toMatchObject({ isError: true });
      expect(textOf(refused)).toMatch(/^loop__echo cannot be called: .*repeated the cursor/);
    });
  }, 60_000);

  it('two tools of two upstreams that would share one name are both left out and refused; their other tools are listed', async () => {
    const dir = tempDir('mcpctx-clash-');
    // With the separator "__", server "a_" tool "x" and server "a" tool "_x" are both "a___x".
    const left = catalogEntry(dir, 'left', [tool('x'), tool('only_left')]);
    const right = catalogEntry(dir, 'right', [tool('_x'), tool('only_right')]);
    const config = writeConfig({ mcpServers: { a_: left.entry, a: right.entry } }, dir);
    await withInProcessGateway({ config }, async (gateway) => {
      await gateway.initialize();
      const page = listed(await gateway.request('tools/list'));
      expect(page.tools.map((one) => one.name).sort()).toEqual(['a___only_left', 'a__only_right']);
      expect(page._meta?.['mcpctx/unavailableTools']?.a___x).toMatch(/two tools would both be called "a___x"/);
      const refused = await gateway.request('tools/call', { name: 'a___x', arguments: {} });
      expect(refused.result).toMatchObject({ isError: true });
      expect(textOf(refused)).toMatch(/two tools would both be called/);
      expect(left.calls() + right.calls()).toBe('');
      expect(gateway.stderr()).toContain('a___x: left out of the catalog');
    });
  }, 60_000);

  it("a tool named like a gateway meta-tool is left out; the upstream's other tools are listed", async () => {
    const dir = tempDir('mcpctx-reserved-');
    const one = catalogEntry(dir, 'one', [tool('read_result'), tool('send')]);
    await withInProcessGateway({ config: writeConfig({ mcpServers: { one: one.entry } }, dir) }, async (gateway) => {
      await gateway.initialize();
      const page = listed(await gateway.request('tools/list'));
      expect(page.tools.map((entry) => entry.name)).toEqual(['send']);
      expect(page._meta?.['mcpctx/unavailableTools']?.read_result).toMatch(/a gateway meta-tool/);
    });
  }, 60_000);
});
