// The stored-login bearer as measure uses it, without an authorization server: a damaged auth file
// or a bad MCPCTX_AUTH_STORE does not stop servers that need no login, and a server that does
// need one says what is wrong with the file; `auth: none` never reads it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { measureServer } from '../../src/measure/index.js';
import { HttpUpstream } from '../support/http-upstream.js';

let scratch: string;
const upstreams: HttpUpstream[] = [];

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'mcpctx-stored-bearer-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(async () => {
  for (const upstream of upstreams.splice(0)) await upstream.close();
});

async function upstream(auth: boolean): Promise<HttpUpstream> {
  const started = await HttpUpstream.start({
    handlers: { 'tools/list': () => ({ tools: [{ name: 'ping_me', inputSchema: { type: 'object' } }] }) },
    ...(auth ? { auth: { expected: 'Bearer never', wwwAuthenticate: 'Bearer resource_metadata="http://127.0.0.1/x"' } } : {}),
  });
  upstreams.push(started);
  return started;
}

describe('a damaged auth file', () => {
  const cases: Array<[string, Record<string, string>]> = [
    ['a file that is not JSON', {}],
    ['MCPCTX_AUTH_STORE=vault', { MCPCTX_AUTH_STORE: 'vault' }],
  ];
  it.each(cases)('%s: a server without auth is measured; one behind OAuth names the problem', async (_what, extra) => {
    const file = join(scratch, `auth-${upstreams.length}-${Object.keys(extra).length}.json`);
    writeFileSync(file, 'this is not { json');
    const env = { MCPCTX_AUTH_FILE: file, ...extra };
    const open = await upstream(false);
    const measured = await measureServer({ name: 'open', launch: { url: open.url }, env, runs: 1, timeoutMs: 20_000 });
    expect(measured.status).toBe('measured');
    const walled = await upstream(true);
    const refused = await measureServer({ name: 'walled', launch: { url: walled.url, auth: 'oauth' }, env, runs: 1, timeoutMs: 20_000 });
    expect(refused.status).toBe('remote-auth-wall');
    expect(refused.note).toContain('the stored logins could not be read');
    expect(refused.note).toContain(`mcpctx auth login ${walled.url}`);
  });

  it('auth: none never reads the store', async () => {
    const walled = await upstream(true);
    const refused = await measureServer({ name: 'walled', launch: { url: walled.url, auth: 'none' }, env: { MCPCTX_AUTH_STORE: 'vault' }, runs: 1, timeoutMs: 20_000 });
    expect(refused.status).toBe('remote-auth-wall');
    expect(refused.note).toContain('check the credentials in its headers');
    expect(refused.note).not.toContain('mcpctx auth login');
  });
});
