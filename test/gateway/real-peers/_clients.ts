// The clients people use, started the way they start them: the official SDK client (1.x) over
// stdio to the gateway CLI, the same client through mcp-remote to the gateway's HTTP front, and
// the Inspector CLI as a command. Every process gets the test mark (markedEnv) so the leak check
// sees it and everything it starts.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { markedEnv } from '../../support/processes.js';
import { PROJECT_ROOT } from '../../support/real-servers.js';
import { CLI, tempDir } from '../_gateway-process.js';

const MCP_REMOTE = join(PROJECT_ROOT, 'node_modules/mcp-remote/dist/proxy.js');
const INSPECTOR_CLI = join(PROJECT_ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build/cli.js');
/**
 * The Inspector CLI 1.0.3 reads its own name from `../package.json` taken against the working
 * directory (and fails with "Cannot find module .../@modelcontextprotocol/package.json" when that
 * file is missing): from its build folder, `..` is its package.
 */
const INSPECTOR_CWD = join(PROJECT_ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build');

/** How long any one process of this suite may take to answer before the test fails. */
export const PEER_TIMEOUT_MS = 45_000;

export interface PeerClient {
  readonly client: Client;
  /** What the process the client started wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export interface ClientSetup {
  readonly capabilities?: ClientCapabilities;
  /** Registers handlers (sampling, elicitation, roots, notifications) before connecting. */
  readonly prepare?: (client: Client) => void;
}

async function connectOverStdio(command: string, args: readonly string[], env: Record<string, string>, setup: ClientSetup): Promise<PeerClient> {
  const transport = new StdioClientTransport({ command, args: [...args], env: markedEnv({ PATH: process.env.PATH ?? '', ...env }), cwd: PROJECT_ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  const client = new Client({ name: 'mcpctx-real-peers', version: '1.0.0' }, { capabilities: setup.capabilities ?? {} });
  setup.prepare?.(client);
  try {
    await client.connect(transport, { timeout: PEER_TIMEOUT_MS });
  } catch (error) {
    await client.close();
    throw new Error(`${args.join(' ')} did not connect: ${error instanceof Error ? error.message : String(error)}; stderr: ${stderr}`, { cause: error });
  }
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The SDK client over stdio to `mcpctx gateway ARGS`. */
export function sdkOverStdio(args: readonly string[], setup: ClientSetup = {}): Promise<PeerClient> {
  return connectOverStdio(process.execPath, [CLI, 'gateway', ...args], {}, setup);
}

/** The SDK client over stdio to mcp-remote, which relays to the gateway's HTTP front at `url`. */
export function sdkThroughMcpRemote(url: string, setup: ClientSetup = {}): Promise<PeerClient> {
  // mcp-remote keeps OAuth state under MCP_REMOTE_CONFIG_DIR (~/.mcp-auth otherwise).
  return connectOverStdio(process.execPath, [MCP_REMOTE, url, '--allow-http', '--transport', 'http-only'], { MCP_REMOTE_CONFIG_DIR: tempDir('mcpctx-mcp-remote-') }, setup);
}

export interface InspectorRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `mcp-inspector-cli --cli ARGS` run to its end. It starts a child (its index.js) that starts the
 * server, so it runs in its own process group, ended as a group past the bound.
 */
export function runInspector(args: readonly string[]): Promise<InspectorRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [INSPECTOR_CLI, '--cli', ...args], {
      cwd: INSPECTOR_CWD,
      env: markedEnv({ PATH: process.env.PATH ?? '' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const endGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone
      }
    };
    const timer = setTimeout(() => {
      endGroup();
      reject(new Error(`mcp-inspector-cli ${args.join(' ')} did not end within ${PEER_TIMEOUT_MS} ms; stderr: ${stderr}`));
    }, PEER_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // After a normal end the group is left alone: what the gateway leaves running is the leak check's to see.
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The Inspector's JSON answer on stdout, or a failure naming its exit code and stderr. */
export function inspectorAnswer(run: InspectorRun): Record<string, unknown> {
  if (run.code !== 0) throw new Error(`the Inspector CLI exited ${run.code}: ${run.stderr.replace(/^[\s\S]*?security fixes only\.\s*/, '').trim()}`);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/**
 * Inspector arguments for one request to `mcpctx gateway --config FILE` over stdio. The gateway's
 * command goes after `--`: before it, the Inspector takes `--config` as its own (a file of servers
 * to pick one from with --server).
 */
export function inspectorOverStdio(configFile: string, ...request: string[]): string[] {
  return [...request, '--', process.execPath, CLI, 'gateway', '--config', configFile];
}

/** Inspector arguments for one request to the gateway's HTTP front at `url`. */
export function inspectorOverHttp(url: string, ...request: string[]): string[] {
  return [url, '--transport', 'http', ...request];
}
