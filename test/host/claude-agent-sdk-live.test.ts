// The Claude Agent SDK adapter in a real query(): the Claude Code binary the SDK ships, offline,
// against a loopback fake of the Anthropic Messages API that plays the model (call
// mcp__prs__list_pull_requests, then read_result on the handle, then answer). What the fake
// receives is what the model would have read. Skipped when this platform's binary is absent.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { HostShaper, loadHostRules } from '../../src/host/index.js';
import { readResultServer, shapingHooks, type ShapedCallReport } from '../../src/host/claude-agent-sdk/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { messageEvents, sseText, type FakeBlock } from '../support/anthropic-fake.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { markEnvEntries } from '../gateway/_gateway-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BINARY_PACKAGE = `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}`;
const BINARY = claudeBinary();
const SKIPPED = BINARY === undefined ? ` (skipped: ${BINARY_PACKAGE} is not installed, so there is no Claude Code binary to run)` : '';
/** A bound on one query(): the binary's start, three model turns and the server's call. */
const QUERY_BOUND_MS = 120_000;
const LIST_TOOL = 'mcp__prs__list_pull_requests';
/** Tries at a tool not listed yet, and the wait before each try after the first: at most 10 s in all. */
const LIST_ATTEMPTS = 20;
const LIST_RETRY_MS = 500;

function claudeBinary(): string | undefined {
  try {
    const file = join(dirname(createRequire(import.meta.url).resolve(`${BINARY_PACKAGE}/package.json`)), 'claude');
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | Array<{ type: string; text?: string }>;
}

/** The text of a tool_result as the model reads it, without the reminder Claude Code appends. */
function resultText(block: ToolResultBlock): string {
  const text = typeof block.content === 'string' ? block.content : block.content.map((part) => part.text ?? '').join('\n');
  return text.replace(/\n*<system-reminder>[\s\S]*?<\/system-reminder>\s*$/, '');
}

/** The model: list the pull requests, read the handle's numbers with read_result, answer. */
class FakeModel {
  readonly toolResults = new Map<string, string>();
  requests = 0;
  #server: Server | undefined;

  async start(): Promise<string> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.requests += 1;
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages?: Array<{ content: unknown }> };
        for (const message of body.messages ?? []) {
          for (const block of Array.isArray(message.content) ? (message.content as ToolResultBlock[]) : []) {
            if (block.type === 'tool_result') this.toolResults.set(block.tool_use_id, resultText(block));
          }
        }
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const content = this.#next();
        const reply = (): void => void response.end(sseText(messageEvents({ content, stopReason: content[0]?.type === 'tool_use' ? 'tool_use' : 'end_turn' })));
        // Another try at a tool Claude Code had not listed yet waits a moment for its server to connect.
        if (this.listAttempts > 1 && content[0]?.type === 'tool_use' && content[0].name === LIST_TOOL) setTimeout(reply, LIST_RETRY_MS);
        else reply();
      });
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** How many times the model has called list_pull_requests. */
  listAttempts = 0;

  /** The result of the last list_pull_requests call, as the model read it. */
  get listed(): string | undefined {
    return this.toolResults.get(`toolu_list_${this.listAttempts}`);
  }

  #next(): FakeBlock[] {
    const listed = this.listed;
    // Claude Code connects MCP servers while the session starts: on a loaded machine the first call
    // can come before the server's tools are listed, and is answered "No such tool available".
    const notYetListed = listed !== undefined && listed.includes('No such tool available') && this.listAttempts < LIST_ATTEMPTS;
    if (this.listAttempts === 0 || notYetListed) {
      this.listAttempts += 1;
      return [{ type: 'tool_use', id: `toolu_list_${this.listAttempts}`, name: LIST_TOOL, input: {} }];
    }
    if (listed === undefined) return [{ type: 'text', text: 'done' }];
    const handle = /"handle":"([A-Za-z0-9_-]+)"/.exec(listed)?.[1];
    if (handle !== undefined && !this.toolResults.has('toolu_read')) {
      return [{ type: 'tool_use', id: 'toolu_read', name: 'mcp__mcpctx__read_result', input: { handle, query: 'pull_requests[*].number' } }];
    }
    return [{ type: 'text', text: 'done' }];
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** One real query() with the shaping hook and the read_result server; what the fake model received. */
async function runQuery(env: Record<string, string>): Promise<{ model: FakeModel; reports: ShapedCallReport[]; outcome: string }> {
  const model = new FakeModel();
  const baseUrl = await model.start();
  const home = mkdtempSync(join(tmpdir(), 'mcpctx-claude-home-'));
  const shaper = new HostShaper({ rules: await loadHostRules(join(ROOT, 'examples/gateway/gateway.yaml')) });
  const reports: ShapedCallReport[] = [];
  const abort = new AbortController();
  const bound = setTimeout(() => abort.abort(), QUERY_BOUND_MS);
  let outcome = 'no result';
  try {
    for await (const message of query({
      prompt: 'Which pull requests are there?',
      options: {
        abortController: abort,
        cwd: home,
        model: 'claude-sonnet-4-5',
        settingSources: [],
        persistSession: false,
        tools: [],
        allowedTools: ['mcp__prs__list_pull_requests', 'mcp__mcpctx__read_result'],
        ...(BINARY === undefined ? {} : { pathToClaudeCodeExecutable: BINARY }),
        mcpServers: {
          prs: { type: 'stdio', command: process.execPath, args: [join(ROOT, 'examples/pull-requests/server.js'), 'before'] },
          mcpctx: readResultServer(shaper),
        },
        hooks: shapingHooks(shaper, { onShaped: (report) => reports.push(report) }),
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          ANTHROPIC_BASE_URL: baseUrl,
          ANTHROPIC_API_KEY: 'fake',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          ...markEnvEntries(),
          ...env,
        },
      },
    })) {
      if (message.type === 'result') outcome = message.subtype;
    }
  } finally {
    clearTimeout(bound);
    await model.close();
    shaper.close();
    rmSync(home, { recursive: true, force: true });
  }
  return { model, reports, outcome };
}

const ALL_NUMBERS_COUNT = 30;

describe(`Claude Agent SDK: a real query() against a fake model${SKIPPED}`, () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it.skipIf(BINARY === undefined)("by default Claude Code's own limit fires before the hook: the hook passes its notice through and reports it", async () => {
    const { model, reports, outcome } = await runQuery({});
    expect(outcome).toBe('success');
    const listed = model.listed ?? '';
    expect(listed).toMatch(/^Error: result \([\d,]+ characters\) exceeds maximum allowed tokens\. Output has been saved to /);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ toolName: 'mcp__prs__list_pull_requests', server: 'prs', action: 'host-notice', changed: false });
    expect(listed.startsWith(reports[0]!.notice!.text.split('\n')[0]!)).toBe(true);
    expect(model.toolResults.has('toolu_read')).toBe(false);
  }, QUERY_BOUND_MS + 10_000);

  it.skipIf(BINARY === undefined)('with MAX_MCP_OUTPUT_TOKENS raised, the hook sees the whole result: the model gets the preview and reads every number through read_result', async () => {
    const { model, reports, outcome } = await runQuery({ MAX_MCP_OUTPUT_TOKENS: '300000' });
    expect(outcome).toBe('success');
    const listed = model.listed ?? '';
    const preview = JSON.parse(listed) as { handle: string; items: Array<{ number: number; author?: string }> };
    expect(countTokens(listed)).toBeLessThanOrEqual(2_000);
    expect(preview.items.length).toBeGreaterThan(0);
    expect(preview.items[0]!.author).toEqual(expect.any(String));
    // Claude Code hands a structured result to the hook as its structuredContent, as a JSON string.
    expect(reports[0]).toMatchObject({ toolName: 'mcp__prs__list_pull_requests', action: 'offloaded', changed: true, handle: preview.handle });
    expect(reports[0]!.tokensBefore).toBeGreaterThan(100_000);
    expect(reports[0]!.tokensAfter).toBe(countTokens(listed));
    // read_result itself is never shaped: the hook reported one call only.
    expect(reports).toHaveLength(1);
    const numbers = JSON.parse(model.toolResults.get('toolu_read') ?? 'null') as number[];
    expect(numbers).toHaveLength(ALL_NUMBERS_COUNT);
    expect(new Set(numbers).size).toBe(ALL_NUMBERS_COUNT);
    // The live row of docs/host-claude-agent-sdk.md is this run's (handles are random: a few dozen tokens either way).
    const row = readFileSync(join(ROOT, 'docs/host-claude-agent-sdk.md'), 'utf8').split('\n').find((line) => line.includes('| live `query()`'));
    const cells = (row ?? '').split('|').map((cell) => cell.trim());
    expect(Number(cells[3]?.replace(/,/g, '')), row).toBe(reports[0]!.tokensBefore);
    expect(Math.abs(Number(cells[4]?.replace(/[~,]/g, '')) - reports[0]!.tokensAfter), `${row}\nmeasured after: ${reports[0]!.tokensAfter}`).toBeLessThanOrEqual(40);
    expect(cells[5], row).toContain(`${preview.items.length} of 30`);
  }, QUERY_BOUND_MS + 10_000);
});
