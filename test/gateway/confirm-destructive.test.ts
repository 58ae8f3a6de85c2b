// confirmDestructive: a call to a tool annotated destructiveHint waits for the user, asked through
// elicitation; only an accepted confirm lets it reach the server (whose call log proves it).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message } from '../support/wire-client.js';
import { markEnvEntries, tempDir, writeConfig } from './_gateway-process.js';
import { type InProcessGateway, withInProcessGateway } from './_in-process.js';
import { INITIALIZE_PARAMS } from './_raw-stdio.js';

const CATALOG_SERVER = fileURLToPath(new URL('../servers/catalog-server.mjs', import.meta.url));
const TOOLS = [
  { name: 'delete_repository', description: 'Delete a repository.', inputSchema: { type: 'object', properties: { repo: { type: 'string' } } }, annotations: { destructiveHint: true } },
  { name: 'list_repositories', description: 'List repositories.', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
];

function setup(rules: Record<string, unknown> = {}): { config: string; calls: string } {
  const dir = tempDir('mcpctx-confirm-');
  const catalog = join(dir, 'catalog.json');
  const calls = join(dir, 'calls.log');
  writeFileSync(catalog, JSON.stringify(TOOLS));
  writeFileSync(calls, '');
  const config = writeConfig({ mcpServers: { gh: { command: process.execPath, args: [CATALOG_SERVER], env: { ...markEnvEntries(), CATALOG_FILE: catalog, CALL_LOG: calls } } }, confirmDestructive: true, ...rules }, dir);
  return { config, calls };
}

const called = (calls: string): string[] => readFileSync(calls, 'utf8').split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { name: string }).name);
const textOf = (response: Message): string => ((response.result as { content: Array<{ text: string }> }).content[0]?.text ?? '');

async function initializeWithElicitation(gateway: InProcessGateway): Promise<void> {
  await gateway.request('initialize', { ...INITIALIZE_PARAMS, capabilities: { elicitation: {} } });
  await gateway.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

/** Calls `tool`, answers the gateway's elicitation with `answer`, and returns the call's response and the question asked. */
async function callAnswering(gateway: InProcessGateway, tool: string, answer: unknown, args: unknown = { repo: 'acme/web' }): Promise<{ response: Message; asked: Message | undefined }> {
  const before = gateway.received.length;
  const pending = gateway.request('tools/call', { name: tool, arguments: args }, { id: `call-${tool}-${before}` });
  const asked = () => gateway.received.slice(before).find((message) => message.method === 'elicitation/create');
  await gateway.waitFor(() => asked() !== undefined || gateway.received.slice(before).some((message) => message.id === `call-${tool}-${before}`));
  const question = asked();
  if (question !== undefined) await gateway.send({ jsonrpc: '2.0', id: question.id, result: answer });
  return { response: await pending, asked: question };
}

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

describe('confirmDestructive', () => {
  it('asks the user before a destructive call; accept lets it through, decline refuses it before the server', async () => {
    const run = setup();
    await withInProcessGateway({ config: run.config }, async (gateway) => {
      await initializeWithElicitation(gateway);
      const declined = await callAnswering(gateway, 'delete_repository', { action: 'decline' });
      expect((declined.asked?.params as { message: string }).message).toMatch(/delete_repository is marked destructive[\s\S]*acme\/web/);
      expect(declined.response.result).toMatchObject({ isError: true });
      expect(textOf(declined.response)).toMatch(/did not allow this call \(decline\)\. The call was not sent/);
      expect(called(run.calls)).toEqual([]);
      const accepted = await callAnswering(gateway, 'delete_repository', { action: 'accept', content: { confirm: true } });
      expect(textOf(accepted.response)).toBe('called delete_repository');
      const readOnly = await callAnswering(gateway, 'list_repositories', { action: 'decline' });
      expect(readOnly.asked).toBeUndefined();
      expect(textOf(readOnly.response)).toBe('called list_repositories');
    });
    expect(called(run.calls)).toEqual(['delete_repository', 'list_repositories']);
  }, 60_000);

  it('a destructive call whose arguments do not match its schema is refused without asking the user (arguments are checked before confirmation)', async () => {
    const run = setup();
    await withInProcessGateway({ config: run.config }, async (gateway) => {
      await initializeWithElicitation(gateway);
      const before = gateway.received.length;
      const refused = await gateway.request('tools/call', { name: 'delete_repository', arguments: { repo: 42 } });
      expect(refused.result).toMatchObject({ isError: true });
      expect(textOf(refused)).toContain("delete_repository was not sent to the server: its arguments do not match the tool's inputSchema.");
      expect(gateway.received.slice(before).some((message) => message.method === 'elicitation/create')).toBe(false);
    });
    expect(called(run.calls)).toEqual([]);
  }, 60_000);

  it('a client that did not declare elicitation is not asked: the call goes, and stderr says so once', async () => {
    const run = setup();
    await withInProcessGateway({ config: run.config }, async (gateway) => {
      await gateway.initialize();
      expect(textOf(await gateway.request('tools/call', { name: 'delete_repository', arguments: { repo: 'a/b' } }))).toBe('called delete_repository');
      await gateway.request('tools/call', { name: 'delete_repository', arguments: { repo: 'a/c' } });
      await gateway.waitFor(() => gateway.stderr().includes('confirmDestructive'));
      expect(gateway.stderr().split('did not declare elicitation').length).toBe(2);
    });
    expect(called(run.calls)).toEqual(['delete_repository', 'delete_repository']);
  }, 60_000);

  it("reads the server's own annotations: a rule that drops them from the listing does not turn confirmation off", async () => {
    const run = setup({ tools: { delete_repository: { drop: ['annotations'] } } });
    await withInProcessGateway({ config: run.config }, async (gateway) => {
      await initializeWithElicitation(gateway);
      const listed = (await gateway.request('tools/list')).result as { tools: Array<Record<string, unknown>> };
      expect(listed.tools.find((tool) => tool.name === 'delete_repository')).not.toHaveProperty('annotations');
      const declined = await callAnswering(gateway, 'delete_repository', { action: 'decline' });
      expect(declined.asked).toBeDefined();
      expect(textOf(declined.response)).toMatch(/did not allow this call/);
    });
    expect(called(run.calls)).toEqual([]);
  }, 60_000);

  it('shows every argument of a long call, each cut marked, with the sha256 of the whole: padding first cannot hide the target', async () => {
    const run = setup();
    const args = { padding: 'x'.repeat(50_000), repo: 'me/prod-critical', note: `${'y'.repeat(10_000)}END-OF-NOTE` };
    const whole = JSON.stringify(args);
    await withInProcessGateway({ config: run.config }, async (gateway) => {
      await initializeWithElicitation(gateway);
      const declined = await callAnswering(gateway, 'delete_repository', { action: 'decline' }, args);
      const message = (declined.asked?.params as { message: string }).message;
      expect(message).toContain('"repo": "me/prod-critical"');
      expect(message).toContain(createHash('sha256').update(whole).digest('hex'));
      expect(message).toContain(`${whole.length} characters of JSON`);
      expect(message).toMatch(/"padding": "x+ \[49602 characters cut\] x+"/);
      expect(message).toContain('END-OF-NOTE"');
      expect(message.length).toBeLessThan(4_000);
    });
    expect(called(run.calls)).toEqual([]);
  }, 60_000);
});
