// Issue 31, item 2, end to end: `deny: [write_file]` written for one server still held with two
// servers (fs__write_file was listed and callable), and with one of two servers disabled names lose
// their prefix, so `deny: ["fs__write_file"]`, a `maxTokens` rule and `search.pinned` stopped
// applying. Real upstreams (the catalog server, whose call log proves what reached it), the
// gateway in-process; a rule that matches no tool is said once on the gateway's log.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message } from '../support/wire-client.js';
import { markEnvEntries, tempDir, writeConfig } from './_gateway-process.js';
import { type InProcessGateway, withInProcessGateway } from './_in-process.js';

const CATALOG_SERVER = fileURLToPath(new URL('../servers/catalog-server.mjs', import.meta.url));
const TOOLS = ['read_file', 'write_file', 'reload_catalog'].map((name) => ({ name, description: `The ${name} tool.`, inputSchema: { type: 'object' } }));

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

interface Servers {
  readonly config: string;
  /** The tools called on each server, in order. */
  calls(server: string): string[];
}

/** Catalog servers listing read_file, write_file and reload_catalog; `disabled` ones are configured `disabled: true`. */
function servers(names: readonly string[], rules: Record<string, unknown>, disabled: readonly string[] = []): Servers {
  const dir = tempDir('mcpctx-rules-layouts-');
  const mcpServers: Record<string, unknown> = {};
  for (const name of names) {
    const catalog = join(dir, `${name}.json`);
    writeFileSync(catalog, JSON.stringify(TOOLS));
    writeFileSync(join(dir, `${name}.log`), '');
    mcpServers[name] = {
      command: process.execPath,
      args: [CATALOG_SERVER],
      env: { ...markEnvEntries(), CATALOG_FILE: catalog, CALL_LOG: join(dir, `${name}.log`) },
      ...(disabled.includes(name) ? { disabled: true } : {}),
    };
  }
  return {
    config: writeConfig({ mcpServers, ...rules }, dir),
    calls: (server) =>
      readFileSync(join(dir, `${server}.log`), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => (JSON.parse(line) as { name: string }).name),
  };
}

async function listed(gateway: InProcessGateway): Promise<string[]> {
  const result = (await gateway.request('tools/list')).result as { tools: Array<{ name: string }> };
  return result.tools.map((tool) => tool.name);
}

async function call(gateway: InProcessGateway, name: string): Promise<{ isError: boolean; text: string }> {
  const response: Message = await gateway.request('tools/call', { name, arguments: {} });
  const result = response.result as { isError?: boolean; content?: Array<{ text?: string }> };
  return { isError: result.isError === true, text: result.content?.[0]?.text ?? '' };
}

const DENIED = /is denied by the gateway's configuration/;
/** `maxTokens: 1` holds back any result ("called read_file" is 3 tokens), saying which rule did. */
const MAX_TOKENS_APPLIED = /over this tool's maxTokens of 1 tokens/;

describe('rules hold when the number of upstreams changes', () => {
  it('deny: [write_file] written for one server denies write_file on each of two; tools: read_file applies to both', async () => {
    const setup = servers(['fs', 'gh'], { deny: ['write_file'], tools: { read_file: { maxTokens: 1 } } });
    await withInProcessGateway({ config: setup.config }, async (gateway) => {
      await gateway.initialize();
      expect(await listed(gateway)).toEqual(['fs__read_file', 'fs__reload_catalog', 'gh__read_file', 'gh__reload_catalog']);
      expect(await call(gateway, 'fs__write_file')).toMatchObject({ isError: true, text: expect.stringMatching(DENIED) });
      expect(await call(gateway, 'gh__write_file')).toMatchObject({ isError: true, text: expect.stringMatching(DENIED) });
      expect((await call(gateway, 'fs__read_file')).text).toMatch(MAX_TOKENS_APPLIED);
      expect((await call(gateway, 'gh__read_file')).text).toMatch(MAX_TOKENS_APPLIED);
    });
    expect([setup.calls('fs'), setup.calls('gh')]).toEqual([['read_file'], ['read_file']]);
  }, 60_000);

  it('deny: [fs/write_file] and allow by upstream reach only that upstream', async () => {
    const setup = servers(['fs', 'gh'], { deny: ['fs/write_file'], allow: ['fs/*', 'gh__write_file'] });
    await withInProcessGateway({ config: setup.config }, async (gateway) => {
      await gateway.initialize();
      expect(await listed(gateway)).toEqual(['fs__read_file', 'fs__reload_catalog', 'gh__write_file']);
      expect(await call(gateway, 'gh__read_file')).toMatchObject({ isError: true, text: expect.stringMatching(DENIED) });
      expect((await call(gateway, 'gh__write_file')).isError).toBe(false);
    });
    expect([setup.calls('fs'), setup.calls('gh')]).toEqual([[], ['write_file']]);
  }, 60_000);

  it('with one of two servers disabled, names lose their prefix and deny, allow, maxTokens and search.pinned written with it still apply', async () => {
    const rules = {
      deny: ['fs__write_file'],
      tools: { fs__read_file: { maxTokens: 1 } },
      search: { enabled: true, pinned: ['fs__read_file'] },
    };
    const setup = servers(['fs', 'gh'], rules, ['gh']);
    await withInProcessGateway({ config: setup.config }, async (gateway) => {
      await gateway.initialize();
      expect(await listed(gateway)).toEqual(['read_file', 'search_tools']);
      expect(await call(gateway, 'write_file')).toMatchObject({ isError: true, text: expect.stringMatching(DENIED) });
      expect((await call(gateway, 'read_file')).text).toMatch(MAX_TOKENS_APPLIED);
      expect(gateway.stderr()).not.toMatch(/matches no tool/);
    });
    expect(setup.calls('fs')).toEqual(['read_file']);

    const allowOnly = servers(['fs', 'gh'], { allow: ['fs__read_file'] }, ['gh']);
    await withInProcessGateway({ config: allowOnly.config }, async (gateway) => {
      await gateway.initialize();
      expect(await listed(gateway)).toEqual(['read_file']);
      expect(await call(gateway, 'write_file')).toMatchObject({ isError: true, text: expect.stringMatching(DENIED) });
    });
    expect(allowOnly.calls('fs')).toEqual([]);
  }, 60_000);
});

describe('a rule that matches no tool', () => {
  it('is said once on the gateway log, however often the catalog is built', async () => {
    const setup = servers(['fs', 'gh'], { deny: ['fs/write_file', 'fs/write_flie'], tools: { raed_file: { maxTokens: 100 } } });
    await withInProcessGateway({ config: setup.config }, async (gateway) => {
      await gateway.initialize();
      await listed(gateway);
      // The server says its tools changed: the session builds its catalog again.
      await call(gateway, 'fs__reload_catalog');
      await gateway.waitFor((received) => received.some((message) => message.method === 'notifications/tools/list_changed'));
      await listed(gateway);
      const lines = gateway.stderr().split('\n');
      expect(lines.filter((line) => line.includes('matches no tool'))).toEqual([
        'mcpctx gateway: config: deny[1] "fs/write_flie" matches no tool of fs',
        'mcpctx gateway: config: tools.raed_file "raed_file" matches no tool of any upstream',
      ]);
    });
  }, 60_000);
});
