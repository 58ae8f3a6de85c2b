import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Deadline, RawClient, initialize } from '../../src/mcp/index.js';
import { guardToolResult, type GuardableResult } from '../../src/shape/index.js';
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
    const figure = countTokens(big).toLocaleString('en-US');
    expect(text).toContain('"dump_everything"');
    expect(text).toContain(`would have returned ${figure} tokens`);
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
});
