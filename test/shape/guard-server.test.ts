import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { guardServer, type GuardLogEntry } from '../../src/shape/index.js';
import { countTokens } from '../../src/tokens/index.js';

const CAP = 500;
const big = (label: string): string => `${label} `.repeat(3 * CAP);
const small = (label: string): string => `${label}: fine`;

type ToolResult = { content?: Array<{ type: string; text?: string }>; structuredContent?: unknown; isError?: boolean };

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connected(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'guard-server-test', version: '1.0.0' });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  // The client compiles each tool's outputSchema from tools/list and validates results against it.
  await client.listTools();
  return client;
}

function textOf(result: ToolResult): string {
  return result.content?.[0]?.text ?? '';
}

/** Three tools, two registered before the guard and one after it; each answers big or small. */
function serverWithThreeTools(log: GuardLogEntry[], options: { perTool?: Record<string, { maxTokens: number }> } = {}): { server: McpServer; guard: ReturnType<typeof guardServer> } {
  const server = new McpServer({ name: 'guard-server', version: '1.0.0' });
  const size = z.object({ big: z.boolean() });
  server.registerTool('list_prs', { inputSchema: size }, ({ big: isBig }) => ({
    content: [{ type: 'text', text: isBig ? big('pr') : small('prs') }],
  }));
  server.registerTool(
    'get_report',
    { inputSchema: size, outputSchema: z.object({ body: z.string() }) },
    ({ big: isBig }) => {
      const body = isBig ? big('report') : small('report');
      return { content: [{ type: 'text', text: JSON.stringify({ body }) }], structuredContent: { body } };
    },
  );
  const guard = guardServer(server, {
    maxTokens: CAP,
    onRefusal: (entry) => log.push(entry),
    ...(options.perTool === undefined ? {} : { tools: options.perTool }),
  });
  server.registerTool('late_tool', { inputSchema: size }, ({ big: isBig }) => ({
    content: [{ type: 'text', text: isBig ? big('late') : small('late') }],
  }));
  return { server, guard };
}

describe('guardServer', () => {
  it('refuses over-cap results of tools registered before and after it, passes in-cap ones unchanged, and logs each refusal', async () => {
    const log: GuardLogEntry[] = [];
    const { server, guard } = serverWithThreeTools(log);
    const client = await connected(server);
    expect(guard.guardedTools().sort()).toEqual(['get_report', 'late_tool', 'list_prs']);

    for (const name of ['list_prs', 'get_report', 'late_tool']) {
      const refused = (await client.callTool({ name, arguments: { big: true } })) as ToolResult;
      expect(refused.isError, name).toBe(true);
      expect(refused.structuredContent, name).toBeUndefined();
      expect(textOf(refused)).toMatch(new RegExp(`^RESULT_TOO_LARGE: tool "${name}" would have returned [\\d,]+ tokens, over this server's cap of 500 tokens`));
    }
    expect(log.map((entry) => [entry.tool, entry.maxTokens, entry.exact])).toEqual([
      ['list_prs', CAP, true],
      ['get_report', CAP, true],
      ['late_tool', CAP, true],
    ]);
    expect(log[0]?.tokens).toBe(countTokens(big('pr')));
    expect(log[2]?.tokens).toBe(countTokens(big('late')));

    const passed = (await client.callTool({ name: 'get_report', arguments: { big: false } })) as ToolResult;
    const body = small('report');
    expect(passed).toMatchObject({ content: [{ type: 'text', text: JSON.stringify({ body }) }], structuredContent: { body } });
    expect(passed.isError).toBeFalsy();
    expect(textOf((await client.callTool({ name: 'late_tool', arguments: { big: false } })) as ToolResult)).toBe(small('late'));
    expect(log).toHaveLength(3);
  });

  it('keeps guarding a callback swapped in with update(), honours per-tool caps, and unguard() restores the handlers', async () => {
    const log: GuardLogEntry[] = [];
    const server = new McpServer({ name: 'guard-server', version: '1.0.0' });
    const swapped = server.registerTool('swapped', {}, () => ({ content: [{ type: 'text', text: 'old' }] }));
    server.registerTool('roomy', {}, () => ({ content: [{ type: 'text', text: big('roomy') }] }));
    const guard = guardServer(server, { maxTokens: CAP, onRefusal: (entry) => log.push(entry), tools: { roomy: { maxTokens: 10 * CAP } } });
    swapped.update({ callback: () => ({ content: [{ type: 'text', text: big('new') }] }) });
    const client = await connected(server);

    expect(((await client.callTool({ name: 'swapped', arguments: {} })) as ToolResult).isError).toBe(true);
    expect(textOf((await client.callTool({ name: 'roomy', arguments: {} })) as ToolResult)).toBe(big('roomy'));
    expect(log.map((entry) => entry.tool)).toEqual(['swapped']);

    guard.unguard();
    expect(textOf((await client.callTool({ name: 'swapped', arguments: {} })) as ToolResult)).toBe(big('new'));
    server.registerTool('after_unguard', {}, () => ({ content: [{ type: 'text', text: big('after') }] }));
    expect(textOf((await client.callTool({ name: 'after_unguard', arguments: {} })) as ToolResult)).toBe(big('after'));
  });

  it('logs to stderr by default, never to stdout', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const stdout = vi.spyOn(process.stdout, 'write');
    const log = vi.spyOn(console, 'log');
    try {
      const server = new McpServer({ name: 'guard-server', version: '1.0.0' });
      guardServer(server, { maxTokens: CAP });
      server.registerTool('loud', {}, () => ({ content: [{ type: 'text', text: big('loud') }] }));
      const client = await connected(server);
      await client.callTool({ name: 'loud', arguments: {} });
      expect(stderr).toHaveBeenCalledWith(`mcpctx guard: refused tool "loud": ${countTokens(big('loud'))} tokens (cap ${CAP})`);
      expect(stdout).not.toHaveBeenCalled();
      expect(log).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
      stdout.mockRestore();
      log.mockRestore();
    }
  });

  it('writes the refusal line to the log option when one is given', async () => {
    const lines: string[] = [];
    const server = new McpServer({ name: 'guard-server', version: '1.0.0' });
    guardServer(server, { maxTokens: CAP, log: (line) => lines.push(line) });
    server.registerTool('loud', {}, () => ({ content: [{ type: 'text', text: big('loud') }] }));
    const client = await connected(server);
    await client.callTool({ name: 'loud', arguments: {} });
    expect(lines).toEqual([`mcpctx guard: refused tool "loud": ${countTokens(big('loud'))} tokens (cap ${CAP})`]);
  });

  it('refuses a bad cap when it is applied, not at the first call', () => {
    const server = new McpServer({ name: 'guard-server', version: '1.0.0' });
    expect(() => guardServer(server, { maxTokens: 0 })).toThrow(/positive integer/);
    expect(() => guardServer(server, { maxTokens: CAP, tools: { one: { maxTokens: -1 } } })).toThrow(/positive integer/);
  });
});
