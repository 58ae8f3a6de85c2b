// Starting the gateway CLI (dist/) and the relay test server as real processes for tests.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startListening } from '../support/conformance.js';
import { TEST_MARK_NAME, TEST_OWNER_NAME, markedEnv } from '../support/processes.js';
import { type Answer, CANNED_ANSWERS, type WireClient, httpClient, stdioClient } from '../support/wire-client.js';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
export const RELAY_SERVER = fileURLToPath(new URL('../servers/relay-server.mjs', import.meta.url));
const LISTENING = /listening on (http:\/\/\S+)/;

/** The test mark for a server the gateway launches (it passes only named variables on). */
export function markEnvEntries(): Record<string, string> {
  const env = markedEnv();
  return { [TEST_MARK_NAME]: env[TEST_MARK_NAME] as string, [TEST_OWNER_NAME]: env[TEST_OWNER_NAME] as string };
}

/** CLI arguments for one marked stdio upstream without a config file (`--env MARK... -- COMMAND...`). */
export function upstreamArgs(command: string, ...args: string[]): string[] {
  const marks = Object.entries(markEnvEntries()).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
  return [...marks, '--', command, ...args];
}

/** CLI arguments for the relay server as the one upstream. */
export function relayArgs(name = 'one'): string[] {
  return upstreamArgs(process.execPath, RELAY_SERVER, '--name', name);
}

/** A stdio upstream entry for a config: the relay server under `name`, marked for leak checks. */
export function relayEntry(name: string, extraArgs: string[] = []): Record<string, unknown> {
  return { command: process.execPath, args: [RELAY_SERVER, '--name', name, ...extraArgs], env: markEnvEntries() };
}

export function tempDir(prefix = 'mcpctx-gateway-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeConfig(config: unknown, dir = tempDir()): string {
  const file = join(dir, 'gateway.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** `mcpctx gateway ARGS` over stdio, as a client sees it. */
export function gatewayOverStdio(args: readonly string[], env: Record<string, string> = {}, answer: Answer = CANNED_ANSWERS): WireClient & { pid: number | undefined } {
  return stdioClient(process.execPath, [CLI, 'gateway', ...args], markedEnv({ PATH: process.env.PATH ?? '', ...env }), answer);
}

/** `mcpctx gateway --http 127.0.0.1:0 ARGS`: its URL, a client factory and a stop. */
export async function gatewayOverHttp(args: readonly string[]) {
  const started = await startListening(process.execPath, [CLI, 'gateway', '--http', '127.0.0.1:0', ...args], LISTENING);
  return { ...started, client: (answer: Answer = CANNED_ANSWERS) => httpClient(started.url, answer) };
}

/** The relay server over streamable HTTP. */
export function relayOverHttp(name: string) {
  return startListening(process.execPath, [RELAY_SERVER, '--name', name, '--http'], LISTENING);
}

export interface CliExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `mcpctx ARGS` as its own process, run to its end (stdin closed at once), killed and failed past `timeoutMs`. */
export function runCliProcess(args: readonly string[], options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliExit> {
  const { cwd, env = {}, timeoutMs = 40_000 } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: markedEnv({ PATH: process.env.PATH ?? '', ...env }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end();
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mcpctx ${args.join(' ')} did not end; stderr: ${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
