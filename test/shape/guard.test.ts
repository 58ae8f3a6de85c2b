import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Deadline, RawClient, initialize } from '../../src/mcp/index.js';
import { McpctxError } from '../../src/errors/index.js';
import { CursorCodec, guardToolResult, pageByTokens, type GuardableResult, type ResultRefusal } from '../../src/shape/index.js';
import { countTokens } from '../../src/tokens/index.js';

const big = 'lorem ipsum dolor sit amet '.repeat(4_000);

async function callThroughServer(register: (server: McpServer) => void, name: string): Promise<Record<string, unknown>> {
  const server = new McpServer({ name: 'guard-test', version: '1.0.0' });
  register(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new RawClient(clientSide);
  try {
    await client.start();
    await initialize(client, { deadline: new Deadline(10_000, 'initialize') });
    return (await client.request('tools/call', { name, arguments: { size: 1 } }, new Deadline(10_000, name))) as Record<string, unknown>;
  } finally {
    await client.close();
    await server.close();
  }
}

describe('guardToolResult', () => {
  it('refuses an oversized result on a real McpServer with the tool, the figure, the cap and a remedy', async () => {
    const result = await callThroughServer(
      (server) =>
        server.registerTool(
          'dump_everything',
          { description: 'returns too much', inputSchema: z.object({ size: z.number() }) },
          guardToolResult('dump_everything', () => ({ content: [{ type: 'text' as const, text: big }] }), { maxTokens: 1_000 }),
        ),
      'dump_everything',
    );
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(text).toContain('"dump_everything"');
    // Over ten times the cap the count stops: the figure is a bound, not an exact count.
    expect(text).toContain('would have returned more than 10,000 tokens');
    expect(text).toContain('cap of 1,000 tokens');
    expect(text).toMatch(/Narrow the query.*page.*fetch one item/);
    expect(countTokens(text)).toBeLessThan(200);
  });

  it('passes a result within the cap through unchanged', async () => {
    const small = { content: [{ type: 'text' as const, text: 'ok' }], structuredContent: { answer: 'ok' } };
    const guarded = guardToolResult('small', () => small, { maxTokens: 100 });
    expect(await guarded()).toBe(small);
  });

  it('counts the structured copy and embedded text resources as sent text', async () => {
    const half = 'word '.repeat(300);
    const tokens = countTokens(half);
    const result: GuardableResult = {
      content: [
        { type: 'text', text: half },
        { type: 'resource', resource: { uri: 'file:///a', text: half } },
      ],
      structuredContent: { half },
    };
    const justOver = guardToolResult('t', () => result, { maxTokens: tokens * 3 });
    expect(((await justOver()) as GuardableResult).isError).toBe(true);
    const roomy = guardToolResult('t', () => result, { maxTokens: tokens * 3 + 20 });
    expect(await roomy()).toBe(result);
  });

  it('passes the handler its arguments and refuses a bad cap when wrapping', async () => {
    const guarded = guardToolResult('echo', (value: string, times: number) => ({ content: [{ type: 'text' as const, text: value.repeat(times) }] }), {
      maxTokens: 50,
    });
    expect(await guarded('ab', 2)).toEqual({ content: [{ type: 'text', text: 'abab' }] });
    expect(() => guardToolResult('x', () => ({}), { maxTokens: 0 })).toThrow(/positive integer/);
  });

  it('gives the exact figure up to ten times the cap, and "more than" beyond, without counting a huge result whole', async () => {
    const text = 'word '.repeat(3_000);
    const tokens = countTokens(text);
    const near = await guardToolResult('t', () => ({ content: [{ type: 'text' as const, text }] }), { maxTokens: Math.ceil(tokens / 5) })();
    expect(messageOf(near)).toContain(`would have returned ${tokens.toLocaleString('en-US')} tokens`);
    // 40 million characters: refused with a bound, never counted exactly (the old guard counted up to 64 MiB).
    const huge = 'lorem ipsum dolor sit amet '.repeat(1_500_000);
    const refused = await guardToolResult('t', () => ({ content: [{ type: 'text' as const, text: huge }] }), { maxTokens: 1_000 })();
    expect(messageOf(refused)).toMatch(/would have returned more than 10,000 tokens, over this server's cap of 1,000 tokens/);
  });

  it('bounds images, audio and blobs by their decoded bytes (default 1 MiB), with an option', async () => {
    const image = (bytes: number) => ({ type: 'image' as const, data: Buffer.alloc(bytes, 1).toString('base64'), mimeType: 'image/png' });
    const small = { content: [image(100_000)] };
    expect(await guardToolResult('shot', () => small, { maxTokens: 100 })()).toBe(small);
    const big = { content: [image(700_000), { type: 'resource', resource: { uri: 'file:///a.bin', blob: Buffer.alloc(700_000).toString('base64') } }] };
    const refused = await guardToolResult('shot', () => big, { maxTokens: 100 })();
    expect(messageOf(refused)).toMatch(/^RESULT_TOO_LARGE: tool "shot" would have returned 1,400,000 bytes of images, audio or blobs, over the cap of 1,048,576 bytes/);
    expect(await guardToolResult('shot', () => big, { maxTokens: 100, maxBinaryBytes: 2_000_000 })()).toBe(big);
    const tiny = await guardToolResult('shot', () => small, { maxTokens: 100, maxBinaryBytes: 10 })();
    expect(messageOf(tiny)).toContain('100,000 bytes of images, audio or blobs, over the cap of 10 bytes');
  });

  it('counts the text fields of binary parts and resource links against the token cap', async () => {
    const long = 'annotated '.repeat(2_000);
    for (const block of [
      { type: 'image', data: 'QUJD', mimeType: 'image/png', annotations: { note: long } },
      { type: 'resource', resource: { uri: `file:///${long}`, blob: 'QUJD' } },
      { type: 'resource_link', uri: 'file:///a', name: 'a', description: long },
    ]) {
      const refused = await guardToolResult('t', () => ({ content: [block] }), { maxTokens: 500 })();
      expect(messageOf(refused), block.type).toMatch(/^RESULT_TOO_LARGE: tool "t" would have returned [\d,]+ tokens, over this server's cap of 500/);
    }
  });

  it('names the items of a refused page and gives the cursor that skips them', async () => {
    const codec = new CursorCodec();
    const binding = { query: { tool: 'list' }, revision: 'r' };
    const items = Array.from({ length: 40 }, (_, index) => ({ number: 100 + index, title: `title ${index}` }));
    const list = (cursor?: string) => ({ content: [{ type: 'text' as const, text: pageByTokens({ items, budget: 300, cursor, codec, binding }).text }] });
    const first = JSON.parse(list().content[0]?.text ?? '') as { items: Array<{ number: number }>; next_cursor: string };
    const refusals: ResultRefusal[] = [];
    const guarded = guardToolResult('list', list, {
      maxTokens: 50,
      idField: 'number',
      remedy: (refusal) => {
        refusals.push(refusal);
        return 'Fetch them one at a time.';
      },
    });
    const message = messageOf(await guarded());
    const ids = first.items.map((item) => item.number).join(', ');
    expect(message).toContain(`The page held the items with id ${ids}. To skip them, call again with cursor "${first.next_cursor}".`);
    expect(message).toMatch(/Fetch them one at a time\.$/);
    expect(refusals[0]?.page).toEqual({ ids: first.items.map((item) => item.number), nextCursor: first.next_cursor });
    expect(refusals[0]?.args).toEqual([]);
    // The cursor it gives leads on, past the refused items.
    const after = JSON.parse(list(first.next_cursor).content[0]?.text ?? '') as { items: Array<{ number: number }> };
    expect(after.items[0]?.number).toBe((first.items.at(-1)?.number ?? 0) + 1);
    // The last page says so; a structured page is read too.
    const last = messageOf(await guardToolResult('t', () => ({ content: [], structuredContent: { items: [{ id: 'a' }, {}], next_cursor: null } }), { maxTokens: 1 })());
    expect(last).toContain('The page held the items with id "a" (and 1 without ids). They are the last that match.');
  });

  it('turns a handler that throws into a tool error: an McpctxError keeps its code and remedy, anything else is generic with an error id', async () => {
    const lines: string[] = [];
    const failing = guardToolResult(
      'failing',
      (kind: string): GuardableResult => {
        if (kind === 'typed') throw new McpctxError('STALE_CURSOR', 'Stale cursor: repeat the query without a cursor.');
        throw new TypeError("Cannot read properties of undefined (reading 'rows') at /srv/app/db.js:10 postgres://app:hunter2@db.internal/prod");
      },
      { maxTokens: 100, log: (line) => lines.push(line) },
    );
    expect(await failing('typed')).toEqual({ isError: true, content: [{ type: 'text', text: 'STALE_CURSOR: Stale cursor: repeat the query without a cursor.' }] });
    const generic = messageOf(await failing('bug'));
    const id = /error id ([0-9a-f]{8})/.exec(generic)?.[1];
    expect(id).toBeDefined();
    expect(generic).toMatch(/^INTERNAL_ERROR: the tool failed with an unexpected error \(error id [0-9a-f]{8}\)/);
    expect(generic).not.toMatch(/TypeError|\/srv|hunter2|rows/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`unexpected error ${id} in tool "failing"`);
    expect(lines[0]).toContain('TypeError');
    expect(lines[0]).toContain('at '); // the stack, for the server's log only
  });
});

describe('guardToolResult on a handler that returns no result', () => {
  it('answers with a tool error naming what came back', async () => {
    const guarded = guardToolResult('t', () => undefined as unknown as GuardableResult, { maxTokens: 10 });
    expect(messageOf(await guarded())).toBe('INVALID_ARGUMENT: A tool result must be an object, got undefined.');
  });
});

function messageOf(result: unknown): string {
  const value = result as { isError?: boolean; content?: Array<{ text?: string }> };
  expect(value.isError).toBe(true);
  return value.content?.[0]?.text ?? '';
}
