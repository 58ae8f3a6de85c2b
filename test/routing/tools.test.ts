import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMcpctxError, type McpctxError } from '../../src/errors/index.js';
import { loadRoutingTools, parseRoutingConfig, toolsOfCatalog } from '../../src/routing/config/index.js';
import { SCRIPTED_SERVER, findMarkedProcesses, markedEnv } from '../support/processes.js';
import { DOMAIN, smallConfig, tool } from './_fixtures.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mcpctx-routing-tools-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function problemsOf(promise: Promise<unknown>): Promise<Array<{ path: string; reason: string }>> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isMcpctxError(error, 'INVALID_CONFIG')).toBe(true);
  return (error as McpctxError).data.problems as Array<{ path: string; reason: string }>;
}

describe('catalog files', () => {
  it('reads a bare array, {tools}, and a whole tools/list response', () => {
    const tools = [tool('a', 'A')];
    expect(toolsOfCatalog(tools)).toEqual(tools);
    expect(toolsOfCatalog({ server_info: { name: 'x' }, tools })).toEqual(tools);
    expect(toolsOfCatalog({ jsonrpc: '2.0', id: 2, result: { tools } })).toEqual(tools);
    expect(toolsOfCatalog({ result: {} })).toBeUndefined();
  });

  it('loads each form from disk, relative to the config', async () => {
    await writeFile(join(work, 'array.json'), JSON.stringify(DOMAIN));
    await writeFile(join(work, 'frame.json'), JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [tool('other', 'Other tool')] } }));
    const config = parseRoutingConfig('domain: array.json\ndistractors: { unrelated: frame.json }\nsizes: [4, 5]\nrequests: [{ text: q, tool: word_count }]\n', { file: join(work, 'c.yaml') });
    const tools = await loadRoutingTools(config);
    expect(tools.domain.map((entry) => entry.name)).toEqual(['stock_level', 'word_count', 'send_message_to_lucy', 'sales_today']);
    expect(tools.unrelated.map((entry) => entry.name)).toEqual(['other']);
    expect(tools.domain[0]!.inputSchema).toEqual({ type: 'object', properties: { product: { type: 'string' } } });
  });
});

describe('checks that need the tools', () => {
  it('collects unknown request tools, repeated names, sizes that do not fit, and unreadable catalogs', async () => {
    const config = smallConfig({
      distractors: { unrelated: { tools: [tool('word_count', 'again'), { description: 'no name' }] }, confusable: 'missing.json' },
      sizes: [3, 4, 9],
      requests: [{ text: 'q', tool: 'no_such_tool' }],
    });
    const problems = await problemsOf(loadRoutingTools(config));
    const reasons = problems.map((problem) => `${problem.path}: ${problem.reason}`);
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^distractors\.confusable: cannot read the catalog \/tmp\/missing\.json/),
        expect.stringMatching(/^distractors\.unrelated\.tools\[1\]: has no name/),
        expect.stringMatching(/^distractors\.unrelated: tool "word_count" is also in domain/),
        expect.stringMatching(/^requests\[0\]\.tool: "no_such_tool" is not a domain tool/),
        expect.stringMatching(/^sizes: 3 is below the 4 domain tools/),
        expect.stringMatching(/^sizes: 9 needs 5 unrelated distractors; the pools give 1/),
      ]),
    );
  });
});

describe('domain tools from an MCP server', () => {
  it('captures the catalog of a launched server and shuts it down', async () => {
    const config = parseRoutingConfig(
      JSON.stringify({
        domain: { server: { command: process.execPath, args: [SCRIPTED_SERVER, 'normal'], env: markedEnv({ PATH: process.env.PATH ?? '' }), timeoutMs: 20_000 } },
        sizes: [3],
        requests: [{ text: 'what is the weather in Paris', tool: 'get_weather' }],
      }),
      { cwd: work },
    );
    const tools = await loadRoutingTools(config);
    expect(tools.domain.map((entry) => entry.name)).toEqual(['get_weather', 'search_docs', 'echo']);
    expect(await findMarkedProcesses(undefined, { owner: process.pid })).toEqual([]);
  });

  it('a server that fails to start is an IO error naming the step', async () => {
    const config = parseRoutingConfig(
      JSON.stringify({
        domain: { server: { command: process.execPath, args: [SCRIPTED_SERVER, 'early-exit'], env: markedEnv({ PATH: process.env.PATH ?? '' }), timeoutMs: 20_000 } },
        sizes: [3],
        requests: [{ text: 'q', tool: 'none' }],
      }),
      { cwd: work },
    );
    const error = await loadRoutingTools(config).catch((caught: unknown) => caught);
    expect(isMcpctxError(error, 'IO')).toBe(true);
    expect((error as Error).message).toMatch(/^domain: the server .* gave no catalog/);
    expect(await findMarkedProcesses(undefined, { owner: process.pid })).toEqual([]);
  });
});
