// Acceptance 3: 1,000 concurrent calls over two upstreams answering in random order each reach
// their own request; killing one upstream mid-flight turns each of its pending calls into an error
// result naming the cause, while the other keeps answering; no process is left.
import { afterAll, describe, expect, it } from 'vitest';
import { findMarkedProcesses, waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message } from '../support/wire-client.js';
import { gatewayOverStdio, relayEntry, writeConfig } from './_gateway-process.js';

const CALLS = 1_000;

function textOf(response: Message): string {
  const result = response.result as { content?: Array<{ text?: string }> } | undefined;
  return result?.content?.[0]?.text ?? '';
}

describe('gateway concurrency', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('1,000 concurrent calls over two upstreams: every reply reaches its own request', async () => {
    const config = writeConfig({ mcpServers: { a: relayEntry('a'), b: relayEntry('b') } });
    const client = gatewayOverStdio(['--config', config]);
    try {
      await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'load', version: '1' } });
      await client.notify('notifications/initialized');
      // A fixed pseudo-random order of delays, so replies come back shuffled.
      let seed = 7;
      const delay = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % 40;
      const calls = Array.from({ length: CALLS }, (_, index) => {
        const upstream = index % 2 === 0 ? 'a' : 'b';
        const tag = `call-${index}`;
        return client
          .request('tools/call', { name: `${upstream}__slow`, arguments: { ms: delay(), tag } }, 120_000)
          .then((response) => ({ expected: `${upstream}:${tag}`, got: textOf(response) }));
      });
      const outcomes = await Promise.all(calls);
      const wrong = outcomes.filter((outcome) => outcome.expected !== outcome.got);
      expect(wrong).toEqual([]);
      expect(outcomes).toHaveLength(CALLS);
    } finally {
      await client.close();
    }
  });

  it('killing one upstream mid-flight errors each of its pending calls; the other keeps answering', async () => {
    const config = writeConfig({ mcpServers: { a: relayEntry('a'), b: relayEntry('b') } });
    const client = gatewayOverStdio(['--config', config, '--request-timeout', '60000']);
    try {
      await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'kill', version: '1' } });
      await client.notify('notifications/initialized');
      const pendingOnB = Array.from({ length: 50 }, () => client.request('tools/call', { name: 'b__hang', arguments: {} }, 60_000));
      const onA = Array.from({ length: 50 }, (_, index) =>
        client.request('tools/call', { name: 'a__slow', arguments: { ms: 200, tag: `a-${index}` } }, 60_000),
      );
      // b has every hang call once its own call log says so.
      await expect.poll(async () => textOf(await client.request('tools/call', { name: 'b__calls', arguments: {} })).split('hang').length - 1, { timeout: 30_000 }).toBe(50);
      const victims = (await findMarkedProcesses()).filter((found) => found.cmdline.includes('--name b'));
      expect(victims).toHaveLength(1);
      process.kill(victims[0]!.pid, 'SIGKILL');
      const failed = await Promise.all(pendingOnB);
      for (const response of failed) {
        expect((response.result as { isError?: boolean }).isError).toBe(true);
        // The cause, with how the process ended.
        expect(textOf(response)).toMatch(/upstream b ended \(exit SIGKILL\)/);
      }
      const answered = await Promise.all(onA);
      expect(answered.map(textOf)).toEqual(Array.from({ length: 50 }, (_, index) => `a:a-${index}`));
      // Still serving a; b's tools are gone from the list, and the list says why.
      expect(textOf(await client.request('tools/call', { name: 'a__echo', arguments: { text: 'still here' } }))).toBe('still here');
      const listed = (await client.request('tools/list')).result as { tools: Array<{ name: string }>; _meta?: Record<string, unknown> };
      expect(listed.tools.some((tool) => tool.name.startsWith('b__'))).toBe(false);
      expect(listed.tools.some((tool) => tool.name === 'a__echo')).toBe(true);
      expect(JSON.stringify(listed._meta)).toMatch(/upstream b ended/);
      const late = await client.request('tools/call', { name: 'b__echo', arguments: { text: 'x' } });
      expect(textOf(late)).toMatch(/upstream b ended/);
    } finally {
      await client.close();
    }
  });
});
