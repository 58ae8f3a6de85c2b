// Where OAuth logins are kept (issue 37): a 0600 file in a 0700 folder, rewritten atomically and
// under a lock across processes, read with own properties only; or the OS keychain holding the
// secrets (a fake one here), with the file keeping the rest. Every test points MCPCTX_AUTH_FILE
// into a temp folder: the real home is never touched.
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { authFilePath, canonicalResource, openTokenStore, type KeyringBackend, type StoredLogin } from '../../src/auth/index.js';
import { isMcpctxError } from '../../src/errors/index.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CANARY = 'canary-access-token-7f3a9c';
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-authstore-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(async () => {
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

function login(resource: string, overrides: Partial<StoredLogin['tokens']> = {}): StoredLogin {
  return {
    resource,
    issuer: 'https://auth.example.com',
    grant: 'authorization_code',
    client: { clientId: 'client-1', clientSecret: `secret-of-${resource}`, registration: 'dynamic' },
    endpoints: { authorizationServer: 'https://auth.example.com', token: 'https://auth.example.com/token', revocation: 'https://auth.example.com/revoke' },
    scope: 'mcp:read',
    tokens: { accessToken: `${CANARY}-${resource}`, refreshToken: `refresh-${resource}`, tokenType: 'Bearer', expiresAt: 1_900_000_000_000, scope: 'mcp:read', ...overrides },
    savedAt: '2026-12-05T10:00:00.000Z',
  };
}

/** A keychain in memory, counting what it was asked. */
function fakeKeyring(failing?: string): KeyringBackend & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  const fail = (): void => {
    if (failing !== undefined) throw new Error(failing);
  };
  return {
    entries,
    get: (service, account) => Promise.resolve().then(() => (fail(), entries.get(`${service}|${account}`))),
    set: (service, account, secret) => Promise.resolve().then(() => void (fail(), entries.set(`${service}|${account}`, secret))),
    delete: (service, account) => Promise.resolve().then(() => (fail(), entries.delete(`${service}|${account}`))),
  };
}

describe('authFilePath', () => {
  it('is MCPCTX_AUTH_FILE when set, else auth.json in the config folder wrap uses, per platform', () => {
    expect(authFilePath({ MCPCTX_AUTH_FILE: '/tmp/x/auth.json' }, 'linux', '/home/u')).toBe('/tmp/x/auth.json');
    expect(authFilePath({}, 'linux', '/home/u')).toBe('/home/u/.config/mcpctx/auth.json');
    expect(authFilePath({ XDG_CONFIG_HOME: '/xdg' }, 'linux', '/home/u')).toBe('/xdg/mcpctx/auth.json');
    expect(authFilePath({ XDG_CONFIG_HOME: 'relative' }, 'linux', '/home/u')).toBe('/home/u/.config/mcpctx/auth.json');
    expect(authFilePath({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Application Support/mcpctx/auth.json');
    expect(authFilePath({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', 'C:\\Users\\u')).toBe('C:\\Users\\u\\AppData\\Roaming\\mcpctx\\auth.json');
    expect(() => authFilePath({ MCPCTX_AUTH_FILE: 'auth.json' }, 'linux', '/home/u')).toThrow(/absolute/);
  });

  it('keys a login by the canonical resource: fragment dropped, credentials refused without repeating them', () => {
    expect(canonicalResource('HTTPS://MCP.Example.com:443/mcp#part')).toBe('https://mcp.example.com/mcp');
    expect(() => canonicalResource('https://user:hunter2@mcp.example.com/mcp')).toThrow(expect.objectContaining({ code: 'USAGE', message: expect.not.stringContaining('hunter2') }));
    expect(() => canonicalResource('ftp://mcp.example.com/')).toThrow(/http/);
  });
});

describe('the auth file', () => {
  it('is created 0600 in a folder created 0700, and reads back what was put', async () => {
    const dir = tempDir();
    const file = join(dir, 'nested', 'auth.json');
    const store = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'file' });
    expect(store.kind).toBe('file');
    await store.put(login('https://a.example.com/mcp'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
    expect(await store.get('https://a.example.com/mcp')).toEqual(login('https://a.example.com/mcp'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ format: 'mcpctx-auth/v1' });
    // No temp file or lock is left beside it.
    expect(readdirSync(join(dir, 'nested'))).toEqual(['auth.json']);
  });

  it('rewrites the file whole and keeps the other logins', async () => {
    const file = join(tempDir(), 'auth.json');
    const store = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'file' });
    await store.put(login('https://a.example.com/mcp'));
    await store.put(login('https://b.example.com/mcp'));
    await store.update('https://a.example.com/mcp', async (current) => current && { ...current, tokens: { ...current.tokens, accessToken: 'renewed' } });
    expect((await store.list()).map((entry) => [entry.resource, entry.tokens.accessToken])).toEqual([
      ['https://a.example.com/mcp', 'renewed'],
      ['https://b.example.com/mcp', `${CANARY}-https://b.example.com/mcp`],
    ]);
    expect(await store.delete('https://a.example.com/mcp')).toBe(true);
    expect(await store.delete('https://a.example.com/mcp')).toBe(false);
    expect((await store.list()).map((entry) => entry.resource)).toEqual(['https://b.example.com/mcp']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('is made 0600 again, with a warning, when found readable by others', async () => {
    const file = join(tempDir(), 'auth.json');
    const store = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'file', onWarning: () => {} });
    await store.put(login('https://a.example.com/mcp'));
    chmodSync(file, 0o644);
    const warnings: string[] = [];
    const reopened = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'file', onWarning: (message) => warnings.push(message) });
    expect(await reopened.get('https://a.example.com/mcp')).toBeDefined();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(file);
    expect(warnings[0]).toContain('0644');
  });

  it('that is corrupt is a typed error naming the file and the remedy, never its content', async () => {
    const file = join(tempDir(), 'auth.json');
    const store = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'file' });
    const cases = [
      `{"format":"mcpctx-auth/v1","logins":{"https://a/":{"tokens":{"accessToken":"${CANARY}"`,
      `{"format":"mcpctx-auth/v1","logins":{"https://a/":{"resource":"https://a/","tokens":{"accessToken":"${CANARY}"}}}}`,
      `{"format":"${CANARY}","logins":{}}`,
      `["${CANARY}"]`,
    ];
    for (const text of cases) {
      writeFileSync(file, text, { mode: 0o600 });
      const error = await store.list().then(() => undefined, (thrown: unknown) => thrown);
      expect(isMcpctxError(error) && error.code === 'IO', text).toBe(true);
      const { message, data } = error as Error & { data: unknown };
      expect(message).toContain(file);
      expect(message).toMatch(/log in again|MCPCTX_AUTH_FILE/);
      expect(`${message} ${JSON.stringify(data)}`).not.toContain(CANARY);
    }
    writeFileSync(file, Buffer.alloc(4 * 1024 * 1024 + 1, 0x20));
    await expect(store.list()).rejects.toThrow(/over the/);
  });

  it('keeps __proto__ and constructor as plain resource keys: nothing is polluted', async () => {
    const file = join(tempDir(), 'auth.json');
    const keep = (resource: string): StoredLogin => login(resource);
    const logins = { ['__proto__']: keep('__proto__'), constructor: keep('constructor') };
    writeFileSync(file, `{"format":"mcpctx-auth/v1","logins":{"__proto__":${JSON.stringify(logins.__proto__)},"constructor":${JSON.stringify(logins.constructor)}}}`, { mode: 0o600 });
    const store = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'file' });
    expect((await store.list()).map((entry) => entry.resource)).toEqual(['__proto__', 'constructor']);
    expect(await store.get('toString')).toBeUndefined();
    expect(await store.get('hasOwnProperty')).toBeUndefined();
    await store.put(keep('https://c.example.com/mcp'));
    expect(await store.delete('__proto__')).toBe(true);
    expect((await store.list()).map((entry) => entry.resource)).toEqual(['constructor', 'https://c.example.com/mcp']);
    expect(({} as Record<string, unknown>).issuer).toBeUndefined();
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).logins as object)).toEqual(['constructor', 'https://c.example.com/mcp']);
  });

  it('update: the same login back writes nothing, undefined removes it, another resource is refused', async () => {
    const file = join(tempDir(), 'auth.json');
    const resource = 'https://u.example.com/mcp';
    const store = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'file' });
    await store.put(login(resource));
    const inode = statSync(file).ino;
    expect(await store.update(resource, async (current) => current)).toEqual(login(resource));
    expect(statSync(file).ino).toBe(inode);
    await expect(store.update(resource, async (current) => current && { ...current, resource: 'https://other.example.com/mcp' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await store.update(resource, async () => undefined)).toBeUndefined();
    expect(await store.get(resource)).toBeUndefined();
    let seen: StoredLogin | undefined = login('https://placeholder.example.com/');
    await store.update('https://new.example.com/mcp', async (current) => ((seen = current), login('https://new.example.com/mcp')));
    expect(seen).toBeUndefined();
    expect((await store.list()).map((entry) => entry.resource)).toEqual(['https://new.example.com/mcp']);
  });

  it('loses no write when two processes update one login at once', async () => {
    const file = join(tempDir(), 'auth.json');
    const resource = 'https://counter.example.com/mcp';
    const store = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'file' });
    await store.put(login(resource, { accessToken: '0' }));
    const ROUNDS = 12;
    // Each update reads the counter, yields (so the other process can run), and writes it plus one.
    const script = [
      "import { openTokenStore } from './src/auth/index.ts';",
      "const store = await openTokenStore({ mode: 'file' });",
      `for (let i = 0; i < ${ROUNDS}; i += 1) {`,
      `  await store.update(${JSON.stringify(resource)}, async (current) => {`,
      '    await new Promise((resolve) => setTimeout(resolve, 5));',
      '    return { ...current, tokens: { ...current.tokens, accessToken: String(Number(current.tokens.accessToken) + 1) } };',
      '  });',
      '}',
    ].join('\n');
    const run = (): Promise<{ code: number | null; stderr: string }> =>
      new Promise((resolve) => {
        execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: markedEnv({ PATH: process.env.PATH ?? '', MCPCTX_AUTH_FILE: file }), timeout: 60_000 }, (error, _stdout, stderr) =>
          resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? null), stderr }),
        );
      });
    const outcomes = await Promise.all([run(), run()]);
    for (const outcome of outcomes) expect(outcome.code, outcome.stderr).toBe(0);
    expect((await store.get(resource))?.tokens.accessToken).toBe(String(2 * ROUNDS));
  }, 90_000);
});

describe('the keychain', () => {
  it('holds the secrets, one entry per resource; the file holds the rest and no secret', async () => {
    const file = join(tempDir(), 'auth.json');
    const keyring = fakeKeyring();
    const store = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'keyring', keyring });
    expect(store.kind).toBe('keyring');
    expect(store.note).toBeUndefined();
    const resource = 'https://k.example.com/mcp';
    await store.put(login(resource));
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain('refresh-');
    expect(text).not.toContain('secret-of-');
    expect(text).toContain('https://auth.example.com/token');
    expect(JSON.parse(keyring.entries.get(`mcpctx|${resource}`) ?? '{}')).toEqual({ accessToken: `${CANARY}-${resource}`, refreshToken: `refresh-${resource}`, clientSecret: `secret-of-${resource}` });
    // Only the probe entry came and went besides it.
    expect([...keyring.entries.keys()]).toEqual([`mcpctx|${resource}`]);
    expect(await store.get(resource)).toEqual(login(resource));
    expect(await store.delete(resource)).toBe(true);
    expect(keyring.entries.size).toBe(0);
  });

  it('a login whose keychain entry is gone is not returned (it must be made again), and delete still removes its record', async () => {
    const file = join(tempDir(), 'auth.json');
    const keyring = fakeKeyring();
    const store = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'keyring', keyring });
    const resource = 'https://k.example.com/mcp';
    await store.put(login(resource));
    keyring.entries.clear();
    expect(await store.get(resource)).toBeUndefined();
    expect(await store.list()).toEqual([]);
    // The file store cannot reach those secrets either; a login kept whole in the file reads in keychain mode.
    const fileStore = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'file' });
    expect(await fileStore.get(resource)).toBeUndefined();
    expect(await store.delete(resource)).toBe(true);
    await fileStore.put(login(resource));
    expect(await store.get(resource)).toEqual(login(resource));
  });

  it('opened without the probe (how measurements read logins), writes nothing to test the keychain, and a renewed login keeps its secrets where they were', async () => {
    const file = join(tempDir(), 'auth.json');
    const keyring = fakeKeyring();
    const inFile = 'https://f.example.com/mcp';
    const inKeyring = 'https://k.example.com/mcp';
    await (await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'file' })).put(login(inFile));
    await (await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, mode: 'keyring', keyring })).put(login(inKeyring));
    const sets: string[] = [];
    const watched: KeyringBackend = { ...keyring, set: (service, account, secret) => (sets.push(account), keyring.set(service, account, secret)) };
    const reader = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, keyring: watched, probe: false });
    expect(sets).toEqual([]);
    const renew = async (resource: string): Promise<void> => {
      await reader.update(resource, async (current) => current && { ...current, tokens: { ...current.tokens, accessToken: `${CANARY}-renewed-${resource}` } });
    };
    await renew(inFile);
    await renew(inKeyring);
    expect(sets).toEqual([inKeyring]);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`${CANARY}-renewed-${inFile}`);
    expect(text).not.toContain(`${CANARY}-renewed-${inKeyring}`);
    expect((await reader.get(inKeyring))?.tokens.accessToken).toBe(`${CANARY}-renewed-${inKeyring}`);
  });

  it('auto with a keychain that fails its probe keeps the tokens in the file, with a note saying why', async () => {
    const file = join(tempDir(), 'auth.json');
    const keyring = fakeKeyring("Couldn't access platform storage: AccessDenied");
    const store = await openTokenStore({ env: { MCPCTX_AUTH_FILE: file }, keyring });
    expect(store.kind).toBe('file');
    expect(store.note).toContain('AccessDenied');
    expect(store.note).toContain(file);
    await store.put(login('https://a.example.com/mcp'));
    expect(readFileSync(file, 'utf8')).toContain(CANARY);
    // Asked for by name, an unusable keychain is an error, not a silent file.
    await expect(openTokenStore({ env: { MCPCTX_AUTH_FILE: file, MCPCTX_AUTH_STORE: 'keyring' }, keyring })).rejects.toMatchObject({ code: 'IO', data: { reason: 'keyring-unavailable' } });
    await expect(openTokenStore({ env: { MCPCTX_AUTH_FILE: file, MCPCTX_AUTH_STORE: 'vault' }, keyring })).rejects.toMatchObject({ code: 'USAGE' });
  });
});
