import { describe, expect, it } from 'vitest';
import { Deadline, RawClient, initialize, listAllTools } from '../../src/mcp/index.js';
import { FakeTransport, result } from '../support/fake-transport.js';
import { rejection } from '../support/rejection.js';


describe('RawClient', () => {
  it('numbers requests from 1 and returns results exactly as received', async () => {
    const transport = new FakeTransport((request) => [result(request, { b: 1, a: [2, { z: 0, y: null }] })]);
    const client = new RawClient(transport);
    const value = await client.request('x', undefined, new Deadline(1000));
    expect(JSON.stringify(value)).toBe('{"b":1,"a":[2,{"z":0,"y":null}]}');
    expect(transport.sent[0]).toEqual({ jsonrpc: '2.0', id: 1, method: 'x' });
  });

  it.each([[true], ['1'], [1.5], [null]])('does not take id %j as the answer to request 1', async (wrongId) => {
    const transport = new FakeTransport((request) => [result(request, {}, wrongId)]);
    const client = new RawClient(transport);
    const error = await rejection(client.request('tools/list', undefined, new Deadline(200)));
    expect(error.code).toBe('DEADLINE');
    expect(client.strayResponses).toEqual({ count: 1, firstId: wrongId });
  });

  it('raises error responses with the server code and message', async () => {
    const transport = new FakeTransport((request) => [{ jsonrpc: '2.0', id: request.id, error: { code: -32602, message: 'bad cursor' } }]);
    const error = await rejection(new RawClient(transport).request('tools/list', {}, new Deadline(1000)));
    expect(error.code).toBe('RPC_ERROR');
    expect(error.data.rpcCode).toBe(-32602);
    expect(error.message).toContain('bad cursor');
  });

  it('skips up to 64 notifications while waiting, and fails past that', async () => {
    const flood = (count: number) => (request: Record<string, unknown>) => [
      ...Array.from({ length: count }, (_, index) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n: index } })),
      result(request, { ok: true }),
    ];
    await expect(new RawClient(new FakeTransport(flood(64))).request('x', undefined, new Deadline(1000))).resolves.toEqual({ ok: true });
    const error = await rejection(new RawClient(new FakeTransport(flood(65))).request('x', undefined, new Deadline(1000)));
    expect(error.code).toBe('TOO_MANY_NOTIFICATIONS');
  });

  it('answers ping with {}, roots/list only when roots were declared, anything else with -32601', async () => {
    for (const rootsDeclared of [false, true]) {
      const transport = new FakeTransport((message) => {
        if (message.method === 'x') {
          return [
            { jsonrpc: '2.0', id: 's1', method: 'ping' },
            { jsonrpc: '2.0', id: 's2', method: 'roots/list' },
            { jsonrpc: '2.0', id: 's3', method: 'sampling/createMessage', params: {} },
            result(message, {}),
          ];
        }
        return [];
      });
      await new RawClient(transport, { rootsDeclared }).request('x', undefined, new Deadline(1000));
      await new Promise((resolve) => setImmediate(resolve));
      const replies = Object.fromEntries(transport.sent.filter((m) => typeof m.id === 'string').map((m) => [m.id, m]));
      expect(replies.s1).toEqual({ jsonrpc: '2.0', id: 's1', result: {} });
      if (rootsDeclared) expect(replies.s2).toEqual({ jsonrpc: '2.0', id: 's2', result: { roots: [] } });
      else expect((replies.s2 as { error: { code: number } }).error.code).toBe(-32601);
      expect((replies.s3 as { error: { code: number } }).error.code).toBe(-32601);
    }
  });

  it('shares one deadline across requests', async () => {
    let calls = 0;
    const transport = new FakeTransport((request) => {
      calls += 1;
      return calls === 1 ? [result(request, {})] : [];
    });
    const client = new RawClient(transport);
    const deadline = new Deadline(300, 'probe');
    await client.request('first', undefined, deadline);
    const started = performance.now();
    const error = await rejection(client.request('second', undefined, deadline));
    expect(error.code).toBe('DEADLINE');
    expect(error.message).toContain('300 ms');
    expect(performance.now() - started).toBeLessThan(5_000); // the fake server never answers: only the deadline ends this
  });

  it('fails pending requests when the connection closes', async () => {
    const transport = new FakeTransport(() => []);
    const client = new RawClient(transport);
    const pending = client.request('x', undefined, new Deadline(5000));
    await transport.close();
    expect((await rejection(pending)).code).toBe('TRANSPORT_CLOSED');
  });
});

describe('initialize and listAllTools', () => {
  const catalog = (pages: Record<string, { tools: unknown[]; nextCursor?: unknown }>) =>
    new FakeTransport((message) => {
      if (message.method === 'initialize') return [result(message, { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 's', version: '1' } })];
      if (message.method !== 'tools/list') return [];
      const cursor = (message.params as { cursor?: string } | undefined)?.cursor ?? '';
      const page = pages[cursor];
      return [page ? result(message, page) : { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'bad cursor' } }];
    });

  it('records the version the server answered and sends initialized', async () => {
    const transport = catalog({});
    const outcome = await initialize(new RawClient(transport), { deadline: new Deadline(1000) });
    expect(outcome.requestedProtocolVersion).toBe('2025-11-25');
    expect(outcome.negotiatedProtocolVersion).toBe('2024-11-05');
    expect(transport.sent.map((m) => m.method)).toEqual(['initialize', 'notifications/initialized']);
    expect((transport.sent[0]?.params as { capabilities: unknown }).capabilities).toEqual({});
  });

  it('follows cursors until absent or null, keeping server order', async () => {
    const transport = catalog({ '': { tools: [{ name: 'a' }], nextCursor: 'p2' }, p2: { tools: [{ name: 'b' }], nextCursor: null } });
    const pages = await listAllTools(new RawClient(transport), { deadline: new Deadline(1000) });
    expect(pages).toEqual({ tools: [{ name: 'a' }, { name: 'b' }], pageCount: 2 });
  });

  it('stops a cursor loop, too many pages and too many tools', async () => {
    const loop = catalog({ '': { tools: [], nextCursor: 'a' }, a: { tools: [], nextCursor: 'b' }, b: { tools: [], nextCursor: 'a' } });
    expect((await rejection(listAllTools(new RawClient(loop), { deadline: new Deadline(1000) }))).code).toBe('CURSOR_LOOP');
    const endless: Record<string, { tools: unknown[]; nextCursor: string }> = {};
    for (let page = 0; page < 20; page += 1) endless[page === 0 ? '' : `c${page}`] = { tools: [{ name: `t${page}` }, { name: `u${page}` }], nextCursor: `c${page + 1}` };
    expect((await rejection(listAllTools(new RawClient(catalog(endless)), { deadline: new Deadline(1000), maxPages: 5 }))).code).toBe('TOO_MANY_PAGES');
    expect((await rejection(listAllTools(new RawClient(catalog(endless)), { deadline: new Deadline(1000), maxTools: 7 }))).code).toBe('TOO_MANY_TOOLS');
  });

  it('rejects a result without a tools array and a non-string cursor', async () => {
    expect((await rejection(listAllTools(new RawClient(catalog({ '': { tools: 'x' as unknown as unknown[] } })), { deadline: new Deadline(1000) }))).code).toBe('PROTOCOL');
    expect((await rejection(listAllTools(new RawClient(catalog({ '': { tools: [], nextCursor: 5 } })), { deadline: new Deadline(1000) }))).code).toBe('PROTOCOL');
  });
});
