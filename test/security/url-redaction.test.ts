// A configured URL is named in messages as `gateway check` shows it (issue 30, item 10): host,
// port and path, never its user, password or a credential in its query. Through the built CLI, as
// a user meets it: the gateway's start-up failure and `measure --url`, against a port where nothing
// listens and against a server that answers 500 echoing the request line.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../gateway/_gateway-process.js';
import { withGateway } from '../gateway/_raw-stdio.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

const CANARY = 'SECRETCANARY';
const PASSWORD = 'pa55word';
const USER = 'urluser7';

let scratch = '';
let closedPort = 0;
let failing: Server;
let failingPort = 0;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpctx-url-redaction-'));
  // A port that was just free: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  // A hostile server: every request answered 500 with its own request line (query included) in the body.
  failing = createServer((request, response) => {
    response.writeHead(500, { 'content-type': 'text/plain' });
    response.end(`internal error for ${request.method ?? ''} ${request.url ?? ''}`);
  });
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  failingPort = (failing.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => failing.close(() => resolve()));
  await rm(scratch, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

/** `node dist/cli/main.js ARGS` to its end (stdin closed at once), within a bound. */
const runCli = (args: readonly string[], cwd: string) => runCliProcess(args, { cwd });

/** Every file the run wrote under `dir`, but the config the test wrote itself. */
async function writtenText(dir: string): Promise<string> {
  const texts: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name !== 'gateway.yaml') texts.push(await readFile(join(entry.parentPath, entry.name), 'latin1'));
  }
  return texts.join('\n');
}

function expectNoSecret(text: string): void {
  expect(text).not.toContain(CANARY);
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(USER);
}

async function gatewayDir(url: string): Promise<string> {
  const dir = await mkdtemp(join(scratch, 'gateway-'));
  await writeFile(join(dir, 'gateway.yaml'), `mcpServers:\n  remote:\n    url: ${JSON.stringify(url)}\n`);
  return dir;
}

describe('the gateway names an HTTP upstream by host, port and path only', () => {
  it.each([
    ['nothing listens', () => `http://${USER}:${PASSWORD}@127.0.0.1:${closedPort}/mcp?api_key=${CANARY}`, () => closedPort],
    ['a server answers 500, URL with a user and password', () => `http://${USER}:${PASSWORD}@127.0.0.1:${failingPort}/mcp?api_key=${CANARY}`, () => failingPort],
  ])('start-up failure when %s: exit 3, the host and port named, no secret on stdout, stderr or in a file', async (_case, url, port) => {
    const dir = await gatewayDir(url());
    const run = await runCli(['gateway', '--config', 'gateway.yaml', '--receipts', 'receipts.jsonl', '--store', 'store.db'], dir);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(`127.0.0.1:${port()}`);
    expectNoSecret(run.stdout + run.stderr);
    expectNoSecret(await writtenText(dir));
  }, 60_000);

  it('a session whose upstream answers 500 with the request line: the errors name the host and port, no secret in any message or file', async () => {
    const dir = await gatewayDir(`http://127.0.0.1:${failingPort}/mcp?api_key=${CANARY}`);
    const seen = await withGateway(['--config', join(dir, 'gateway.yaml'), '--receipts', join(dir, 'receipts.jsonl'), '--store', join(dir, 'store.db')], async (gateway) => {
      await gateway.initialize();
      await gateway.request('tools/list');
      await gateway.request('tools/call', { name: 'anything', arguments: {} });
      return JSON.stringify(gateway.received) + gateway.stderr();
    });
    expect(seen).toContain(`127.0.0.1:${failingPort}`);
    expectNoSecret(seen);
    expectNoSecret(await writtenText(dir));
  }, 60_000);

  it('gateway check shows the same form', async () => {
    const dir = await gatewayDir(`http://${USER}:${PASSWORD}@127.0.0.1:${closedPort}/mcp?api_key=${CANARY}`);
    // Nothing listens: the check reports the upstream it could not reach (exit 3), in the same form.
    const run = await runCli(['gateway', 'check', 'gateway.yaml'], dir);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stdout).toContain(`http://127.0.0.1:${closedPort}/mcp?api_key=[redacted]`);
    expect(run.stdout).toMatch(/could not start or list its tools: .*127\.0\.0\.1:\d+\/mcp\?api_key=\[redacted\] cannot be reached/);
    expectNoSecret(run.stdout + run.stderr);
    const offline = await runCli(['gateway', 'check', 'gateway.yaml', '--offline'], dir);
    expect(offline.code, offline.stderr).toBe(0);
    expectNoSecret(offline.stdout + offline.stderr);
  }, 60_000);
});

describe('measure --url names the server by host, port and path only', () => {
  it.each([
    ['nothing listens, URL with a user and password', () => `http://${USER}:${PASSWORD}@127.0.0.1:${closedPort}/mcp?api_key=${CANARY}`, () => closedPort],
    ['nothing listens, URL with a key in its query', () => `http://127.0.0.1:${closedPort}/mcp?api_key=${CANARY}`, () => closedPort],
    ['a server answers 500 with the request line', () => `http://127.0.0.1:${failingPort}/mcp?api_key=${CANARY}`, () => failingPort],
  ])('%s: fails, names the host and port, no secret on stdout, stderr or in a file', async (_case, url, port) => {
    const dir = await mkdtemp(join(scratch, 'measure-'));
    for (const json of [false, true]) {
      const run = await runCli(['measure', '--runs', '1', '--timeout', '10000', '--out', 'out', ...(json ? ['--json'] : []), '--url', url()], dir);
      expect(run.code, run.stderr).not.toBe(0);
      expect(run.stdout + run.stderr).toContain(`127.0.0.1:${port()}`);
      expectNoSecret(run.stdout + run.stderr);
    }
    expectNoSecret(await writtenText(dir));
  }, 60_000);
});
