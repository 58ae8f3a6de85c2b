// A url entry holding a user and password no longer ends the whole audit (it used to: exit 2,
// nothing on stdout). The entry is reached without them, as a url entry is reached without its
// header values, says so, and the password appears in no output: not the report, not the JSON,
// not the tables, not stderr. A url that is not http(s) is an entry that cannot be launched.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, type AuditReport } from '../../src/audit/index.js';
import { measureServer } from '../../src/measure/index.js';
import { runCliCaptured } from '../support/cli-run.js';
import { startStreamableToolsServer, type StreamableServer } from '../support/remote-servers.js';

const PASSWORD = `pw-${randomUUID()}`;
const USER = `user-${randomUUID()}`;
let root = '';
let config = '';
let tools: StreamableServer;
let toolsTokens = 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mcpctx-audit-url-creds-'));
  tools = await startStreamableToolsServer();
  toolsTokens = (await measureServer({ name: 'tools', launch: { url: tools.url }, runs: 1, timeoutMs: 30_000 })).totalTokens ?? -1;
  const withCredentials = tools.url.replace('http://', `http://${USER}:${PASSWORD}@`);
  config = join(root, 'servers.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        creds: { type: 'http', url: withCredentials },
        'user-only': { url: tools.url.replace('http://', `http://${USER}@`).replace('/mcp', '/other') },
        socket: { url: 'ws://127.0.0.1:9/mcp' },
        garbled: { url: `http://${USER}:${PASSWORD}@[not-a-host/mcp` },
      },
    }),
  );
}, 60_000);

afterAll(async () => {
  await tools?.close();
  rmSync(root, { recursive: true, force: true });
});

function entry(report: AuditReport, name: string): AuditReport['entries'][number] {
  const found = report.entries.find((item) => item.name === name);
  expect(found, name).toBeDefined();
  return found!;
}

describe('a url with a user and password', () => {
  it('is measured without them, says why, and the rest of the audit runs', async () => {
    const report = await audit({ configs: [config], runs: 1, timeoutMs: 30_000 });
    const creds = entry(report, 'creds');
    expect(creds.measurement?.totalTokens).toBe(toolsTokens);
    expect(creds.notes?.join(' ')).toContain('the url holds a user name and password; audit does not send credentials from a url');
    expect(entry(report, 'user-only').notes?.join(' ')).toContain('the url holds a user name;');
    expect(entry(report, 'socket').unmeasured).toEqual({ reason: 'problem', detail: 'url must start with http:// or https://, not ws:' });
    expect(entry(report, 'garbled').unmeasured).toEqual({ reason: 'problem', detail: 'url is not a valid URL' });
    // The server saw no Authorization the url could have meant.
    expect(tools.headers.some((headers) => headers.authorization !== undefined)).toBe(false);
    expect(JSON.stringify(report)).not.toContain(PASSWORD);
    expect(JSON.stringify(report)).not.toContain(USER);
  }, 60_000);

  it('never reaches stdout or stderr, measured or not, as tables or --json', async () => {
    for (const flags of [[], ['--json'], ['--no-measure'], ['--no-measure', '--json']]) {
      const run = await runCliCaptured(['audit', '--config', config, '--runs', '1', ...flags]);
      expect(run.code, `${flags.join(' ')}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('creds');
      expect(run.stdout + run.stderr).not.toContain(PASSWORD);
      expect(run.stdout + run.stderr).not.toContain(USER);
    }
  }, 120_000);
});
