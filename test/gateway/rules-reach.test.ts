// Issue 31, item 6: rules reach the data of common servers. filesystem's directory_tree sends its
// tree as JSON text inside structuredContent {content: "<text>"}, so `[*].name` was null and
// `project` found no records; memory's search_nodes sends `entities` and `relations`, so no rule
// applied (two arrays) and the result was offloaded instead. Here the real servers run behind the
// gateway in this process: the wrapped JSON is parsed (and counted as it came), a `records` rule
// chooses the list, and the members beside it (relations) are kept, never dropped.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { McpctxError, parseGatewayConfig, type ConfigProblem } from '../../src/gateway/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { PROJECT_ROOT } from '../support/real-servers.js';
import type { Message } from '../support/wire-client.js';
import { markEnvEntries, tempDir, writeConfig } from './_gateway-process.js';
import { withInProcessGateway, type InProcessGateway } from './_in-process.js';
import { receiptsIn } from './_receipts-file.js';

const SERVER = (name: 'filesystem' | 'memory'): string => `${PROJECT_ROOT}node_modules/@modelcontextprotocol/server-${name}/dist/index.js`;

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

const textOf = (response: Message): string => (response.result as { content: Array<{ text: string }> }).content[0]?.text ?? '';
const call = (gateway: InProcessGateway, name: string, args: Record<string, unknown>): Promise<Message> => gateway.request('tools/call', { name, arguments: args }, 60_000);

describe("filesystem's directory_tree: the JSON inside {content: \"<text>\"} is what rules and read_result reach", () => {
  const root = tempDir('mcpctx-tree-');
  mkdirSync(join(root, 'src'));
  for (let index = 0; index < 40; index += 1) writeFileSync(join(root, 'src', `module-${index}.ts`), '');
  writeFileSync(join(root, 'README.md'), '');
  const fs = { command: process.execPath, args: [SERVER('filesystem'), root], env: markEnvEntries() };

  it('project keeps name and type of each top entry', async () => {
    const config = writeConfig({ mcpServers: { fs }, tools: { directory_tree: { project: ['name', 'type'] } } }, tempDir());
    await withInProcessGateway({ config }, async (gateway) => {
      await gateway.initialize();
      const shaped = JSON.parse(textOf(await call(gateway, 'directory_tree', { path: root }))) as unknown[];
      expect(shaped).toEqual(expect.arrayContaining([{ name: 'README.md', type: 'file' }, { name: 'src', type: 'directory' }]));
      expect(shaped).toHaveLength(2);
    });
  });

  it('offloaded, [*].name answers the names; the tokens charged are those of what the upstream sent', async () => {
    const dir = tempDir();
    const plainReceipts = join(dir, 'plain.jsonl');
    const cappedReceipts = join(dir, 'capped.jsonl');
    // The same call passed as it came (no rule), then offloaded (a maxTokens under its size).
    let passed = '';
    await withInProcessGateway({ config: writeConfig({ mcpServers: { fs } }, dir), receipts: plainReceipts }, async (gateway) => {
      await gateway.initialize();
      passed = textOf(await call(gateway, 'directory_tree', { path: root }));
    });
    const config = writeConfig({ mcpServers: { fs }, tools: { directory_tree: { maxTokens: 400 } } }, tempDir());
    let preview = { handle: '', tokens: 0 };
    await withInProcessGateway({ config, receipts: cappedReceipts }, async (gateway) => {
      await gateway.initialize();
      preview = JSON.parse(textOf(await call(gateway, 'directory_tree', { path: root }))) as { handle: string; tokens: number };
      const names = await call(gateway, 'read_result', { handle: preview.handle, query: '[*].name' });
      expect((JSON.parse(textOf(names)) as string[]).sort()).toEqual(['README.md', 'src']);
      const children = await call(gateway, 'read_result', { handle: preview.handle, query: "[?name=='src'].children[] | length(@)" });
      expect(JSON.parse(textOf(children))).toBe(40);
    });
    // Receipts are written after the reply: read once the gateway has closed.
    const [plain] = receiptsIn(plainReceipts).filter((receipt) => receipt.kind === 'call');
    const [capped] = receiptsIn(cappedReceipts).filter((receipt) => receipt.kind === 'call');
    // Passed: delivered = upstream, counted on what was sent (however receipts count a text repeated in structuredContent).
    expect(plain?.action).toBe('passed');
    expect(plain?.upstreamTokens).toBe(plain?.deliveredTokens);
    expect(plain?.upstreamTokens).toBeGreaterThanOrEqual(countTokens(passed));
    // Offloaded: the same upstream count, and the preview says it; the parse changed what is stored, not what is charged.
    expect({ action: capped?.action, upstream: capped?.upstreamTokens, preview: preview.tokens }).toEqual({ action: 'offloaded', upstream: plain?.upstreamTokens, preview: plain?.upstreamTokens });
  });
});

describe("memory's search_nodes: `records` chooses the list, and relations are kept", () => {
  /** A memory file (JSON lines, as the server writes it) with `entities` entities and `relations` relations between them. */
  function memoryFile(entities: number, relations: number): { file: string; relations: unknown[] } {
    const dir = tempDir('mcpctx-memory-');
    const lines: string[] = [];
    for (let index = 0; index < entities; index += 1) {
      lines.push(JSON.stringify({ type: 'entity', name: `person-${index}`, entityType: 'person', observations: [`works on project ${index % 7}`, `joined in ${2000 + (index % 20)}`] }));
    }
    const kept: unknown[] = [];
    for (let index = 0; index < relations; index += 1) {
      const relation = { from: `person-${index % entities}`, to: `person-${(index * 7 + 3) % entities}`, relationType: 'knows' };
      kept.push(relation);
      lines.push(JSON.stringify({ type: 'relation', ...relation }));
    }
    const file = join(dir, 'memory.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    return { file, relations: kept };
  }
  const memory = (file: string): Record<string, unknown> => ({ command: process.execPath, args: [SERVER('memory')], env: { ...markEnvEntries(), MEMORY_FILE_PATH: file } });
  const RULE = { records: 'entities', project: ['name', 'entityType'] };

  it('pageTokens: the entities are paged by the cursor, the relations ride on the first page as they came', async () => {
    const { file, relations } = memoryFile(150, 12);
    const config = writeConfig({ mcpServers: { mem: memory(file) }, tools: { search_nodes: { ...RULE, pageTokens: 800 } } }, tempDir());
    await withInProcessGateway({ config }, async (gateway) => {
      await gateway.initialize();
      const names: string[] = [];
      let args: Record<string, unknown> = { query: 'person' };
      let first: { others?: { relations?: unknown } } | undefined;
      for (let pages = 0; pages < 50; pages += 1) {
        const text = textOf(await call(gateway, 'search_nodes', args));
        expect(countTokens(text)).toBeLessThanOrEqual(800);
        const page = JSON.parse(text) as { items: Array<{ name: string; entityType: string; observations?: unknown }>; next_cursor: string | null; others?: { relations?: unknown } };
        first ??= page;
        for (const item of page.items) {
          expect(Object.keys(item)).toEqual(['name', 'entityType']);
          names.push(item.name);
        }
        if (page.next_cursor === null) break;
        args = { query: 'person', cursor: page.next_cursor };
      }
      expect(names).toEqual(Array.from({ length: 150 }, (_, index) => `person-${index}`));
      expect(first?.others?.relations).toEqual(relations);
    });
  });

  it('relations too large for half a page: not paged, sent whole with the entities projected (offloaded over the cap)', async () => {
    const { file, relations } = memoryFile(20, 120);
    const config = writeConfig({ mcpServers: { mem: memory(file) }, tools: { search_nodes: { ...RULE, pageTokens: 800 } } }, tempDir());
    await withInProcessGateway({ config }, async (gateway) => {
      await gateway.initialize();
      const value = JSON.parse(textOf(await call(gateway, 'search_nodes', { query: 'person' }))) as { entities: unknown[]; relations: unknown[] };
      expect(value.entities).toEqual(Array.from({ length: 20 }, (_, index) => ({ name: `person-${index}`, entityType: 'person' })));
      expect(value.relations).toEqual(relations);
    });
  });

  it('format csv: the rows of entities, then the relations as JSON', async () => {
    const { file, relations } = memoryFile(5, 3);
    const config = writeConfig({ mcpServers: { mem: memory(file) }, tools: { search_nodes: { ...RULE, format: 'csv' } } }, tempDir());
    await withInProcessGateway({ config }, async (gateway) => {
      await gateway.initialize();
      const text = textOf(await call(gateway, 'search_nodes', { query: 'person' }));
      const [csv = '', others = ''] = text.split('\n\nOther members of the result (JSON): ');
      expect(csv.trim().split('\n')).toEqual(['name,entityType', ...Array.from({ length: 5 }, (_, index) => `person-${index},person`)]);
      expect(JSON.parse(others)).toEqual({ relations });
    });
  });

  it('without records, two arrays: no rule applies and the receipt says to name the list', async () => {
    const { file } = memoryFile(5, 3);
    const dir = tempDir();
    const receipts = join(dir, 'receipts.jsonl');
    const config = writeConfig({ mcpServers: { mem: memory(file) }, tools: { search_nodes: { project: ['name'] } } }, dir);
    await withInProcessGateway({ config, receipts }, async (gateway) => {
      await gateway.initialize();
      const text = textOf(await call(gateway, 'search_nodes', { query: 'person' }));
      expect((JSON.parse(text) as { relations: unknown[] }).relations).toHaveLength(3);
    });
    expect(receiptsIn(receipts).filter((receipt) => receipt.kind === 'call')[0]?.note).toMatch(/2 array members \(entities, relations\).*records rule \(records: entities\)/);
  });
});

describe('the records rule is checked with the config', () => {
  const problemsOf = (records: unknown): ConfigProblem[] => {
    const text = JSON.stringify({ mcpServers: { mem: { command: 'node' } }, tools: { search_nodes: { records, project: ['name'] } } });
    try {
      parseGatewayConfig(text, { file: 'gateway.json' });
    } catch (error) {
      expect(error).toBeInstanceOf(McpctxError);
      return (error as McpctxError).data.problems as ConfigProblem[];
    }
    return [];
  };

  it('accepts a path, and names the rule when it is not one', () => {
    expect(problemsOf('entities')).toEqual([]);
    expect(problemsOf('data.items[0]')).toEqual([]);
    expect(problemsOf('entities[*]')).toEqual([{ path: 'tools.search_nodes.records', reason: expect.stringMatching(/wildcards, slices, filters .* are queries/) as unknown }]);
    expect(problemsOf(3)).toEqual([{ path: 'tools.search_nodes.records', reason: expect.stringMatching(/must be the path of the list in the result, like "entities"/) as unknown }]);
  });
});
