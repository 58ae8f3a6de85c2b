// Acceptance 1: the same transcript directly and through the gateway, ids aside, on the stdio and
// HTTP fronts with stdio and HTTP upstreams. Every message kind passes both ways, and every
// unknown key and key order of the relay server's messages survives.
import { afterAll, describe, expect, it } from 'vitest';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { type Message, type WireClient, httpClient, stdioClient } from '../support/wire-client.js';
import { RELAY_SERVER, gatewayOverHttp, gatewayOverStdio, relayArgs, relayOverHttp, writeConfig } from './_gateway-process.js';

const CLIENT_CAPABILITIES = { sampling: {}, elicitation: {}, roots: { listChanged: true }, 'x-client': { on: 1 } };

/** Runs one fixed conversation; what the client received, in order. */
async function converse(client: WireClient): Promise<Message[]> {
  await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: CLIENT_CAPABILITIES, clientInfo: { name: 'wire', version: '1' } });
  await client.notify('notifications/initialized');
  await client.request('tools/list');
  await client.request('tools/call', { name: 'echo', arguments: { text: 'héllo' }, _meta: { 'x-trace': 'q' } });
  await client.request('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'p-1' } });
  for (const method of ['sampling/createMessage', 'elicitation/create', 'roots/list', 'ping']) {
    await client.request('tools/call', { name: 'ask', arguments: { method } });
  }
  await client.request('logging/setLevel', { level: 'debug' });
  await client.request('tools/call', { name: 'log', arguments: {} });
  await client.request('resources/list');
  await client.request('resources/templates/list');
  await client.request('resources/read', { uri: 'one://doc/1' });
  await client.request('resources/subscribe', { uri: 'one://doc/1' });
  await client.waitFor((received) => received.some((message) => message.method === 'notifications/resources/updated'));
  await client.request('resources/unsubscribe', { uri: 'one://doc/1' });
  await client.request('prompts/list');
  await client.request('prompts/get', { name: 'greet', arguments: { who: 'Ada' } });
  await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } });
  await client.request('tools/call', { name: 'fail', arguments: {} });
  await client.request('ping');
  await client.notify('notifications/roots/list_changed');
  return [...client.received];
}

/**
 * Ids aside: server-request ids become their order of arrival; the envelope is written in one key
 * order (the gateway rebuilds it with its own ids). Everything inside params, result and error is
 * compared as exact JSON text, key order included.
 */
function normalize(messages: readonly Message[]): string[] {
  let serverRequests = 0;
  return messages.map((message) => {
    const isServerRequest = typeof message.method === 'string' && message.id !== undefined;
    const id = isServerRequest ? `server-request-${++serverRequests}` : message.id;
    const parts = [`id=${JSON.stringify(id)}`, `method=${JSON.stringify(message.method)}`];
    for (const key of ['params', 'result', 'error']) if (key in message) parts.push(`${key}=${JSON.stringify(message[key])}`);
    return parts.join(' ');
  });
}

async function transcript(open: () => Promise<{ client: WireClient; stop?: () => Promise<void> }>): Promise<string[]> {
  const { client, stop } = await open();
  try {
    return normalize(await converse(client));
  } finally {
    await client.close();
    await stop?.();
  }
}

const direct = () => transcript(async () => ({ client: stdioClient(process.execPath, [RELAY_SERVER, '--name', 'one'], markedEnv({ PATH: process.env.PATH ?? '' })) }));

describe('gateway fidelity', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('the direct transcripts over stdio and HTTP agree (the reference is sound)', async () => {
    const overStdio = await direct();
    const overHttp = await transcript(async () => {
      const server = await relayOverHttp('one');
      return { client: httpClient(server.url), stop: server.stop };
    });
    expect(overHttp).toEqual(overStdio);
    // The reference exercises what the issue lists: every kind appears.
    const text = overStdio.join('\n');
    for (const kind of ['notifications/progress', 'sampling/createMessage', 'elicitation/create', 'roots/list', 'notifications/message', 'notifications/resources/updated', '"x-extra"', '-32050']) {
      expect(text).toContain(kind);
    }
  });

  it('stdio front, stdio upstream: the same transcript, ids aside', async () => {
    const reference = await direct();
    const through = await transcript(async () => ({ client: gatewayOverStdio(relayArgs('one')) }));
    expect(through).toEqual(reference);
  });

  it('HTTP front, stdio upstream: the same transcript', async () => {
    const reference = await direct();
    const config = writeConfig({ mcpServers: { one: { command: process.execPath, args: [RELAY_SERVER, '--name', 'one'], env: markedEnv() } } });
    const through = await transcript(async () => {
      const gateway = await gatewayOverHttp(['--config', config]);
      return { client: gateway.client(), stop: gateway.stop };
    });
    expect(through).toEqual(reference);
  });

  it('stdio front, HTTP upstream: the same transcript', async () => {
    const reference = await direct();
    const upstream = await relayOverHttp('one');
    try {
      const config = writeConfig({ mcpServers: { one: { url: upstream.url } } });
      const through = await transcript(async () => ({ client: gatewayOverStdio(['--config', config]) }));
      expect(through).toEqual(reference);
    } finally {
      await upstream.stop();
    }
  });

  it('HTTP front, HTTP upstream: the same transcript', async () => {
    const reference = await direct();
    const upstream = await relayOverHttp('one');
    try {
      const config = writeConfig({ mcpServers: { one: { url: upstream.url } } });
      const through = await transcript(async () => {
        const gateway = await gatewayOverHttp(['--config', config]);
        return { client: gateway.client(), stop: gateway.stop };
      });
      expect(through).toEqual(reference);
    } finally {
      await upstream.stop();
    }
  });

  it('a client that pipelines initialize, notifications/initialized and a call: the upstream gets initialized before the call', async () => {
    const client = gatewayOverStdio(relayArgs('one'));
    try {
      const initialize = client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'wire', version: '1' } });
      const initialized = client.notify('notifications/initialized');
      const log = client.request('tools/call', { name: 'calls', arguments: {} });
      await Promise.all([initialize, initialized]);
      const seen = JSON.parse(((await log).result as { content: Array<{ text: string }> }).content[0]?.text ?? '{}') as {
        notifications: Array<{ method: string; afterCalls: number }>;
      };
      expect(seen.notifications).toEqual([{ method: 'notifications/initialized', afterCalls: 0 }]);
    } finally {
      await client.close();
    }
  });

  it('a cancelled call reaches the upstream as a cancellation of its own id, and gets no response', async () => {
    const client = gatewayOverStdio(relayArgs('one'));
    try {
      await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'wire', version: '1' } });
      await client.notify('notifications/initialized');
      await client.send({ jsonrpc: '2.0', id: 'hang-1', method: 'tools/call', params: { name: 'hang', arguments: {} } });
      // The upstream must have the call before the cancellation means anything: a later call on the same pipe proves it.
      await client.request('tools/call', { name: 'echo', arguments: { text: 'after' } });
      await client.notify('notifications/cancelled', { requestId: 'hang-1', reason: 'user pressed stop' });
      const calls = await client.request('tools/call', { name: 'calls', arguments: {} });
      await client.waitFor(() => true);
      const seen = JSON.parse(((calls.result as Message).content as Array<{ text: string }>)[0]?.text ?? '{}') as { cancelled: unknown[] };
      // The upstream knew the call by the gateway's id (a number), not the client's string.
      expect(seen.cancelled).toHaveLength(1);
      expect(typeof seen.cancelled[0]).toBe('number');
      expect(client.received.some((message) => message.id === 'hang-1')).toBe(false);
    } finally {
      await client.close();
    }
  });
});
