// What the Claude Code tests share: the built CLI run as Claude Code runs a command hook (JSON on
// stdin, answer on stdout), the read_result server through the official SDK client, and the
// recorded pull-requests result fetched once from the real example server.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { markedEnv } from '../support/processes.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist/cli/main.js');
export const EXAMPLE_RULES = join(ROOT, 'examples/gateway/gateway.yaml');
const EXAMPLE = join(ROOT, 'examples/pull-requests');
export const ALL_NUMBERS: readonly number[] = (JSON.parse(readFileSync(join(EXAMPLE, 'data/pulls.json'), 'utf8')) as Array<{ number: number }>).map((pull) => pull.number).sort((a, b) => a - b);
/** Longest a hook run may take before the test kills it and fails. */
const HOOK_DEADLINE_MS = 30_000;

export function tempDir(prefix = 'mcpctx-cc-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface HookRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` with `stdin` written and closed, as Claude Code runs a command hook; killed past the deadline. */
export function runWithStdin(command: string, args: readonly string[], stdin: string | Buffer, env: Record<string, string> = {}, cwd = ROOT): Promise<HookRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, [...args], { cwd, env: markedEnv({ PATH: process.env.PATH ?? '', ...env }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not end within ${HOOK_DEADLINE_MS} ms; stderr: ${stderr}`));
    }, HOOK_DEADLINE_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
    // A hook that stops reading early closes its stdin: that is not the test's failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  });
}

/** `mcpctx hook post-tool-use ARGS` fed `input` (an object is sent as its JSON). */
export function runHook(args: readonly string[], input: unknown, env: Record<string, string> = {}): Promise<HookRun> {
  const stdin = typeof input === 'string' || Buffer.isBuffer(input) ? input : JSON.stringify(input);
  return runWithStdin(process.execPath, [CLI, 'hook', 'post-tool-use', ...args], stdin, env);
}

/** The PostToolUse input as Claude Code documents it (PostToolUseHookInput), for one MCP call. */
export function postToolUseInput(toolResponse: unknown, options: { toolName?: string; server?: string } = {}): Record<string, unknown> {
  return {
    session_id: 'c0ffee00-0000-4000-8000-000000000001',
    transcript_path: '/home/u/.claude/projects/x/c0ffee00.jsonl',
    cwd: '/home/u/x',
    permission_mode: 'default',
    hook_event_name: 'PostToolUse',
    tool_name: options.toolName ?? 'mcp__prs__list_pull_requests',
    tool_input: {},
    tool_response: toolResponse,
    tool_use_id: 'toolu_01ABCDEF',
    ...(options.server === undefined ? {} : { mcp_server: { name: options.server, source: 'project' } }),
  };
}

/** The official SDK client on `mcpctx hook results-server ARGS`. */
export async function resultsClient(args: readonly string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'hook', 'results-server', ...args], env: markedEnv({ PATH: process.env.PATH ?? '', ...env }), stderr: 'pipe' });
  const client = new Client({ name: 'claude-code-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** list_pull_requests of the real `before` server, through the official SDK client: the CallToolResult a host receives. */
export async function recordedPullRequests(): Promise<{ content: Array<{ type: string; text: string }>; structuredContent?: unknown }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(EXAMPLE, 'server.js'), 'before'], cwd: ROOT, env: markedEnv({ PATH: process.env.PATH ?? '' }), stderr: 'pipe' });
  const client = new Client({ name: 'claude-code-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.callTool({ name: 'list_pull_requests', arguments: {} })) as { content: Array<{ type: string; text: string }>; structuredContent?: unknown };
  } finally {
    await client.close();
  }
}
