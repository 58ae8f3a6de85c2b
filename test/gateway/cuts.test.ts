// Acceptance 4: cuts on real data. The `before` pull-requests example (every field of 30 real
// pull requests, as text and again as structuredContent: 227,605 tokens on the wire, 113,801 counted once) is the upstream.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/tokens/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message, WireClient } from '../support/wire-client.js';
import { WalkedItems } from './_walked-items.js';
import { gatewayOverHttp, gatewayOverStdio, markEnvEntries, tempDir, writeConfig } from './_gateway-process.js';
import { receiptsIn } from './_receipts-file.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/pull-requests/', import.meta.url));
const ALL_NUMBERS = (JSON.parse(readFileSync(join(EXAMPLE, 'data/pulls.json'), 'utf8')) as Array<{ number: number }>).map((pull) => pull.number).sort((a, b) => a - b);
const UPSTREAM = { command: process.execPath, args: [join(EXAMPLE, 'server.js'), 'before'], env: markEnvEntries() };
const PAGE_TOKENS = 2_000;

function textOf(response: Message): string {
  const result = response.result as { content?: Array<{ text?: string }> } | undefined;
  return result?.content?.[0]?.text ?? '';
}

function isError(response: Message): boolean {
  return (response.result as { isError?: boolean } | undefined)?.isError === true;
}

async function open(client: WireClient): Promise<void> {
  await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cuts', version: '1' } });
  await client.notify('notifications/initialized');
}

const call = (client: WireClient, name: string, args: Record<string, unknown>) => client.request('tools/call', { name, arguments: args }, 60_000);

describe('gateway cuts on the real pull requests', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('project + pageTokens: delivered tokens fall by at least 96% and every PR is reachable through the cursor', async () => {
    const dir = tempDir();
    const receipts = join(dir, 'receipts.jsonl');
    const config = writeConfig(
      {
        mcpServers: { prs: UPSTREAM },
        tools: {
          list_pull_requests: {
            project: ['number', 'title', 'state', { path: 'user.login', as: 'author' }, 'created_at', 'merged_at', { path: 'body', maxChars: 200 }],
            pageTokens: PAGE_TOKENS,
          },
        },
      },
      dir,
    );
    const client = gatewayOverStdio(['--config', config, '--receipts', receipts]);
    const seen: number[] = [];
    try {
      await open(client);
      const listed = (await client.request('tools/list')).result as { tools: Array<{ name: string; inputSchema: { properties: Record<string, unknown> } }> };
      expect(Object.keys(listed.tools[0]!.inputSchema.properties)).toContain('cursor');
      let args: Record<string, unknown> = {};
      for (let pageCount = 0; pageCount < 50; pageCount += 1) {
        const response = await call(client, 'list_pull_requests', args);
        expect(isError(response)).toBe(false);
        const text = textOf(response);
        expect(countTokens(text)).toBeLessThanOrEqual(PAGE_TOKENS);
        const page = JSON.parse(text) as { items: Array<{ number: number; title?: string }>; next_cursor: string | null };
        for (const item of page.items) {
          expect(Object.keys(item)).toContain('author');
          seen.push(item.number);
        }
        if (page.next_cursor === null) break;
        args = { cursor: page.next_cursor };
      }
    } finally {
      await client.close();
    }
    expect([...seen].sort((a, b) => a - b)).toEqual(ALL_NUMBERS);
    const calls = receiptsIn(receipts).filter((receipt) => receipt.kind === 'call');
    const upstream = calls.reduce((sum, receipt) => sum + receipt.upstreamTokens, 0);
    const delivered = calls.reduce((sum, receipt) => sum + receipt.deliveredTokens, 0);
    // One upstream call (the first page); every continuation came from the gateway's store.
    expect(calls.filter((receipt) => receipt.upstreamTokens > 0)).toHaveLength(1);
    console.log(`cuts: ${calls.length} pages, ${delivered} tokens delivered of ${upstream} from the upstream (${((delivered / upstream) * 100).toFixed(2)}%)`);
    expect(upstream).toBe(113_801);
    expect(delivered / upstream).toBeLessThanOrEqual(0.04);
    expect(calls.every((receipt) => receipt.action === 'paged')).toBe(true);
  });

  it('capTokens only: offloaded; read_result walks all of it in pages under the budget; JMESPath gives the numbers only; tampering refused', async () => {
    const client = gatewayOverStdio(['--config', writeConfig({ mcpServers: { prs: UPSTREAM } })]);
    try {
      await open(client);
      const preview = await call(client, 'list_pull_requests', {});
      expect(isError(preview)).toBe(false);
      const body = JSON.parse(textOf(preview)) as { handle: string; tokens: number; shape: unknown; next_cursor: string | null; items: unknown[] };
      expect(body.tokens).toBeGreaterThan(100_000);
      expect(countTokens(textOf(preview))).toBeLessThanOrEqual(25_000);
      // The client is told read_result exists now, and it is listed.
      await client.waitFor((received) => received.some((message) => message.method === 'notifications/tools/list_changed'));
      const listed = (await client.request('tools/list')).result as { tools: Array<{ name: string }> };
      expect(listed.tools.map((tool) => tool.name)).toContain('read_result');

      const walked = new WalkedItems();
      walked.items.push(...body.items);
      let args: Record<string, unknown> = { handle: body.handle, cursor: body.next_cursor };
      for (let pageCount = 0; pageCount < 1000 && args.cursor !== null; pageCount += 1) {
        const response = await call(client, 'read_result', args);
        expect(isError(response), textOf(response)).toBe(false);
        expect(countTokens(textOf(response))).toBeLessThanOrEqual(4_000);
        args = { handle: body.handle, cursor: walked.add(textOf(response)).next_cursor };
      }
      // A PR larger than a page comes in parts of its JSON text, joined by WalkedItems.
      const seen = (walked.items as Array<{ number: number }>).map((pull) => pull.number);
      expect([...seen].sort((a, b) => a - b)).toEqual(ALL_NUMBERS);
      console.log(`offload: preview ${countTokens(textOf(preview))} tokens for a ${body.tokens}-token result; read_result walked ${seen.length} PRs`);

      const numbers = await call(client, 'read_result', { handle: body.handle, query: 'pull_requests[*].number' });
      expect(isError(numbers), textOf(numbers)).toBe(false);
      const numbersText = textOf(numbers);
      expect(numbersText).not.toMatch(/title|html_url/);
      expect(JSON.stringify(numbersText.match(/\d+/g)?.map(Number).filter((n) => ALL_NUMBERS.includes(n)).sort((a, b) => a - b))).toBe(JSON.stringify(ALL_NUMBERS));

      const flip = (value: string): string => value.slice(0, 20) + (value[20] === 'A' ? 'B' : 'A') + value.slice(21);
      const badHandle = await call(client, 'read_result', { handle: flip(body.handle) });
      expect(isError(badHandle)).toBe(true);
      expect(body.next_cursor).not.toBeNull();
      const badCursor = await call(client, 'read_result', { handle: body.handle, cursor: flip(body.next_cursor as string) });
      expect(isError(badCursor)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('with --store FILE the offloaded result lives in SQLite, and --key-env signs its handle', async () => {
    const dir = tempDir();
    const store = join(dir, 'offload.db');
    const client = gatewayOverStdio(['--config', writeConfig({ mcpServers: { prs: UPSTREAM } }, dir), '--store', store, '--key-env', 'GATEWAY_KEY'], { GATEWAY_KEY: 'a-shared-key-of-32-bytes-for-tests' });
    try {
      await open(client);
      const preview = JSON.parse(textOf(await call(client, 'list_pull_requests', {}))) as { handle: string };
      // The stored result (about 850 KB of JSON) is on disk: in the database or its write-ahead log.
      const onDisk = statSync(store).size + (existsSync(`${store}-wal`) ? statSync(`${store}-wal`).size : 0);
      expect(onDisk).toBeGreaterThan(400_000);
      const page = await call(client, 'read_result', { handle: preview.handle, path: 'pull_requests[0].number' });
      expect(isError(page), textOf(page)).toBe(false);
      const first = (JSON.parse(readFileSync(join(EXAMPLE, 'data/pulls.json'), 'utf8')) as Array<{ number: number }>)[0]?.number;
      expect(textOf(page)).toContain(String(first));
    } finally {
      await client.close();
    }
  });

  it("another session's handle and cursor are refused (HTTP front, two sessions of one gateway)", async () => {
    const gateway = await gatewayOverHttp(['--config', writeConfig({ mcpServers: { prs: UPSTREAM }, tools: { list_pull_requests: { project: ['number'], pageTokens: 100 } } })]);
    const first = gateway.client();
    const second = gateway.client();
    try {
      await open(first);
      await open(second);
      const paged = JSON.parse(textOf(await call(first, 'list_pull_requests', {}))) as { next_cursor: string };
      const foreignPage = await call(second, 'list_pull_requests', { cursor: paged.next_cursor });
      expect(isError(foreignPage)).toBe(true);
      expect(textOf(foreignPage)).toMatch(/session/i);
    } finally {
      await first.close();
      await second.close();
      await gateway.stop();
    }
  });
});
