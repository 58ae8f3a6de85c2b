// mcpctx measure --url as users meet it, in process, loopback only: a header whose value comes from
// an environment variable reaches the server and appears in no output or file.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultUrlName } from '../../src/cli/measure.js';
import { runCliCaptured } from '../support/cli-run.js';
import { HttpUpstream } from '../support/http-upstream.js';
import { startLegacySseToolsServer } from '../support/remote-servers.js';

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpctx-measure-remote-cli-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function everyFileUnder(dir: string): Promise<string> {
  const texts: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) texts.push(await readFile(join(entry.parentPath, entry.name), 'utf8'));
  }
  return texts.join('\n');
}

describe('measure --url --header NAME=ENV_NAME', () => {
  it('sends the variable value as the header, and records, prints and writes only the names', async () => {
    const canary = `canary-${randomUUID()}`;
    const upstream = await HttpUpstream.start({
      auth: { expected: `Bearer ${canary}`, wwwAuthenticate: 'Bearer realm="mcp"' },
      // The catalog echoes the token too (some servers put config in descriptions): scrubbed from what is written.
      handlers: { 'tools/list': () => ({ tools: [{ name: 'whoami', description: `Signed in with Bearer ${canary}.`, inputSchema: { type: 'object' } }] }) },
    });
    cleanups.push(() => upstream.close());
    const out = join(scratch, 'out');
    const env = { MY_TOKEN: `Bearer ${canary}` };
    const table = await runCliCaptured(['measure', '--url', upstream.url, '--header', 'Authorization=MY_TOKEN', '--runs', '1', '--name', 'canary', '--out', out], scratch, env);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/canary\s+measured\s+1/);
    const json = await runCliCaptured(['measure', '--url', upstream.url, '--header', 'Authorization=MY_TOKEN', '--runs', '1', '--json'], scratch, env);
    expect(json.code).toBe(0);
    // Proof the canary reached the server: every request carried it.
    expect(upstream.requests.length).toBeGreaterThan(0);
    expect(upstream.requests.every((request) => request.headers.authorization === `Bearer ${canary}`)).toBe(true);
    const written = await everyFileUnder(out);
    for (const text of [table.stdout, table.stderr, json.stdout, json.stderr, written]) expect(text).not.toContain(canary);
    const record = JSON.parse(json.stdout) as { launch: unknown; captureRedaction: unknown; name: string };
    expect(record.launch).toEqual({ url: upstream.url, headerNames: ['Authorization'], envNames: ['MY_TOKEN'] });
    expect(record.captureRedaction).toEqual({ strings: 1, secrets: ['MY_TOKEN'] });
    expect(record.name).toBe(defaultUrlName(upstream.url));
  });

  it('without the variable the header is not sent: remote-auth-wall, exit 3, the challenge and the unset variable named', async () => {
    const upstream = await HttpUpstream.start({ auth: { expected: 'Bearer x', wwwAuthenticate: 'Bearer realm="mcp"' } });
    cleanups.push(() => upstream.close());
    const run = await runCliCaptured(['measure', '--url', upstream.url, '--header', 'Authorization=MY_TOKEN', '--runs', '1'], scratch, {});
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/remote-auth-wall/);
    expect(run.stdout).toContain('WWW-Authenticate: Bearer realm="mcp"');
    expect(run.stdout).toContain('header Authorization was not sent: the variable MY_TOKEN is not set');
  });

  it('measures an HTTP+SSE server (detected), and a servers file with url entries and headers', async () => {
    const legacy = await startLegacySseToolsServer();
    cleanups.push(() => legacy.close());
    const run = await runCliCaptured(['measure', '--url', legacy.url, '--runs', '1', '--name', 'legacy'], scratch);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/legacy\s+measured\s+3/);
    expect(run.stdout).toContain('served over the older HTTP+SSE transport');

    const canary = `canary-${randomUUID()}`;
    const upstream = await HttpUpstream.start({ auth: { expected: canary, wwwAuthenticate: 'Bearer' }, handlers: { 'tools/list': () => ({ tools: [] }) } });
    cleanups.push(() => upstream.close());
    const file = join(scratch, 'servers.yaml');
    await writeFile(file, `- name: legacy\n  type: sse\n  url: ${legacy.url}\n- name: guarded\n  url: ${upstream.url}\n  headers: { Authorization: GUARD_TOKEN }\n`);
    const list = await runCliCaptured(['measure', '--servers', file, '--runs', '1', '--json'], scratch, { GUARD_TOKEN: canary });
    expect(list.code, list.stdout).toBe(0);
    const records = JSON.parse(list.stdout) as Array<{ name: string; status: string; toolCount: number }>;
    expect(records.map(({ name, status, toolCount }) => [name, status, toolCount])).toEqual([
      ['legacy', 'measured', 3],
      ['guarded', 'measured', 0],
    ]);
    expect(upstream.requests[0]?.headers.authorization).toBe(canary);
    expect(list.stdout).not.toContain(canary);
  });

  it.each([
    [['--url', 'http://127.0.0.1:9/mcp', '--', 'node', 'server.js'], '--url and a server command after -- are exclusive'],
    [['--url', 'http://127.0.0.1:9/mcp', '--servers', 'x.yaml'], '--servers FILE and --url are exclusive'],
    [['--url', 'http://127.0.0.1:9/mcp', '--env', 'A=b'], '--env is for a server command'],
    [['--header', 'Authorization=TOKEN', '--', 'node', 'server.js'], '--header, --transport and --auth are for a remote server'],
    [['--url', 'http://127.0.0.1:9/mcp', '--header', 'Authorization=Bearer sk-literal-secret'], 'must name the environment variable that holds its value'],
    [['--url', 'ftp://127.0.0.1/mcp'], 'must start with http:// or https://'],
    [['--url', 'http://127.0.0.1:9/mcp', '--header', 'Bearer sk-literal-secret'], '--header takes NAME=ENV_NAME'],
  ])('refuses %j as a usage error', async (args, message) => {
    const run = await runCliCaptured(['measure', ...args], scratch);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain('sk-literal-secret');
  });
});
