// What a team gateway refuses before it serves: a shared state needs the shared key and excludes
// --store, a URL that is not Redis is a usage error, a Redis that does not answer stops the start
// naming the URL and never its password; and a shared (asynchronous) store is refused by the
// shaper's synchronous methods instead of being raced.
import { describe, expect, it } from 'vitest';
import { ResultShaper, type SharedOffloadStore } from '../../../src/gateway/results/index.js';
import { runCliCaptured } from '../../support/cli-run.js';
import { freePort } from '../../support/haproxy.js';

const UPSTREAM = ['--', process.execPath, '-e', 'setTimeout(() => {}, 1)'];

describe('mcpctx gateway --state', () => {
  it('needs --key-env: every instance must sign handles with the same key (exit 2, nothing started)', async () => {
    const run = await runCliCaptured(['gateway', '--http', '127.0.0.1:0', '--state', 'redis://127.0.0.1:6379/0', ...UPSTREAM]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('add --key-env NAME');
  });

  it('is not given with --store, nor twice (--state and --state-env)', async () => {
    const env = { KEY: 'k'.repeat(32), STATE: 'redis://127.0.0.1:6379/0' };
    const both = await runCliCaptured(['gateway', '--http', '127.0.0.1:0', '--state', 'redis://127.0.0.1:6379/0', '--store', 'x.db', '--key-env', 'KEY', ...UPSTREAM], process.cwd(), env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--store and --state both say where offloaded results go');
    const twice = await runCliCaptured(['gateway', '--http', '127.0.0.1:0', '--state', 'redis://127.0.0.1:6379/0', '--state-env', 'STATE', '--key-env', 'KEY', ...UPSTREAM], process.cwd(), env);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('not both');
  });

  it('refuses a URL that is not redis:// or rediss:// (exit 2)', async () => {
    const run = await runCliCaptured(['gateway', '--http', '127.0.0.1:0', '--state', 'memcached://127.0.0.1:11211', '--key-env', 'KEY', ...UPSTREAM], process.cwd(), { KEY: 'k'.repeat(32) });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--state/);
  });

  it('a Redis nobody answers stops the start (exit 3), naming the URL and never its password', async () => {
    const port = await freePort();
    const password = 'canary-password-7f3a91';
    const run = await runCliCaptured(['gateway', '--http', '127.0.0.1:0', '--state-env', 'STATE', '--key-env', 'KEY', ...UPSTREAM], process.cwd(), { KEY: 'k'.repeat(32), STATE: `redis://:${password}@127.0.0.1:${port}/0` });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`redis://:***@127.0.0.1:${port}/0`);
    expect(`${run.stdout}${run.stderr}`).not.toContain(password);
  });

  it('gateway pins and gateway report take a redis:// URL, and say so when it does not answer (exit 3)', async () => {
    const port = await freePort();
    for (const command of [['gateway', 'pins', `redis://127.0.0.1:${port}/0`], ['gateway', 'report', `redis://127.0.0.1:${port}/0`]]) {
      const run = await runCliCaptured(command);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain(`The shared state at redis://127.0.0.1:${port}/0 (Redis)`);
    }
  });
});

describe('ResultShaper over a shared store', () => {
  it('refuses the synchronous read_result and continuation (USAGE) and serves the asynchronous ones', async () => {
    const entries = new Map<string, string>();
    const store: SharedOffloadStore = {
      shared: true,
      ttlMs: 60_000,
      maxBytes: 1 << 20,
      now: () => Date.now(),
      put: async (id, value) => (entries.set(id, value), { stored: true, at: Date.now(), bytes: value.length }),
      get: async (id) => entries.get(id),
      delete: async (id) => void entries.delete(id),
      close: async () => {},
    };
    const shaper = new ResultShaper({ store });
    const ctx = { sessionId: 's', tool: 't', rules: undefined, capTokens: 300, offload: true };
    const big = { content: [{ type: 'text', text: Array.from({ length: 1000 }, (_, index) => `word${index}`).join(' ') }] };
    const shaped = await shaper.shapeAsync(big, undefined, ctx);
    expect(shaped.action).toBe('offloaded');
    const handle = (JSON.parse((shaped.result.content as Array<{ text: string }>)[0]!.text) as { handle: string }).handle;
    expect(() => shaper.readResult({ handle }, { sessionId: 's', capTokens: 500 })).toThrow(/shared \(asynchronous\)/);
    expect(() => shaper.shape(big, undefined, ctx)).toThrow(/shared \(asynchronous\)/);
    const read = await shaper.readResultAsync({ handle }, { sessionId: 's', capTokens: 5000 });
    expect(read.result.isError ?? false).toBe(false);
    expect((read.result.content as Array<{ text: string }>)[0]!.text).toContain('word0 word1');
  });
});
