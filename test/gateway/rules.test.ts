// Acceptance 5: rules hold. A denied tool's call never reaches the upstream (its own call log
// proves it); a description rule removes an injected instruction; with tool search on, the
// catalog the client pays for on GitHub's 117-tool catalog is under 10% of the full one, and the
// right tool is in the top 5 for written queries (two blind sets, frozen by hash before any run).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/tokens/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message, WireClient } from '../support/wire-client.js';
import { relayEntry, tempDir, writeConfig } from './_gateway-process.js';
import { inProcessGateway } from './_in-process.js';

const TOOLSNAPS = fileURLToPath(new URL('../fixtures/github-mcp-server-toolsnaps/', import.meta.url));

function textOf(response: Message): string {
  const result = response.result as { content?: Array<{ text?: string }> } | undefined;
  return result?.content?.[0]?.text ?? '';
}

async function open(client: WireClient): Promise<void> {
  await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rules', version: '1' } });
  await client.notify('notifications/initialized');
}

const call = (client: WireClient, name: string, args: Record<string, unknown> = {}) => client.request('tools/call', { name, arguments: args });

async function toolsOf(client: WireClient): Promise<Array<Record<string, unknown> & { name: string }>> {
  return ((await client.request('tools/list')).result as { tools: Array<Record<string, unknown> & { name: string }> }).tools;
}

describe('gateway rules', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it("a denied tool vanishes from tools/list and its call never reaches the upstream (the upstream's call log)", async () => {
    const config = writeConfig({ mcpServers: { shop: relayEntry('shop') }, deny: ['delete_*'] });
    const client = await inProcessGateway({ config });
    try {
      await open(client);
      expect((await toolsOf(client)).map((tool) => tool.name)).not.toContain('delete_everything');
      const refused = await call(client, 'delete_everything');
      expect((refused.result as { isError?: boolean }).isError).toBe(true);
      expect(textOf(refused)).toMatch(/denied by the gateway's configuration/);
      await call(client, 'echo', { text: 'allowed' });
      const log = JSON.parse(textOf(await call(client, 'calls'))) as { calls: string[] };
      expect(log.calls).toEqual(['echo', 'calls']);
    } finally {
      await client.close();
    }
  });

  it('a description rule removes an injected instruction, and the receipt of tools/list shows its tokens before and after', async () => {
    const dir = tempDir();
    const receipts = join(dir, 'receipts.jsonl');
    const config = writeConfig({ mcpServers: { shop: relayEntry('shop') }, tools: { purchase: { description: 'Buy one item by name.' }, echo: { drop: ['icons', 'annotations'], dropOutputSchema: true } } }, dir);
    const client = await inProcessGateway({ config, receipts });
    try {
      await open(client);
      const tools = await toolsOf(client);
      const purchase = tools.find((tool) => tool.name === 'purchase');
      expect(purchase?.description).toBe('Buy one item by name.');
      expect(JSON.stringify(tools)).not.toMatch(/ALWAYS call purchase/);
      const echo = tools.find((tool) => tool.name === 'echo');
      expect(echo && Object.keys(echo)).toEqual(['x-vendor-rank', 'name', 'title', 'description', 'inputSchema', 'execution', '_meta']);
    } finally {
      await client.close();
    }
    const list = JSON.parse(readFileSync(receipts, 'utf8').trim().split('\n')[0] as string) as { kind: string; changes: Array<{ field: string; tokensBefore: number; tokensAfter: number }> };
    expect(list.kind).toBe('list');
    const change = list.changes.find((entry) => entry.field === 'purchase.description');
    expect(change && change.tokensBefore > change.tokensAfter).toBe(true);
  });

  it('tool search on the 117-tool GitHub catalog: the listed catalog costs under 10% of the full one', async () => {
    const upstream = relayEntry('github', ['--catalog', TOOLSNAPS]);
    const full = await inProcessGateway({ config: writeConfig({ mcpServers: { github: upstream } }) });
    const searched = await inProcessGateway({ config: writeConfig({ mcpServers: { github: upstream }, search: { enabled: true, topK: 5 } }) });
    try {
      await open(full);
      await open(searched);
      const fullTools = await toolsOf(full);
      const searchTools = await toolsOf(searched);
      expect(fullTools).toHaveLength(117);
      expect(searchTools.map((tool) => tool.name)).toEqual(['search_tools']);
      const fullTokens = countTokens(JSON.stringify(fullTools));
      const searchTokens = countTokens(JSON.stringify(searchTools));
      console.log(`search: the listed catalog is ${searchTokens} tokens against ${fullTokens} (${((searchTokens / fullTokens) * 100).toFixed(2)}%)`);
      expect(searchTokens / fullTokens).toBeLessThan(0.1);
      // A found tool is then listed (the client was told the list changed) and callable.
      const found = await call(searched, 'search_tools', { query: 'list the open issues of a repository' });
      expect(textOf(found)).toContain('"list_issues"');
      await searched.waitFor((received) => received.some((message) => message.method === 'notifications/tools/list_changed'));
      expect((await toolsOf(searched)).map((tool) => tool.name)).toContain('list_issues');
      const none = await call(searched, 'search_tools', { query: 'bake a chocolate cake' });
      expect(textOf(none)).toMatch(/^No tool matches/);
      // The catalog is hidden, not the tools: a call to a tool never found is relayed (this
      // upstream only lists the catalog: its own call log shows the call arrived).
      await call(searched, 'get_me');
      expect((JSON.parse(textOf(await call(searched, 'calls'))) as { calls: string[] }).calls).toContain('get_me');
    } finally {
      await full.close();
      await searched.close();
    }
  });

  it('tool search finds the right tool in the top 5 on two blind query sets, frozen by hash before any run', async () => {
    const sets = ['toolsearch-blind', 'toolsearch-blind2'].map((name) => {
      const dir = fileURLToPath(new URL(`../fixtures/${name}/`, import.meta.url));
      const text = readFileSync(join(dir, 'github-queries.json'), 'utf8');
      const frozen = readFileSync(join(dir, 'github-queries.sha256'), 'utf8').split(/\s+/)[0];
      expect(createHash('sha256').update(text).digest('hex'), `${name} changed after it was frozen`).toBe(frozen);
      return JSON.parse(text) as BlindQuery[];
    });
    const client = await inProcessGateway({ config: writeConfig({ mcpServers: { github: relayEntry('github', ['--catalog', TOOLSNAPS]) }, search: { enabled: true, topK: 5 } }) });
    const hits = new Map<string, { hit: number; of: number; misses: string[] }>();
    try {
      await open(client);
      for (const [index, set] of sets.entries()) {
        for (const [position, { query, expected, kind }] of set.entries()) {
          const group = index === 0 ? `blind1 ${position < 10 ? 'first ten' : 'held out'}` : `blind2 ${kind}`;
          const found = textOf(await call(client, 'search_tools', { query }));
          const names = found.startsWith('{') ? (JSON.parse(found) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name) : [];
          const tally = hits.get(group) ?? { hit: 0, of: 0, misses: [] };
          tally.of += 1;
          if (names.some((name) => expected.includes(name))) tally.hit += 1;
          else tally.misses.push(`${query} -> ${names.join(', ') || '(none)'}`);
          hits.set(group, tally);
        }
      }
    } finally {
      await client.close();
    }
    console.log(`search, right tool in the top 5: ${[...hits].map(([group, { hit, of }]) => `${group} ${hit}/${of}`).join('; ')}`);
    // The acceptance ten: queries in the domain's ordinary words (blind set 2, "plain").
    expect(hits.get('blind2 plain')?.hit, hits.get('blind2 plain')?.misses.join('\n')).toBeGreaterThanOrEqual(9);
    // Guards at the figures measured when they were first run with the vocabulary bridge: a
    // change that loses blind quality fails here (synonyms 9/10, indirect 9/10, set 1 18/24).
    expect(hits.get('blind2 synonym')?.hit).toBeGreaterThanOrEqual(9);
    expect(hits.get('blind2 indirect')?.hit).toBeGreaterThanOrEqual(9);
    expect((hits.get('blind1 first ten')?.hit ?? 0) + (hits.get('blind1 held out')?.hit ?? 0)).toBeGreaterThanOrEqual(18);
  });
});

interface BlindQuery {
  query: string;
  expected: string[];
  kind?: string;
}
