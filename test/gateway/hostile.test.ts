// The gateway under hostile clients and upstreams, through the real CLI: input that is not JSON,
// not an object, nested 100,000 deep, a duplicate id, requests out of order, unknown methods, a line
// over the frame bound; upstreams that die at start, hang, flood or send a schema nested 200,000
// deep; and the end of it all (stdin closed, SIGTERM) leaving no process behind.
import { afterAll, describe, expect, it } from 'vitest';
import { findMarkedProcesses, waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message } from '../support/wire-client.js';
import { gatewayOverHttp, relayEntry, writeConfig } from './_gateway-process.js';
import { relayArgs } from './_gateway-process.js';
import { INITIALIZE_PARAMS, RawGateway, scriptedArgs, scriptedEntry, withGateway } from './_raw-stdio.js';

const FRAME_BOUND_BYTES = 16 * 1024 * 1024; // DEFAULT_MAX_FRAME_BYTES of src/mcp
const DEEP = 100_000;

const errorOf = (response: Message): { code: number; message: string } => response.error as { code: number; message: string };

function textOf(response: Message): string {
  const result = response.result as { content?: Array<{ text?: string }> } | undefined;
  return result?.content?.[0]?.text ?? '';
}

/** What the relay upstream says it was called with (its own log). */
async function relayCalls(gateway: RawGateway, tool = 'calls'): Promise<{ calls: string[]; cancelled: unknown[] }> {
  return JSON.parse(textOf(await gateway.request('tools/call', { name: tool, arguments: {} }))) as { calls: string[]; cancelled: unknown[] };
}

/** The upstream processes this file started that still run (marked, and not a gateway). */
async function upstreamsRunning(): Promise<string[]> {
  const marked = await findMarkedProcesses(undefined, { owner: process.pid });
  return marked.map((found) => found.cmdline).filter((cmdline) => !cmdline.includes('dist/cli/main.js'));
}

describe('hostile client input on the stdio front', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
  });

  it('a line that is not JSON gets -32700 with id null, and the session keeps working', async () => {
    await withGateway(relayArgs(), async (gateway) => {
      await gateway.writeLine('this is not json');
      expect(errorOf(await gateway.response(null, 0))).toMatchObject({ code: -32700 });
      await gateway.initialize();
      await gateway.writeLine('{"jsonrpc":"2.0","id":77,"method":"ping"'); // cut short
      expect(errorOf(await gateway.response(null, 1))).toMatchObject({ code: -32700 });
      expect(gateway.responsesTo(77)).toEqual([]);
      // Bytes that are not UTF-8 are not JSON either: refused alone, the next line still served.
      await gateway.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":78,"method":"ping","x":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}\n')]));
      expect(errorOf(await gateway.response(null, 2))).toMatchObject({ code: -32700 });
      expect(textOf(await gateway.request('tools/call', { name: 'echo', arguments: { text: 'still here' } }))).toBe('still here');
      expect(gateway.responsesTo(78)).toEqual([]);
      expect(gateway.noise).toEqual([]);
    });
  });

  it('a message that is not an object gets -32600 with id null, and the session keeps working', async () => {
    await withGateway(relayArgs(), async (gateway) => {
      await gateway.initialize();
      const lines = ['[1,2]', '"text"', '42', 'null', '[]', '[{"jsonrpc":"2.0","id":5,"method":"ping"}]'];
      for (const [index, line] of lines.entries()) {
        await gateway.writeLine(line);
        expect(errorOf(await gateway.response(null, index)), line).toMatchObject({ code: -32600 });
      }
      expect(gateway.responsesTo(5)).toEqual([]);
      expect((await gateway.request('ping')).result).toEqual({});
    });
  });

  it(`a message nested ${DEEP.toLocaleString('en')} levels deep is refused with -32600 (never relayed), and the gateway does not crash`, async () => {
    await withGateway(relayArgs(), async (gateway) => {
      await gateway.initialize();
      const deep = '['.repeat(DEEP) + ']'.repeat(DEEP);
      await gateway.writeLine(`{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"echo","arguments":{"text":${deep}}}}`);
      expect(errorOf(await gateway.response('deep'))).toMatchObject({ code: -32600, message: expect.stringMatching(/nests deeper/) });
      await gateway.writeLine(deep); // deep and not an object
      expect(errorOf(await gateway.response(null, 0))).toMatchObject({ code: -32600 });
      await gateway.writeLine(`{"jsonrpc":"2.0","id":${deep},"method":"ping"}`); // the id itself is the deep part
      expect(errorOf(await gateway.response(null, 1))).toMatchObject({ code: -32600 });
      await gateway.writeLine(`{"jsonrpc":"2.0","method":"notifications/x","params":{"a":${deep}}}`); // a notification: no answer, no crash
      const log = await relayCalls(gateway);
      expect(log.calls).toEqual(['calls']);
      expect(await gateway.exitWithin(0)).toBeUndefined();
    });
  });

  it('a request with id null is refused (-32600), not relayed as a notification; a response with id null is not answered', async () => {
    await withGateway(relayArgs(), async (gateway) => {
      await gateway.initialize();
      await gateway.send({ jsonrpc: '2.0', id: null, method: 'notifications/roots/list_changed' });
      expect(errorOf(await gateway.response(null))).toMatchObject({ code: -32600 });
      await gateway.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'the client could not parse something' } });
      const log = (await relayCalls(gateway)) as { notifications?: Array<{ method: string }> };
      expect(log.notifications?.map((entry) => entry.method)).toEqual(['notifications/initialized']);
      expect(gateway.responsesTo(null)).toHaveLength(1);
    });
  });

  it('a request whose id is already in flight is refused with -32600 and never relayed; the id is free again once the first is done', async () => {
    await withGateway(relayArgs(), async (gateway) => {
      await gateway.initialize();
      await gateway.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'hang', arguments: {} } });
      // The hang call has reached the upstream once another call on the same pipe has come back.
      expect((await relayCalls(gateway)).calls).toEqual(['hang', 'calls']);
      await gateway.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'echo', arguments: { text: 'second' } } });
      expect(errorOf(await gateway.response('dup'))).toMatchObject({ code: -32600, message: expect.stringMatching(/already in flight/) });
      await gateway.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'dup', reason: 'test' } });
      const log = await relayCalls(gateway);
      expect(log.calls).toEqual(['hang', 'calls', 'calls']);
      expect(log.cancelled).toHaveLength(1);
      const reused = await gateway.request('tools/call', { name: 'echo', arguments: { text: 'reused' } }, { id: 'dup' });
      expect(textOf(reused)).toBe('reused');
      expect(gateway.responsesTo('dup')).toHaveLength(2); // the refusal and the reuse; the cancelled call got none
    });
  });

  // The stdio gateway starts its upstream with itself, as a client's launch starts any server, so
  // that it boots while the client's initialize comes in; nothing reaches it before initialize.
  // (Over HTTP a session, and its upstreams, exist only from an initialize on.)
  it('requests before initialize are refused and never relayed; ping is answered; initialize then works', async () => {
    await withGateway(relayArgs(), async (gateway) => {
      for (const method of ['tools/list', 'tools/call', 'resources/list', 'vendor/echo']) {
        const refused = await gateway.request(method, method === 'tools/call' ? { name: 'echo', arguments: { text: 'x' } } : undefined);
        expect(errorOf(refused), method).toMatchObject({ code: -32600, message: expect.stringMatching(/before initialize/) });
      }
      expect((await gateway.request('ping')).result).toEqual({});
      expect(await upstreamsRunning()).toHaveLength(1);
      const initialized = await gateway.initialize();
      expect(initialized.result).toMatchObject({ serverInfo: { name: 'relay-one' } });
      expect(textOf(await gateway.request('tools/call', { name: 'echo', arguments: { text: 'now' } }))).toBe('now');
      expect((await relayCalls(gateway)).calls).toEqual(['echo', 'calls']);
    });
  });

  it('a second initialize is refused with -32600 and the session keeps its upstream', async () => {
    await withGateway(relayArgs(), async (gateway) => {
      await gateway.initialize();
      const again = await gateway.request('initialize', INITIALIZE_PARAMS);
      expect(errorOf(again)).toMatchObject({ code: -32600, message: expect.stringMatching(/already/) });
      expect(textOf(await gateway.request('tools/call', { name: 'echo', arguments: { text: 'same' } }))).toBe('same');
      expect(await upstreamsRunning()).toHaveLength(1);
    });
  });

  it('with one upstream an unknown method is relayed (its answer or its own -32601); with two the gateway answers -32601', async () => {
    await withGateway(relayArgs(), async (gateway) => {
      await gateway.initialize();
      expect((await gateway.request('vendor/echo', { a: 1 })).result).toEqual({ echoed: { a: 1 }, from: 'one' });
      expect(errorOf(await gateway.request('nope/nothing'))).toEqual({ code: -32601, message: 'Method not found: nope/nothing' });
    });
    const config = writeConfig({ mcpServers: { a: relayEntry('a'), b: relayEntry('b') } });
    await withGateway(['--config', config], async (gateway) => {
      await gateway.initialize();
      for (const method of ['vendor/echo', 'nope/nothing']) {
        expect(errorOf(await gateway.request(method, { a: 1 })), method).toMatchObject({ code: -32601, message: expect.stringMatching(/single upstream/) });
      }
      expect((await relayCalls(gateway, 'a__calls')).calls).toEqual(['calls']);
    });
  });

  it('a line over the frame bound is answered once, then the connection ends and every process exits', async () => {
    const gateway = new RawGateway(relayArgs());
    try {
      await gateway.initialize();
      expect((await gateway.request('ping')).result).toEqual({});
      expect(await upstreamsRunning()).toHaveLength(1);
      // Stdin stays open: the gateway must end by itself, not wait for the client to close it.
      void gateway.write(Buffer.alloc(FRAME_BOUND_BYTES + 1024, 'x'));
      const refused = errorOf(await gateway.response(null));
      expect(refused).toMatchObject({ code: -32600, message: expect.stringContaining(`frame bound of ${FRAME_BOUND_BYTES} bytes`) });
      expect(refused.message).not.toMatch(/server/);
      expect(await gateway.exitWithin(15_000), gateway.stderr()).toEqual({ code: 0, signal: null });
      expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});

describe('hostile upstreams', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
  });

  it('the one upstream exits at start: initialize gets a JSON-RPC error naming the exit and its stderr line', async () => {
    await withGateway(scriptedArgs('early-exit'), async (gateway) => {
      const failed = await gateway.request('initialize', INITIALIZE_PARAMS);
      expect(failed.result).toBeUndefined();
      const { code, message } = errorOf(failed);
      expect(code).toBe(-32603);
      expect(message).toMatch(/exit 3/);
      expect(message).toContain('fatal: could not read config file /etc/scripted/config.toml');
      // Later requests get the same answer at once; they do not wait for an upstream that is gone.
      expect(errorOf(await gateway.request('tools/list')).message).toContain('fatal: could not read config file');
    });
  });

  it('of two upstreams one exits at start: the other serves, and tools/list _meta names the unavailable one', async () => {
    const config = writeConfig({ mcpServers: { broken: scriptedEntry('early-exit'), good: relayEntry('good') } });
    await withGateway(['--config', config], async (gateway) => {
      const initialized = (await gateway.initialize()).result as { instructions?: string };
      expect(initialized.instructions).toContain('fatal: could not read config file');
      const listed = (await gateway.request('tools/list')).result as { tools: Array<{ name: string }>; _meta?: Record<string, unknown> };
      expect(listed.tools.length).toBeGreaterThan(0);
      expect(listed.tools.every((tool) => tool.name.startsWith('good__'))).toBe(true);
      const unavailable = listed._meta?.['mcpctx/unavailable'] as Record<string, string>;
      expect(Object.keys(unavailable)).toEqual(['broken']);
      expect(unavailable.broken).toContain('fatal: could not read config file');
      expect(textOf(await gateway.request('tools/call', { name: 'good__echo', arguments: { text: 'ok' } }))).toBe('ok');
      const toBroken = await gateway.request('tools/call', { name: 'broken__echo', arguments: {} });
      expect(toBroken.result).toMatchObject({ isError: true });
      expect(textOf(toBroken)).toMatch(/upstream broken ended/);
    });
  });

  it('a tools/call the upstream never answers gets an error result within --request-timeout; the upstream is told and the session goes on', async () => {
    await withGateway(['--request-timeout', '1500', ...relayArgs()], async (gateway) => {
      await gateway.initialize();
      const hung = await gateway.request('tools/call', { name: 'hang', arguments: {} }, { timeoutMs: 30_000 });
      expect(hung.result).toMatchObject({ isError: true });
      expect(textOf(hung)).toMatch(/hang could not be served/);
      expect(textOf(hung)).toMatch(/1500 ms/);
      const log = await relayCalls(gateway);
      expect(log.cancelled).toHaveLength(1);
      expect(textOf(await gateway.request('tools/call', { name: 'echo', arguments: { text: 'after' } }))).toBe('after');
    });
  });

  it('an upstream that never answers initialize fails it within --startup-timeout, and is ended with the session', async () => {
    const gateway = new RawGateway(['--startup-timeout', '1500', ...scriptedArgs('hang')]);
    try {
      const failed = await gateway.request('initialize', INITIALIZE_PARAMS, { timeoutMs: 30_000 });
      expect(errorOf(failed).message).toMatch(/1500 ms/);
    } finally {
      // The hang server outlives the end of its stdin: only the gateway ending it can stop it.
      expect(await gateway.close()).toEqual({ code: 0, signal: null });
    }
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('an upstream flooding notifications (1,000 before every reply) still delivers every reply and every notification, in order', async () => {
    await withGateway(scriptedArgs('notification-flood'), async (gateway) => {
      await gateway.initialize();
      const listed = await gateway.request('tools/list');
      expect((listed.result as { tools: unknown[] }).tools).toHaveLength(3);
      expect((await gateway.request('ping')).result).toEqual({}); // the gateway's own answer: no flood
      const notes = gateway.received.filter((message) => message.method === 'notifications/message').map((message) => (message.params as { data: string }).data);
      const oneFlood = Array.from({ length: 1000 }, (_, index) => `note ${index + 1}`);
      expect(notes).toEqual([...oneFlood, ...oneFlood]);
    });
  });

  it('a tools/list nested 200,000 levels deep gets a clear error naming the nesting bound; the session goes on', async () => {
    await withGateway(scriptedArgs('deep-schema'), async (gateway) => {
      await gateway.initialize();
      const listed = await gateway.request('tools/list');
      expect(listed.result).toBeUndefined();
      expect(errorOf(listed).message).toMatch(/nests deeper than 512 levels/);
      expect((await gateway.request('ping')).result).toEqual({});
    });
    const config = writeConfig({ mcpServers: { deep: scriptedEntry('deep-schema'), good: relayEntry('good') } });
    await withGateway(['--config', config], async (gateway) => {
      await gateway.initialize();
      const listed = (await gateway.request('tools/list')).result as { tools: Array<{ name: string }>; _meta?: Record<string, unknown> };
      expect(listed.tools.some((tool) => tool.name === 'good__echo')).toBe(true);
      expect((listed._meta?.['mcpctx/unavailable'] as Record<string, string>).deep).toMatch(/nests deeper than 512 levels/);
    });
  });
});

describe('the end of a session leaves no process', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
  });

  // Two relays, one with a call pending, and a server that ignores SIGTERM and outlives its stdin.
  const stubbornConfig = () => writeConfig({ mcpServers: { a: relayEntry('a'), b: relayEntry('b'), stubborn: scriptedEntry('ignore-sigterm') } });

  async function busyGateway(): Promise<RawGateway> {
    const gateway = new RawGateway(['--config', stubbornConfig()]);
    await gateway.initialize();
    await gateway.send({ jsonrpc: '2.0', id: 'pending', method: 'tools/call', params: { name: 'a__hang', arguments: {} } });
    expect((await relayCalls(gateway, 'a__calls')).calls).toEqual(['hang', 'calls']);
    expect(await upstreamsRunning()).toHaveLength(3);
    return gateway;
  }

  it('the client closing stdin ends the gateway and every upstream process', async () => {
    const gateway = await busyGateway();
    expect(await gateway.close()).toEqual({ code: 0, signal: null });
    expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
  });

  it('SIGTERM to the gateway ends it and every upstream process', async () => {
    const gateway = await busyGateway();
    gateway.kill('SIGTERM');
    const exit = await gateway.exitWithin(15_000);
    expect(exit).toBeDefined();
    expect(exit?.signal === 'SIGTERM' || exit?.code === 143).toBe(true);
    expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
    await gateway.close();
  });

  it('SIGTERM to an HTTP gateway with two client sessions ends every upstream of both', async () => {
    const gateway = await gatewayOverHttp(['--config', stubbornConfig()]);
    const clients = [gateway.client(), gateway.client()];
    try {
      for (const client of clients) await client.request('initialize', INITIALIZE_PARAMS);
      expect(await upstreamsRunning()).toHaveLength(6);
      process.kill(gateway.pid, 'SIGTERM');
      expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
    } finally {
      for (const client of clients) await client.close();
      await gateway.stop();
    }
  });
});
