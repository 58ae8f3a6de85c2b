// The walk-through of docs/remote-servers.md, run for real on loopback: a real authorization server
// (oidc-provider) guarding an MCP server that checks each token's audience, a headless chromium as
// the person at the browser (BROWSER), and the mcpctx CLI of this clone. The random ports and the
// temporary folder is printed as <tmp>; the page matches ports, ids and times with "…".
//   npx tsx docs/examples/oauth-remote/demo.ts
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeBrowserCommand } from '../../../test/support/oauth-browser.js';
import { startOAuthWorld } from '../../../test/support/oauth-world.js';

const CLI = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));

const world = await startOAuthWorld();
const dir = mkdtempSync(join(tmpdir(), 'mcpctx-oauth-demo-'));
const env = {
  PATH: process.env.PATH ?? '',
  HOME: dir,
  BROWSER: await writeBrowserCommand(dir),
  MCPCTX_AUTH_FILE: join(dir, 'auth.json'),
  MCPCTX_AUTH_STORE: 'file',
};

/** The temporary folder as <tmp>: the only part of the output that changes from run to run besides ports, ids and times. */
function shown(text: string): string {
  return text.split(dir).join('<tmp>');
}

/** Runs `mcpctx ARGS` as a user would, and prints the command and what it printed (stderr first: it comes first). */
async function mcpctx(args: string[]): Promise<void> {
  process.stdout.write(`▶ mcpctx ${shown(args.join(' '))}\n`);
  const child = spawn(process.execPath, [CLI, ...args], { env, cwd: dir });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  process.stdout.write(shown(stderr + stdout));
  if (code !== 0) process.stdout.write(`(exit ${String(code)})\n`);
}

try {
  await mcpctx(['measure', '--url', world.mcpUrl]);
  await mcpctx(['auth', 'login', world.mcpUrl]);
  await mcpctx(['auth', 'list']);
  await mcpctx(['measure', '--url', world.mcpUrl]);

  // The gateway in front of it, reached by the official MCP SDK client over stdio.
  const config = join(dir, 'gateway.yaml');
  writeFileSync(config, `mcpServers:\n  remote:\n    url: ${world.mcpUrl}\n    auth: oauth\n`);
  process.stdout.write('▶ the official MCP SDK client, through: mcpctx gateway --config gateway.yaml\n');
  const client = new Client({ name: 'demo', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'gateway', '--config', config], env, cwd: dir, stderr: 'ignore' }));
  const { tools } = await client.listTools();
  process.stdout.write(`tools: ${tools.map((tool) => tool.name).join(', ')}\n`);
  const echo = tools.find((tool) => tool.name.endsWith('echo'));
  if (echo !== undefined) {
    const result = await client.callTool({ name: echo.name, arguments: { text: 'hello through the gateway' } });
    process.stdout.write(`${echo.name}: ${JSON.stringify(result.content)}\n`);
  }
  await client.close();
} finally {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
}
