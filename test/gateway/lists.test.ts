// tools/list through the gateway: an upstream's pagination followed to the end and bounded (a
// cursor loop, 5,000 tools), the gateway's own pages with cursors bound to the session and the
// catalog, and notifications/tools/list_changed rebuilding the catalog. Through the real CLI.
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message } from '../support/wire-client.js';
import { gatewayOverHttp, relayEntry, writeConfig } from './_gateway-process.js';
import { relayArgs } from './_gateway-process.js';
import { INITIALIZE_PARAMS, scriptedArgs, scriptedEntry, withGateway } from './_raw-stdio.js';

/** Same as TOOLS_PAGE_SIZE in src/gateway/session/_tools.ts (written out: the test must not borrow it). */
const PAGE_SIZE = 128;
const MANY = 5_000;

interface ToolsPage {
  tools: Array<{ name: string }>;
  nextCursor?: string;
  _meta?: Record<string, unknown>;
}

const names = (response: Message): string[] => (response.result as ToolsPage).tools.map((tool) => tool.name);
const errorOf = (response: Message): { code: number; message: string } => response.error as { code: number; message: string };

/** Walks the gateway's pages from the first; bounded by `maxPages`. */
async function walk(request: (params?: Message) => Promise<Message>, maxPages = 100): Promise<{ pages: string[][]; cursors: string[] }> {
  const pages: string[][] = [];
  const cursors: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const response = await request(cursor === undefined ? undefined : { cursor });
    expect(response.error).toBeUndefined();
    pages.push(names(response));
    cursor = (response.result as ToolsPage).nextCursor;
    if (cursor === undefined) return { pages, cursors };
    cursors.push(cursor);
  }
  throw new Error(`still more pages after ${maxPages}`);
}

/** The same cursor with one character in its middle changed. */
function tamper(cursor: string): string {
  const at = Math.floor(cursor.length / 2);
  const swapped = cursor[at] === 'A' ? 'B' : 'A';
  return cursor.slice(0, at) + swapped + cursor.slice(at + 1);
}

const expectedManyNames = Array.from({ length: MANY }, (_, index) => `tool_${String(index).padStart(5, '0')}`);

describe('gateway tools/list', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
  });

  it("follows an upstream's pagination to the end: 7 tools over 3 pages arrive in one list", async () => {
    await withGateway(scriptedArgs('pages3'), async (gateway) => {
      await gateway.initialize();
      const listed = await gateway.request('tools/list');
      expect(names(listed)).toEqual(['get_weather', 'search_docs', 'echo', 'list_issues', 'get_issue', 'close_issue', 'get_file']);
      expect(listed.result).not.toHaveProperty('nextCursor');
    });
  });

  it('an upstream cursor loop is bounded: tools/list fails naming the repeated cursor, and the session keeps serving', async () => {
    await withGateway(scriptedArgs('cursor-loop'), async (gateway) => {
      await gateway.initialize();
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const listed = await gateway.request('tools/list');
        expect(listed.result).toBeUndefined();
        expect(errorOf(listed).message).toMatch(/repeated the cursor "a"/);
      }
      expect((await gateway.request('ping')).result).toEqual({});
    });
  });

  it('with two upstreams, a looping one is named unavailable in _meta and the other still lists', async () => {
    const config = writeConfig({ mcpServers: { loop: scriptedEntry('cursor-loop'), good: scriptedEntry('pages3') } });
    await withGateway(['--config', config], async (gateway) => {
      await gateway.initialize();
      const listed = await gateway.request('tools/list');
      expect(names(listed)).toHaveLength(7);
      expect(names(listed).every((name) => name.startsWith('good__'))).toBe(true);
      const unavailable = (listed.result as ToolsPage)._meta?.['mcpctx/unavailable'] as Record<string, string>;
      expect(Object.keys(unavailable)).toEqual(['loop']);
      expect(unavailable.loop).toMatch(/repeated the cursor/);
    });
  });

  it("5,000 upstream tools reach the client as the gateway's own pages of 128, whose cursors walk all of them exactly once", async () => {
    await withGateway(scriptedArgs('many-tools'), async (gateway) => {
      await gateway.initialize();
      const { pages, cursors } = await walk((params) => gateway.request('tools/list', params));
      expect(pages).toHaveLength(Math.ceil(MANY / PAGE_SIZE));
      for (const page of pages.slice(0, -1)) expect(page).toHaveLength(PAGE_SIZE);
      expect(pages.flat()).toEqual(expectedManyNames);
      expect(new Set(cursors).size).toBe(cursors.length);
      // A cursor is a position, not a session state: asking again gives the same page, never the first.
      const again = await gateway.request('tools/list', { cursor: cursors[9] });
      expect(names(again)).toEqual(pages[10]);
      // null is how many clients say "no cursor": the first page.
      expect(names(await gateway.request('tools/list', { cursor: null }))).toEqual(pages[0]);
    });
  });

  it('a tampered, made-up or foreign gateway cursor is refused with -32602, never restarts', async () => {
    const foreign = await withGateway(scriptedArgs('many-tools'), async (other) => {
      await other.initialize();
      return ((await other.request('tools/list')).result as ToolsPage).nextCursor as string;
    });
    await withGateway(scriptedArgs('many-tools'), async (gateway) => {
      await gateway.initialize();
      const first = (await gateway.request('tools/list')).result as ToolsPage;
      const own = first.nextCursor as string;
      // The upstream's own cursor format is not the gateway's: it must not be passed through.
      for (const cursor of [tamper(own), own.slice(0, -2), 'offset-100', foreign, 42]) {
        const refused = await gateway.request('tools/list', { cursor });
        expect(refused.result, `cursor ${JSON.stringify(cursor)}`).toBeUndefined();
        expect(errorOf(refused).code, `cursor ${JSON.stringify(cursor)}`).toBe(-32602);
      }
      // Still serving, and its own cursor still works.
      expect(names(await gateway.request('tools/list', { cursor: own }))[0]).toBe(`tool_${String(PAGE_SIZE).padStart(5, '0')}`);
    });
  });

  it("over HTTP, one session's cursor is refused in another session of the same gateway", async () => {
    const config = writeConfig({ mcpServers: { many: scriptedEntry('many-tools') } });
    const gateway = await gatewayOverHttp(['--config', config]);
    const alice = gateway.client();
    const bob = gateway.client();
    try {
      await alice.request('initialize', INITIALIZE_PARAMS);
      await bob.request('initialize', INITIALIZE_PARAMS);
      const cursor = ((await alice.request('tools/list')).result as ToolsPage).nextCursor as string;
      const refused = await bob.request('tools/list', { cursor });
      expect(refused.result).toBeUndefined();
      expect(errorOf(refused).code).toBe(-32602);
      expect(names(await alice.request('tools/list', { cursor }))).toHaveLength(PAGE_SIZE);
    } finally {
      await alice.close();
      await bob.close();
      await gateway.stop();
    }
  });

  it('notifications/tools/list_changed from the one upstream reaches the client, and the next tools/list is rebuilt', async () => {
    await withGateway(relayArgs('one'), async (gateway) => {
      await gateway.initialize();
      const before = names(await gateway.request('tools/list'));
      expect(before).not.toContain('fresh');
      const changed = await gateway.request('tools/call', { name: 'change', arguments: { add: 'fresh' } });
      expect(changed.error).toBeUndefined();
      await gateway.waitFor(() => gateway.received.some((message) => message.method === 'notifications/tools/list_changed'));
      expect(names(await gateway.request('tools/list'))).toEqual([...before, 'fresh']);
      const called = await gateway.request('tools/call', { name: 'fresh', arguments: {} });
      expect(called.result).toMatchObject({ content: [{ type: 'text', text: 'one:fresh' }] });
    });
  });

  it('with two upstreams, a list change of one rebuilds the merged catalog under its namespace', async () => {
    const config = writeConfig({ mcpServers: { a: relayEntry('a'), b: relayEntry('b') } });
    await withGateway(['--config', config], async (gateway) => {
      await gateway.initialize();
      const before = names(await gateway.request('tools/list'));
      expect(before).toContain('b__echo');
      await gateway.request('tools/call', { name: 'b__change', arguments: { add: 'fresh' } });
      await gateway.waitFor(() => gateway.received.some((message) => message.method === 'notifications/tools/list_changed'));
      const after = names(await gateway.request('tools/list'));
      expect(after.filter((name) => !before.includes(name))).toEqual(['b__fresh']);
      const called = await gateway.request('tools/call', { name: 'b__fresh', arguments: {} });
      expect(called.result).toMatchObject({ content: [{ type: 'text', text: 'b:fresh' }] });
    });
  });
});
