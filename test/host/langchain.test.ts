// mcpctx/host/langchain on the real framework: a MultiServerMCPClient (@langchain/mcp-adapters) over
// stdio to the recorded pull-requests server, its tool called the way an agent calls it (a
// LangGraph ToolNode given an AIMessage with the tool call), so each assertion is on the
// ToolMessage the model gets. The figures of docs/host-langchain.md are the ones measured here.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient, type ClientConfig, type Connection } from '@langchain/mcp-adapters';
import { afterAll, describe, expect, it } from 'vitest';
import { HostShaper, type HostRulesInput } from '../../src/host/index.js';
import { readResultTool, shapingHooks, type ShapedCallReport } from '../../src/host/langchain/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { WalkedItems } from '../gateway/_walked-items.js';
import { entrySource, walkImports } from '../support/import-graph.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/pull-requests');
const ALL_NUMBERS = (JSON.parse(readFileSync(join(EXAMPLE, 'data/pulls.json'), 'utf8')) as Array<{ number: number }>).map((pull) => pull.number).sort((a, b) => a - b);
const RESULT_SERVER = join(ROOT, 'test/servers/result-server.mjs');
/** The prs tool's rules of examples/gateway/gateway.yaml. */
const EXAMPLE_RULES: HostRulesInput = {
  tools: {
    'prs/list_pull_requests': {
      project: ['number', 'title', 'state', { path: 'user.login', as: 'author' }, 'created_at', 'merged_at', { path: 'body', maxChars: 200 }],
      pageTokens: 2000,
    },
  },
};
const CAP_TOKENS = 25_000;
const MAX_PAGES = 100;
const NOTICE = 'Error: result (694,797 characters) exceeds maximum allowed tokens. Output has been saved to /home/user/.claude/projects/demo/tool-results/mcp-prs-list_pull_requests-1761041234567.txt';

const PRS: Connection = { transport: 'stdio', command: process.execPath, args: [join(EXAMPLE, 'server.js'), 'before'], env: markedEnv() };

function resultServer(env: Record<string, string>): Connection {
  return { transport: 'stdio', command: process.execPath, args: [RESULT_SERVER], env: markedEnv(env) };
}

/** The client's tools for the time of `run`; the client (and its server process) closed after. */
async function withTools<T>(mcpServers: Record<string, Connection>, hooks: Partial<ClientConfig>, run: (tools: StructuredToolInterface[]) => Promise<T>): Promise<T> {
  const client = new MultiServerMCPClient({ mcpServers, ...hooks });
  try {
    return await run(await client.getTools());
  } finally {
    await client.close();
  }
}

let callCount = 0;

/** One tool call as an agent makes it: a ToolNode runs the AIMessage's tool call; the ToolMessage it gives back is what the model reads next. */
async function callAsAgent(tools: StructuredToolInterface[], name: string, args: Record<string, unknown>): Promise<ToolMessage> {
  const id = `call_${++callCount}`;
  const out = (await new ToolNode(tools).invoke({ messages: [new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] })] })) as { messages: unknown[] };
  expect(out.messages).toHaveLength(1);
  const [message] = out.messages;
  if (!ToolMessage.isInstance(message)) throw new Error(`ToolNode gave no ToolMessage: ${JSON.stringify(message).slice(0, 200)}`);
  expect(message.tool_call_id).toBe(id);
  return message;
}

function textOf(message: ToolMessage): string {
  if (typeof message.content !== 'string') throw new Error(`expected the ToolMessage's content as text, got ${JSON.stringify(message.content).slice(0, 200)}`);
  return message.content;
}

/** What the model gets of one ToolMessage, in o200k tokens, and by LangChain's default estimate (characters / 4). */
function measured(message: ToolMessage): { tokens: number; charsOver4: number } {
  const text = textOf(message);
  return { tokens: countTokens(text), charsOver4: Math.ceil(text.length / 4) };
}

/** Reads on from a preview with read_result, as the model would, until next_cursor is null. */
async function walkFrom(tools: StructuredToolInterface[], preview: ToolMessage): Promise<{ numbers: number[]; pageTokens: number[] }> {
  const walked = new WalkedItems();
  const first = walked.add(textOf(preview));
  const handle = (JSON.parse(textOf(preview)) as { handle: string }).handle;
  const pageTokens: number[] = [];
  let cursor = first.next_cursor;
  for (let pages = 0; cursor !== null; pages++) {
    if (pages === MAX_PAGES) throw new Error(`read_result gave more than ${MAX_PAGES} pages`);
    const page = await callAsAgent(tools, 'read_result', { handle, cursor });
    expect(page.status).toBe('success');
    pageTokens.push(countTokens(textOf(page)));
    cursor = walked.add(textOf(page)).next_cursor;
  }
  expect(walked.inside).toBe(false);
  return { numbers: walked.items.map((item) => (item as { number: number }).number).sort((a, b) => a - b), pageTokens };
}

const figures: Array<{ what: string; tokens: number; charsOver4: number; got: string }> = [];

function tableOf(rows: typeof figures): string {
  const number = (value: number): string => value.toLocaleString('en-US');
  return [
    '| ToolMessage of `list_pull_requests` | o200k tokens | characters / 4 | what the model got |',
    '| --- | ---: | ---: | --- |',
    ...rows.map((row) => `| ${row.what} | ${number(row.tokens)} | ${number(row.charsOver4)} | ${row.got} |`),
  ].join('\n');
}

describe('mcpctx/host/langchain: afterToolCall on MultiServerMCPClient', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('without the hook, the adapter hands the model the text and the structured copy, the text JSON-escaped', async () => {
    const message = await withTools({ prs: PRS }, {}, (tools) => callAsAgent(tools, 'list_pull_requests', {}));
    const block = JSON.parse(textOf(message)) as { type: string; text: string; structuredContent: unknown };
    expect(Object.keys(block)).toEqual(['type', 'text', 'structuredContent']);
    expect(countTokens(block.text)).toBe(113_801);
    const { tokens, charsOver4 } = measured(message);
    expect(tokens).toBeGreaterThan(2 * 113_801);
    figures.push({ what: 'no hook (the adapter as it is)', tokens, charsOver4, got: 'all 30 pull requests, every field, twice: `JSON.stringify` of the text block with its `structuredContent`' });
  }, 60_000);

  it('no rules: over the 25,000 cap the result is kept behind a handle, the model gets a preview, and read_result reaches all 30 pull requests', async () => {
    const shaper = new HostShaper();
    const reports: ShapedCallReport[] = [];
    try {
      const { preview, walk } = await withTools({ prs: PRS }, shapingHooks(shaper, { onShaped: (report) => reports.push(report) }), async (mcpTools) => {
        const tools = [...mcpTools, readResultTool(shaper)];
        const preview = await callAsAgent(tools, 'list_pull_requests', {});
        return { preview, walk: await walkFrom(tools, preview) };
      });
      const { tokens, charsOver4 } = measured(preview);
      expect(tokens).toBeLessThan(1_000);
      expect(walk.numbers).toEqual(ALL_NUMBERS);
      expect(Math.max(...walk.pageTokens)).toBeLessThanOrEqual(CAP_TOKENS);
      expect(reports).toHaveLength(1);
      const [report] = reports;
      expect(report).toMatchObject({ server: 'prs', tool: 'list_pull_requests', action: 'offloaded', tokensBefore: 113_801, tokensAfter: tokens });
      expect(textOf(preview)).toContain(report?.handle);
      const items = (JSON.parse(textOf(preview)) as { items: unknown[] }).items.length;
      figures.push({ what: '`shapingHooks`, no rules (cap 25,000)', tokens, charsOver4, got: `a preview (handle, shape, ${items} of 30 items, next_cursor); the rest in ${walk.pageTokens.length} read_result pages of at most ${Math.max(...walk.pageTokens).toLocaleString('en-US')} tokens` });
    } finally {
      shaper.close();
    }
  }, 120_000);

  it('the example rules (project, pageTokens 2000): the first page of projected records, every pull request reachable with read_result', async () => {
    const shaper = new HostShaper({ rules: EXAMPLE_RULES });
    const reports: ShapedCallReport[] = [];
    try {
      const { preview, walk } = await withTools({ prs: PRS }, shapingHooks(shaper, { onShaped: (report) => reports.push(report) }), async (mcpTools) => {
        const tools = [...mcpTools, readResultTool(shaper)];
        const preview = await callAsAgent(tools, 'list_pull_requests', {});
        return { preview, walk: await walkFrom(tools, preview) };
      });
      const { tokens, charsOver4 } = measured(preview);
      expect(tokens).toBeLessThanOrEqual(2_000);
      const previewItems = (JSON.parse(textOf(preview)) as { items: Array<Record<string, unknown>> }).items;
      expect(previewItems.length).toBeGreaterThan(0);
      for (const item of previewItems) expect(Object.keys(item)).toEqual(expect.arrayContaining(['number', 'title', 'state', 'author']));
      expect(walk.numbers).toEqual(ALL_NUMBERS);
      expect(Math.max(...walk.pageTokens)).toBeLessThanOrEqual(2_000);
      expect(reports).toEqual([expect.objectContaining({ server: 'prs', tool: 'list_pull_requests', action: 'offloaded', tokensBefore: 113_801, tokensAfter: tokens })]);
      figures.push({
        what: '`shapingHooks`, the example rules (project, pageTokens 2,000)',
        tokens,
        charsOver4,
        got: `${previewItems.length} of 30 pull requests, 7 fields each; the other ${30 - previewItems.length} in ${walk.pageTokens.length} read_result page${walk.pageTokens.length === 1 ? '' : 's'} of at most ${Math.max(...walk.pageTokens).toLocaleString('en-US')} tokens`,
      });
    } finally {
      shaper.close();
    }
  }, 120_000);

  it("a host's own notice in the result is passed through untouched and reported", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpctx-langchain-'));
    const shaper = new HostShaper({ rules: EXAMPLE_RULES });
    const reports: ShapedCallReport[] = [];
    try {
      writeFileSync(join(dir, 'notice.txt'), NOTICE);
      const server = resultServer({ RESULT_FILE: join(dir, 'notice.txt') });
      const message = await withTools({ prs: server }, shapingHooks(shaper, { onShaped: (report) => reports.push(report) }), (tools) => callAsAgent(tools, 'get_result', {}));
      expect(textOf(message)).toBe(NOTICE);
      expect(reports).toEqual([expect.objectContaining({ server: 'prs', tool: 'get_result', action: 'host-notice', notice: expect.objectContaining({ host: 'claude-code', text: NOTICE, characters: 694_797 }) })]);
    } finally {
      shaper.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a result the rules pass reaches the model exactly as the adapter gives it without the hook', async () => {
    const args = { query: 'small', page: 1 };
    const server = { prs: resultServer({}) };
    const bare = await withTools(server, {}, (tools) => callAsAgent(tools, 'echo_arguments', args));
    const shaper = new HostShaper({ rules: EXAMPLE_RULES });
    const reports: ShapedCallReport[] = [];
    try {
      const hooked = await withTools(server, shapingHooks(shaper, { onShaped: (report) => reports.push(report) }), (tools) => callAsAgent(tools, 'echo_arguments', args));
      expect(hooked.content).toEqual(bare.content);
      expect(hooked.artifact).toEqual(bare.artifact);
      expect(reports).toEqual([expect.objectContaining({ server: 'prs', tool: 'echo_arguments', action: 'passed' })]);
    } finally {
      shaper.close();
    }
  }, 60_000);

  it("read_result's own results are never shaped again, even when a server offers a read_result", async () => {
    const shaper = new HostShaper({ rules: { capTokens: 1_000 } });
    const reports: ShapedCallReport[] = [];
    try {
      const { afterToolCall } = shapingHooks(shaper, { onShaped: (report) => reports.push(report) });
      const page = JSON.stringify({ items: ALL_NUMBERS.map((number) => ({ number, title: `pull request ${number}`, body: 'A line of the body. '.repeat(20) })), next_cursor: null });
      const answer = await afterToolCall({ serverName: 'gateway', name: 'read_result', args: { handle: 'h' }, result: [page, []] }, {}, {});
      expect(answer).toEqual({ result: [page, []] });
      expect(reports).toEqual([]);
      // The same text under another tool's name is over this cap and is shaped.
      const other = await afterToolCall({ serverName: 'gateway', name: 'list_pull_requests', args: {}, result: [page, []] }, {}, {});
      expect(other).not.toEqual({ result: [page, []] });
      expect(reports).toEqual([expect.objectContaining({ tool: 'list_pull_requests', action: 'offloaded' })]);
    } finally {
      shaper.close();
    }
  });

  it('read_result refuses an unknown handle with an error ToolMessage that says what to do', async () => {
    const shaper = new HostShaper();
    try {
      const message = await callAsAgent([readResultTool(shaper)], 'read_result', { handle: 'not-a-handle' });
      expect(message.status).toBe('error');
      expect(textOf(message)).toMatch(/^INVALID_HANDLE: .*call the original tool again/);
    } finally {
      shaper.close();
    }
  });

  it('LangChain is loaded by mcpctx/host/langchain alone, never by mcpctx/host', () => {
    const langchain = { isForbidden: ({ packageName }: { packageName?: string }) => packageName?.startsWith('@langchain/') === true };
    expect(walkImports(entrySource('mcpctx/host'), langchain).forbidden).toEqual([]);
    expect(walkImports(entrySource('mcpctx/host/langchain'), langchain).forbidden.map((reach) => reach.module).sort()).toEqual(['@langchain/core/messages', '@langchain/core/tools']);
  });

  it('docs/host-langchain.md shows the figures measured above', () => {
    expect(figures).toHaveLength(3);
    const measuredTable = tableOf(figures);
    const pages = ['docs/host.md', 'docs/host-langchain.md'].map((page) => join(ROOT, page)).filter((page) => existsSync(page));
    const [header] = measuredTable.split('\n');
    const documented = pages.map((page) => tableAfter(readFileSync(page, 'utf8'), header ?? '')).find((rows) => rows !== undefined);
    expect(documented, `none of ${pages.join(', ')} holds the table:\n${measuredTable}`).toBeDefined();
    expect(documented?.length).toBe(figures.length + 2);
    measuredTable.split('\n').forEach((row, index) => expect(sameFigures(documented?.[index] ?? '', row), `documented:\n${documented?.[index]}\nmeasured:\n${row}`).toBe(true));
  });
});

/** The table that starts with `header` in a page: its lines. */
function tableAfter(page: string, header: string): string[] | undefined {
  const lines = page.split('\n');
  const start = lines.indexOf(header);
  if (start === -1) return undefined;
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  return lines.slice(start, end === -1 ? undefined : end);
}

/**
 * The same words and, figure by figure, numbers within 5% (at least 2): a preview's handle and
 * cursors are random base64url text, which tokenizes to a few tokens more or less from run to run
 * (and a page break can move by one page).
 */
function sameFigures(documented: string, measured: string): boolean {
  const figuresIn = (text: string): number[] => [...text.matchAll(/\d[\d,]*/g)].map((match) => Number(match[0].replace(/,/g, '')));
  const wordsOf = (text: string): string => text.replace(/\d[\d,]*/g, '#');
  const want = figuresIn(measured);
  const have = figuresIn(documented);
  return wordsOf(documented) === wordsOf(measured) && want.length === have.length && want.every((value, index) => Math.abs(value - (have[index] ?? Number.NaN)) <= Math.max(2, value * 0.05));
}
