// Issue 31, case 1: the official SDK client (1.32.2) validates a tool's results against the
// outputSchema it listed, and throws on a result without structuredContent. Through the gateway,
// in front of the reference filesystem server (every tool declares an outputSchema), a result the
// gateway offloads must still be accepted: the listing leaves outputSchema out by default, and a
// tool configured to keep it gets its reshaped results marked isError.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');
const FILESYSTEM = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

let dir: string;
let bigFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpctx-output-schema-'));
  bigFile = join(dir, 'big.txt');
  // About 1 MB of prose: far over the default cap of 25,000 tokens, so the gateway offloads it.
  writeFileSync(bigFile, Array.from({ length: 12_000 }, (_, line) => `line ${line}: the quick brown fox jumps over the lazy dog again and again.`).join('\n'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function connect(config: Record<string, unknown>): Promise<Client> {
  const file = join(dir, `gateway-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'gateway', '--config', file], env: markedEnv({ PATH: process.env.PATH ?? '' }), stderr: 'pipe' });
  const client = new Client({ name: 'output-schema-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const filesystem = (): Record<string, unknown> => ({ command: process.execPath, args: [FILESYSTEM, dir] });

describe('a validating client in front of tools with an outputSchema', () => {
  it('lists no outputSchema by default, and accepts an offloaded result of read_text_file', async () => {
    const client = await connect({ mcpServers: { fs: filesystem() } });
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(5);
      expect(tools.filter((tool) => tool.outputSchema !== undefined).map((tool) => tool.name)).toEqual([]);
      const result = await client.callTool({ name: 'read_text_file', arguments: { path: bigFile } });
      expect(result.isError).not.toBe(true);
      const text = (result.content as Array<{ type: string; text: string }>)[0]?.text ?? '';
      expect(JSON.parse(text)).toMatchObject({ handle: expect.any(String) });
      // A small result still carries the upstream's structuredContent, which nothing now validates.
      const small = await client.callTool({ name: 'list_allowed_directories', arguments: {} });
      expect(small.isError).not.toBe(true);
      expect(small.structuredContent).toBeDefined();
    } finally {
      await client.close();
    }
  });

  it('keeps the outputSchema of a tool configured with dropOutputSchema: false; its reshaped result comes back marked isError, not thrown', async () => {
    const client = await connect({ mcpServers: { fs: filesystem() }, tools: { read_text_file: { dropOutputSchema: false } } });
    try {
      const { tools } = await client.listTools();
      expect(tools.filter((tool) => tool.outputSchema !== undefined).map((tool) => tool.name)).toEqual(['read_text_file']);
      const result = await client.callTool({ name: 'read_text_file', arguments: { path: bigFile } });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect((result.content as Array<{ text: string }>)[0]?.text).toContain('"handle"');
      // Passed as the upstream sent it, a small result validates against the kept schema.
      const small = join(dir, 'small.txt');
      writeFileSync(small, 'hello');
      const passed = await client.callTool({ name: 'read_text_file', arguments: { path: small } });
      expect(passed.isError).not.toBe(true);
      expect(passed.structuredContent).toEqual({ content: 'hello' });
    } finally {
      await client.close();
    }
  });

  it('leaves no process behind', async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });
});
