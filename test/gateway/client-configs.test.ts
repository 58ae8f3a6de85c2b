// Issue 31, item 7: the gateway reads client config files as users have them (a whole Claude
// Desktop, Claude Code, Cursor, VS Code, Cline or Windsurf file: the client's own settings noted and
// ignored, `${VAR}`/`${VAR:-default}` expanded), a relative command resolves from the config's
// folder, and an upstream that cannot start is reported unavailable while the others serve.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { startLegacySseToolsServer } from '../support/remote-servers.js';
import type { Message } from '../support/wire-client.js';
import { InProcessGateway } from './_in-process.js';
import { RELAY_SERVER, markEnvEntries, relayEntry, relayOverHttp, runCliProcess, tempDir, writeConfig } from './_gateway-process.js';
import { freePort } from '../support/free-port.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/client-configs/', import.meta.url));
const CLONE = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const CANARY = 'canary-value-7c1e2b9d4f';

/**
 * A fixture written into a fresh folder (at the same relative path) as a user would have it on
 * their machine: the clone's path for the placeholder, the test mark added to each `env` (the
 * gateway passes only named variables on), and a live relay's address for the made-up one.
 */
function materialize(fixture: string, options: { relayUrl?: string; sseUrl?: string } = {}): string {
  const dir = tempDir('mcpctx-client-config-');
  const file = join(dir, fixture);
  mkdirSync(dirname(file), { recursive: true });
  const marks = Object.entries(markEnvEntries())
    .map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`)
    .join(', ');
  let text = readFileSync(join(FIXTURES, fixture), 'utf8')
    .replaceAll('/ABSOLUTE/PATH/TO/mcpctx', CLONE)
    .replace(/"env": \{(\s*)(\}?)/g, (_whole, space: string, close: string) => (close === '}' ? `"env": { ${marks} }` : `"env": { ${marks},${space}`));
  if (options.relayUrl !== undefined) text = text.replaceAll('http://localhost:8931/mcp', options.relayUrl);
  if (options.sseUrl !== undefined) text = text.replaceAll('http://localhost:3001/sse', options.sseUrl);
  writeFileSync(file, text);
  // VS Code's servers live in the workspace, found through ${workspaceFolder}.
  mkdirSync(join(dir, 'vscode', 'servers'), { recursive: true });
  for (const server of ['relay-server.mjs', 'relay-logic.mjs']) copyFileSync(join(dirname(RELAY_SERVER), server), join(dir, 'vscode', 'servers', server));
  return file;
}

async function listTools(gateway: InProcessGateway): Promise<{ names: string[]; unavailable: Record<string, string> }> {
  await gateway.initialize();
  const listed = (await gateway.request('tools/list')).result as { tools: Array<{ name: string }>; _meta?: Record<string, unknown> };
  return { names: listed.tools.map((tool) => tool.name), unavailable: (listed._meta?.['mcpctx/unavailable'] ?? {}) as Record<string, string> };
}

async function echoFrom(gateway: InProcessGateway, tool: string): Promise<unknown> {
  const answer = await gateway.request('tools/call', { name: tool, arguments: { text: 'hi' } });
  return (answer.result as { structuredContent?: { from?: unknown } }).structuredContent?.from;
}

function resultText(answer: Message): string {
  return JSON.stringify(answer.result);
}

interface ClientCase {
  readonly fixture: string;
  readonly serving: readonly string[];
  readonly unavailable?: Readonly<Record<string, RegExp>>;
  /** What the gateway must log about the client's own settings. */
  readonly notes: readonly RegExp[];
  readonly env?: Record<string, string>;
  readonly http?: boolean;
  /** A server of the file on the older HTTP+SSE transport (`type: sse`), served here by a loopback one. */
  readonly sse?: string;
}

const CLIENTS: readonly ClientCase[] = [
  { fixture: 'claude-desktop/claude_desktop_config.json', serving: ['notes', 'files'], notes: [/top level: globalShortcut \(Claude Desktop's\), preferences \(Claude Desktop's\): not gateway settings, ignored/] },
  { fixture: 'claude-code/.mcp.json', serving: ['notes', 'files'], notes: [] },
  { fixture: 'claude-code/.claude.json', serving: ['notes', 'files'], notes: [/top level: numStartups \(Claude Code's\), installMethod, .*projects \(Claude Code's\)/] },
  { fixture: 'cursor/mcp.json', serving: ['notes', 'files'], env: { NOTES_TOKEN: CANARY }, notes: [/mcpServers\.files\.envFile: not read by the gateway/] },
  {
    fixture: 'vscode/.vscode/mcp.json',
    serving: ['notes'],
    sse: 'legacy',
    unavailable: { docs: /\$\{input:docs-api-key\}, a value VS Code asks its user for/ },
    notes: [/top level: inputs \(VS Code's\)/],
  },
  {
    fixture: 'cline/cline_mcp_settings.json',
    serving: ['notes', 'files'],
    notes: [/mcpServers\.notes: autoApprove \(.*\), timeout \(.*\): not gateway settings, ignored/, /mcpServers\.files: alwaysAllow \(.*\): not gateway settings/],
  },
  { fixture: 'windsurf/mcp_config.json', serving: ['notes', 'remote'], http: true, notes: [] },
];

describe('the gateway on client config files as they are', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  for (const client of CLIENTS) {
    it(`${client.fixture}: lists and calls the tools of every server it can serve${client.unavailable ? ', reports the others unavailable' : ''}`, async () => {
      const relay = client.http ? await relayOverHttp('remote') : undefined;
      const sse = client.sse === undefined ? undefined : await startLegacySseToolsServer();
      const gateway = await InProcessGateway.start({ config: materialize(client.fixture, { relayUrl: relay?.url, sseUrl: sse?.url }), env: client.env });
      try {
        const { names, unavailable } = await listTools(gateway);
        for (const server of client.serving) {
          expect(names).toContain(`${server}__echo`);
          expect(await echoFrom(gateway, `${server}__echo`)).toBe(server);
        }
        if (client.sse !== undefined) {
          const echoed = await gateway.request('tools/call', { name: `${client.sse}__echo`, arguments: { text: 'over HTTP+SSE' } });
          expect(echoed.result).toEqual({ content: [{ type: 'text', text: 'over HTTP+SSE' }] });
          expect(sse?.posts).toBeGreaterThan(0);
        }
        expect(Object.keys(unavailable).sort()).toEqual(Object.keys(client.unavailable ?? {}).sort());
        for (const [server, reason] of Object.entries(client.unavailable ?? {})) {
          expect(unavailable[server]).toMatch(reason);
          expect(names.some((name) => name.startsWith(`${server}__`))).toBe(false);
          expect(gateway.stderr()).toMatch(new RegExp(`unavailable, the others serve: upstream ${server}: .*${reason.source}`));
          const refused = await gateway.request('tools/call', { name: `${server}__echo`, arguments: { text: 'hi' } });
          expect(refused.result).toMatchObject({ isError: true });
          expect(resultText(refused)).toMatch(reason);
        }
        for (const note of client.notes) expect(gateway.stderr()).toMatch(note);
        expect(gateway.stderr()).not.toContain(CANARY);
      } finally {
        await gateway.close();
        await relay?.stop();
        await sse?.close();
      }
    });
  }

  it('Claude Code ${VAR:-default}: the default when the variable is unset or empty, its value when set', async () => {
    const file = materialize('claude-code/.mcp.json');
    for (const [env, expected] of [[{}, 'notes'], [{ NOTES_NAME: '' }, 'notes'], [{ NOTES_NAME: 'jotter' }, 'jotter']] as const) {
      const gateway = await InProcessGateway.start({ config: file, env });
      try {
        const { names } = await listTools(gateway);
        expect(names).toContain('notes__echo');
        // The server's own name comes from its --name argument, "${NOTES_NAME:-notes}".
        expect(await echoFrom(gateway, 'notes__echo')).toBe(expected);
      } finally {
        await gateway.close();
      }
    }
  });

  it('a relative command with a folder in it runs from the config file\'s folder, not the working directory', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'bin'));
    const launcher = join(dir, 'bin', 'relay');
    writeFileSync(launcher, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(RELAY_SERVER)} "$@"\n`);
    chmodSync(launcher, 0o755);
    expect(process.cwd()).not.toBe(dir);
    const config = writeConfig({ mcpServers: { local: { command: './bin/relay', args: ['--name', 'local'], env: markEnvEntries() } } }, dir);
    const gateway = await InProcessGateway.start({ config });
    try {
      const { names } = await listTools(gateway);
      expect(names).toContain('echo');
      expect(await echoFrom(gateway, 'echo')).toBe('local');
    } finally {
      await gateway.close();
    }
  });

  it('a mistyped command, a missing variable and a server that exits at start, beside a good server: the good one serves, each other is reported with why', async () => {
    const config = writeConfig({
      mcpServers: {
        good: relayEntry('good'),
        typo: { command: 'nod', args: [RELAY_SERVER], env: markEnvEntries() },
        secret: { ...relayEntry('secret'), env: { ...markEnvEntries(), API_KEY: '${SECRET_API_KEY}' } },
        quits: { command: process.execPath, args: ['-e', 'process.exit(3)'], env: markEnvEntries() },
      },
    });
    const gateway = await InProcessGateway.start({ config });
    try {
      const initialized = await gateway.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
      expect(JSON.stringify(initialized.result)).toMatch(/upstream typo: the command \\"nod\\" was not found/);
      const listed = (await gateway.request('tools/list')).result as { tools: Array<{ name: string }>; _meta: Record<string, Record<string, string>> };
      expect(listed.tools.map((tool) => tool.name)).toContain('good__echo');
      expect(listed.tools.some((tool) => !tool.name.startsWith('good__'))).toBe(false);
      const unavailable = listed._meta['mcpctx/unavailable'] ?? {};
      expect(Object.keys(unavailable).sort()).toEqual(['quits', 'secret', 'typo']);
      expect(unavailable.typo).toMatch(/"nod" was not found/);
      expect(unavailable.secret).toMatch(/SECRET_API_KEY \(env API_KEY\)/);
      expect(unavailable.quits).toMatch(/exit 3/);
      expect(await echoFrom(gateway, 'good__echo')).toBe('good');
      const refused = await gateway.request('tools/call', { name: 'typo__echo', arguments: { text: 'hi' } });
      expect(refused.result).toMatchObject({ isError: true });
      expect(resultText(refused)).toMatch(/"nod\\" was not found.*The call was not sent/);
      expect(gateway.stderr()).toMatch(/unavailable, the others serve: upstream typo: the command "nod" was not found/);
      expect(gateway.stderr()).toMatch(/unavailable, the others serve: upstream secret: environment variable not set: SECRET_API_KEY/);
    } finally {
      await gateway.close();
    }
  });
});

describe('mcpctx gateway on client configs (the CLI)', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('when no upstream can start it exits 3 naming every one and why, and leaves nothing running', async () => {
    const port = await freePort();
    const config = writeConfig({
      mcpServers: {
        typo: { command: 'nod', args: ['server.js'] },
        gone: { serverUrl: `http://127.0.0.1:${port}/mcp` },
      },
    });
    const run = await runCliProcess(['gateway', '--config', config], { timeoutMs: 30_000 });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/no upstream can start/);
    expect(run.stderr).toMatch(/upstream typo: the command "nod" was not found/);
    expect(run.stderr).toMatch(new RegExp(`upstream gone: http://127\\.0\\.0\\.1:${port}/mcp cannot be reached`));
    expect(await waitForNoMarkedProcesses(1_000)).toEqual([]);
  });

  it('gateway check prints the notes on a client file, and names, never values, of its variables', async () => {
    const desktop = await runCliProcess(['gateway', 'check', '--offline', materialize('claude-desktop/claude_desktop_config.json')]);
    expect(desktop.code).toBe(0);
    expect(desktop.stdout).toMatch(/\nnotes:\n {2}top level: globalShortcut \(Claude Desktop's\), preferences \(Claude Desktop's\): not gateway settings, ignored\n/);
    const vscode = await runCliProcess(['gateway', 'check', '--offline', '--json', materialize('vscode/.vscode/mcp.json')]);
    expect(vscode.code).toBe(0);
    const rules = JSON.parse(vscode.stdout) as { upstreams: Array<{ name: string; kind: string; cannotServe?: string }>; notes: string[] };
    expect(rules.upstreams.map(({ name, kind, cannotServe }) => [name, kind, cannotServe !== undefined])).toEqual([
      ['notes', 'stdio', false],
      ['docs', 'stdio', true],
      ['legacy', 'sse', false],
    ]);
    const claudeCode = await runCliProcess(['gateway', 'check', '--offline', '--json', materialize('claude-code/.mcp.json')], { env: { NOTES_LEVEL: CANARY, NOTES_NAME: CANARY } });
    expect(claudeCode.code).toBe(0);
    expect(claudeCode.stdout + claudeCode.stderr).not.toContain(CANARY);
    const [notes] = (JSON.parse(claudeCode.stdout) as { upstreams: Array<{ requiredEnv: string[]; envNames: string[] }> }).upstreams;
    // Every variable has a default: none is required.
    expect(notes?.requiredEnv).toEqual([]);
    expect(notes?.envNames).toContain('NOTES_LEVEL');
  });
});

