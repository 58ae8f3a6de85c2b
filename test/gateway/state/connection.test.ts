// The shared state's URL and connection: --state takes only redis:// and rediss:// URLs (USAGE
// otherwise), a password never shows in a label or an error, a Redis that is not there is
// STATE_UNAVAILABLE naming Redis and the URL (no hang), and one that went away and came back is
// used again without reconnecting by hand.
import { createServer, type Socket } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { McpctxError } from '../../../src/errors/index.js';
import { connectRedis, createRedisOffloadStore, openSharedState, parseStateUrl, redisPinDocument, type RedisConnection } from '../../../src/gateway/state/index.js';
import { stateUnavailable } from '../../../src/gateway/state/_redis-connection.js';
import { waitForNoMarkedProcesses } from '../../support/processes.js';
import { REDIS_SKIP_MESSAGE, redisServerPath, startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { rejection } from '../../support/rejection.js';

const CANARY = 'canary-Pw-7f3a9e';


/** Everything an error shows: message, data, inspect (stack and cause). */
function shown(error: unknown): string {
  return `${(error as Error).message}\n${JSON.stringify((error as McpctxError).data)}\n${inspect(error, { depth: 5 })}`;
}

describe('parseStateUrl', () => {
  it('takes redis:// and rediss:// with a host, an optional port, user, password and db 0-15', () => {
    expect(parseStateUrl('redis://localhost')).toEqual({ href: 'redis://localhost', label: 'redis://localhost', tls: false, db: 0 });
    expect(parseStateUrl('redis://10.0.0.5:6380/15')).toMatchObject({ label: 'redis://10.0.0.5:6380/15', db: 15, tls: false });
    expect(parseStateUrl('rediss://cache.example:6379/3')).toMatchObject({ tls: true, db: 3 });
    const withPassword = parseStateUrl(`redis://app:${CANARY}@127.0.0.1:6379/2`);
    expect(withPassword.href).toBe(`redis://app:${CANARY}@127.0.0.1:6379/2`);
    expect(withPassword.label).toBe('redis://app:***@127.0.0.1:6379/2');
    expect(parseStateUrl(`redis://:${CANARY}@h/1`).label).toBe('redis://:***@h/1');
  });

  it.each([
    ['http://localhost:6379', /not a Redis URL/],
    ['redis://', /names no host|not a URL/],
    ['redis://localhost/16', /database "16"/],
    ['redis://localhost/-1', /database/],
    ['redis://localhost/1.5', /database/],
    ['redis://localhost/a', /database/],
    ['redis://localhost?db=2', /query/],
    ['localhost:6379', /not a Redis URL|not a URL/],
    ['', /empty/],
    ['not a url at all', /not a URL/],
  ])('refuses %j with USAGE saying what --state takes', (text, why) => {
    let error: unknown;
    try {
      parseStateUrl(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(McpctxError);
    expect((error as McpctxError).code).toBe('USAGE');
    expect((error as McpctxError).message).toMatch(why);
    expect((error as McpctxError).message).toContain('--state takes redis://');
  });

  it('never shows the password of a URL it refuses', () => {
    for (const text of [`redis://u:${CANARY}@localhost/99`, `redis://u:${CANARY}@localhost/0?x=1`, `ftp://u:${CANARY}@localhost`, `redis://u:${CANARY}@bad host`]) {
      let error: unknown;
      try {
        parseStateUrl(text);
      } catch (caught) {
        error = caught;
      }
      expect((error as McpctxError).code).toBe('USAGE');
      expect(shown(error)).not.toContain(CANARY);
    }
  });
});

describe('stateUnavailable', () => {
  it('scrubs the password from a Redis error, and keeps none of its other properties (a command and its arguments)', () => {
    const raw = Object.assign(new Error(`ERR AUTH ${CANARY} failed`), { code: 'ECONNRESET', command: { name: 'auth', args: [CANARY] } });
    const error = stateUnavailable('redis://:***@h:1/0', 'connect', raw, [CANARY]);
    expect(error.code).toBe('STATE_UNAVAILABLE');
    expect(error.message).toContain('ERR AUTH <redacted> failed');
    expect(error.data).toEqual({ state: 'redis://:***@h:1/0', operation: 'connect', errno: 'ECONNRESET' });
    expect(shown(error)).not.toContain(CANARY);
  });
});

describe.skipIf(!redisServerPath())(`the connection to a real redis-server (${redisServerPath() === undefined ? REDIS_SKIP_MESSAGE : 'installed'})`, () => {
  const servers: RedisServer[] = [];
  const connections: RedisConnection[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
    await Promise.all(servers.map((server) => server.stop()));
    expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
  });

  it('nobody on the port: connect rejects STATE_UNAVAILABLE naming Redis and the URL, within its timeout', async () => {
    const server = await startRedisServer();
    await server.stop(); // a port nobody listens on now
    const started = Date.now();
    const error = await rejection(connectRedis(parseStateUrl(server.url), { connectTimeoutMs: 1_000 }));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(error.code).toBe('STATE_UNAVAILABLE');
    expect(error.message).toContain('Redis');
    expect(error.message).toContain(server.url);
    expect(error.data).toMatchObject({ state: server.url, operation: 'connect', errno: 'ECONNREFUSED' });
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('a peer that accepts and never answers: connect rejects STATE_UNAVAILABLE after its timeout, and drops the socket', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.resume(); // read, so the client's close is seen
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const started = Date.now();
      const error = await rejection(connectRedis(parseStateUrl(`redis://127.0.0.1:${port}`), { connectTimeoutMs: 500, commandTimeoutMs: 20_000 }));
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(error.code).toBe('STATE_UNAVAILABLE');
      expect(error.message).toContain(`redis://127.0.0.1:${port}`);
      // No client left reconnecting: every socket it opened is closed, and no new one comes.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(sockets.length).toBeGreaterThan(0);
      expect(sockets.every((socket) => socket.closed)).toBe(true);
      const seen = sockets.length;
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(sockets.length).toBe(seen);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a command Redis does not answer in time (CLIENT PAUSE) rejects STATE_UNAVAILABLE after commandTimeoutMs', async () => {
    const server = await startRedisServer();
    servers.push(server);
    const pauser = await connectRedis(parseStateUrl(server.url));
    const paused = await connectRedis(parseStateUrl(server.url), { commandTimeoutMs: 300 });
    connections.push(pauser, paused);
    // Writes are held (a put is a script that writes); the pauser can still unpause.
    await pauser.client.call('CLIENT', 'PAUSE', '3000', 'WRITE');
    const started = Date.now();
    const error = await rejection(createRedisOffloadStore(paused, { prefix: 'slow:' }).put('x', 'y'));
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(error.code).toBe('STATE_UNAVAILABLE');
    expect(error.message).toMatch(/timed out/i);
    await pauser.client.call('CLIENT', 'UNPAUSE');
  });

  it('Redis stopped: commands reject STATE_UNAVAILABLE at once (no hang); after a restart they work again', async () => {
    const server = await startRedisServer();
    servers.push(server);
    const connection = await connectRedis(parseStateUrl(server.url), { connectTimeoutMs: 1_000, commandTimeoutMs: 1_000 });
    connections.push(connection);
    const store = createRedisOffloadStore(connection, { prefix: 'down:' });
    const pins = redisPinDocument(connection, { prefix: 'down:' });
    expect(await store.put('a', 'one')).toMatchObject({ stored: true });
    await server.stop();
    for (const attempt of [store.put('b', 'two'), store.get('a'), pins.withLock((locked) => locked.read())]) {
      const started = Date.now();
      const error = await rejection(attempt);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(error.code).toBe('STATE_UNAVAILABLE');
      expect(error.message).toMatch(/Redis/);
      expect(error.message).toContain(server.url);
      expect(error.data.state).toBe(server.url);
    }
    await server.restart();
    const deadline = Date.now() + 15_000;
    let put: unknown;
    while (Date.now() < deadline) {
      put = await store.put('b', 'two').catch((error: unknown) => error);
      if (!(put instanceof Error)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(put).toMatchObject({ stored: true });
    expect(await store.get('b')).toBe('two');
    expect(await store.get('a')).toBeUndefined(); // no persistence: the restart emptied it
  });

  it('a password in the URL never appears in a label, an error or a message; a wrong one is STATE_UNAVAILABLE', async () => {
    const server = await startRedisServer({ requirePass: CANARY });
    servers.push(server);
    const good = `redis://:${CANARY}@127.0.0.1:${server.port}/0`;
    const state = await openSharedState(good, { prefix: 'pw:', connectTimeoutMs: 2_000, commandTimeoutMs: 1_000 });
    try {
      expect(state.label).toBe(`redis://:***@127.0.0.1:${server.port}/0`);
      expect(state.pins.label).toBe(`the shared pins at redis://:***@127.0.0.1:${server.port}/0 (key pw:pins)`);
      expect(state.pins.target).not.toContain(CANARY);
      const store = state.offloadStore();
      expect(await store.put('x', 'y')).toMatchObject({ stored: true });
      // A command error that goes back to the caller: the server refuses (wrong type), and Redis gone.
      await state.connection.client.set('pw:offload:entry:z', 'not a hash');
      const wrongType = await rejection(store.get('z'));
      expect(wrongType.code).toBe('STATE_UNAVAILABLE');
      expect(shown(wrongType)).not.toContain(CANARY);
      const held = await rejection(state.pins.withLock(async () => 'x', 0).then(() => state.pins.withLock(async () => state.pins.withLock(async () => 1, 100))));
      expect(held.code).toBe('IO');
      expect(shown(held)).not.toContain(CANARY);
      expect(held.message).toContain('redis://:***@');
    } finally {
      await state.close();
    }
    const wrong = await rejection(openSharedState(`redis://:wrong-${CANARY}@127.0.0.1:${server.port}/0`, { connectTimeoutMs: 2_000 }));
    expect(wrong.code).toBe('STATE_UNAVAILABLE');
    expect(shown(wrong)).not.toContain(CANARY);
    expect(wrong.message).toContain(`redis://:***@127.0.0.1:${server.port}/0`);
    expect(wrong.message).toMatch(/WRONGPASS|invalid username-password/);
    const none = await rejection(openSharedState(server.url, { connectTimeoutMs: 2_000 }).then(async (opened) => {
      try {
        return await opened.pins.withLock((locked) => locked.read());
      } finally {
        await opened.close();
      }
    }));
    expect(none.code).toBe('STATE_UNAVAILABLE');
    expect(none.message).toMatch(/NOAUTH|Authentication required/);
    await server.stop();
    servers.splice(servers.indexOf(server), 1);
    const gone = await rejection(openSharedState(good, { connectTimeoutMs: 1_000 }));
    expect(gone.code).toBe('STATE_UNAVAILABLE');
    expect(shown(gone)).not.toContain(CANARY);
  });
});
