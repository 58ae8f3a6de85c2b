// The Claude Agent SDK adapter on the recorded pull-requests result. The SDK needs a live model
// to run query(), so its hook runs alone: called with the PostToolUseHookInput the SDK documents,
// its tool_response the real result of `examples/pull-requests/server.js before` (113,801 tokens
// of text, 227,605 on the wire with its structured copy) in the forms Claude Code hands over. What
// went over the cap is read back through the in-process read_result server, with the official
// MCP client over the SDK's own server instance.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HookCallback, HookJSONOutput, PostToolUseHookInput, PostToolUseHookSpecificOutput, PreToolUseHookInput } from '@anthropic-ai/claude-agent-sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostShaper, loadHostRules, type HostRules } from '../../src/host/index.js';
import { postToolUseHook, readResultServer, shapingHooks, type ShapedCallReport } from '../../src/host/claude-agent-sdk/index.js';
import { toolResultCost } from '../../src/shape/index.js';
import { countTokens, countTokensAsync } from '../../src/tokens/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { markEnvEntries } from '../gateway/_gateway-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/pull-requests');
const ALL_NUMBERS = (JSON.parse(readFileSync(join(EXAMPLE, 'data/pulls.json'), 'utf8')) as Array<{ number: number }>).map((pull) => pull.number).sort((a, b) => a - b);
const DOC = join(ROOT, 'docs/host-claude-agent-sdk.md');
const NOTICE = 'Error: result (694,797 characters) exceeds maximum allowed tokens. Output has been saved to /tmp/claude/tool-results/mcp-prs-list_pull_requests-1760000000000.txt';
const CAP_TOKENS = 25_000;
const PAGE_TOKENS = 2_000;
/** How far a documented figure after may be from this run's (random handles). */
const AFTER_TOLERANCE = 40;

interface Recorded {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
}

let recorded: Recorded;
let exampleRules: HostRules;

/** The recorded result, from the real server over stdio. */
async function callPullRequestsServer(): Promise<Recorded> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(EXAMPLE, 'server.js'), 'before'], env: { ...getDefaultEnvironment(), ...markEnvEntries() }, cwd: ROOT });
  const client = new Client({ name: 'claude-agent-sdk-test', version: '1' });
  await client.connect(transport);
  try {
    return (await client.callTool({ name: 'list_pull_requests', arguments: {} })) as unknown as Recorded;
  } finally {
    await client.close();
  }
}

/** The text of the recorded result: what Claude Code hands a hook as a string. */
const text = (): string => recorded.content.map((block) => block.text).join('\n\n');

/** The forms the SDK hands an MCP result to a PostToolUse hook. */
const FORMS: ReadonlyArray<{ form: string; response: () => unknown }> = [
  { form: 'the text, as a string', response: text },
  { form: '`{"result": ...}` JSON string', response: () => JSON.stringify({ result: text() }) },
  { form: 'content blocks', response: () => recorded.content },
];

function postToolUse(toolResponse: unknown, toolName = 'mcp__prs__list_pull_requests', server: string | undefined = 'prs'): PostToolUseHookInput {
  return {
    hook_event_name: 'PostToolUse',
    session_id: 'session-1',
    transcript_path: '/tmp/claude/transcript.jsonl',
    cwd: ROOT,
    tool_name: toolName,
    tool_input: {},
    tool_response: toolResponse,
    tool_use_id: 'toolu_01',
    ...(server === undefined ? {} : { mcp_server: { name: server, source: 'sdk' } }),
  };
}

async function runHook(hook: HookCallback, input: PostToolUseHookInput | PreToolUseHookInput): Promise<HookJSONOutput> {
  return hook(input, input.tool_use_id, { signal: new AbortController().signal });
}

/** The replacement the hook gave, or undefined when it answered `{}`. */
function rewriteOf(output: HookJSONOutput): PostToolUseHookSpecificOutput | undefined {
  if (!('hookSpecificOutput' in output) || output.hookSpecificOutput === undefined) return undefined;
  const specific = output.hookSpecificOutput;
  expect(specific.hookEventName).toBe('PostToolUse');
  return specific as PostToolUseHookSpecificOutput;
}

/** The text the model reads from an output in a hook's form: a string as it is, content blocks by their text. */
function modelText(output: unknown): string {
  if (typeof output === 'string') return output;
  return (output as Array<{ type: string; text?: string }>).filter((block) => block.type === 'text').map((block) => block.text ?? '').join('\n\n');
}

interface Preview {
  handle: string;
  items: Array<{ number: number }>;
  next_cursor: string | null;
}

/** read_result over the in-process server, with the official MCP client. */
async function readResultClient(shaper: HostShaper): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = readResultServer(shaper);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.instance.connect(serverSide);
  const client = new Client({ name: 'read-result-test', version: '1' });
  await client.connect(clientSide);
  return { client, close: () => client.close() };
}

/** A read_result page: whole records, or a part of one record too large for a page (its JSON text in slices). */
interface Page {
  items?: Array<{ number: number }>;
  part?: { path: string; from: number; to: number; length: number };
  text?: string;
  next_cursor: string | null;
}

/** Every PR number in the preview and the pages read on from it through read_result (a record in parts put back together). */
async function reachableNumbers(client: Client, preview: Preview): Promise<number[]> {
  const seen = preview.items.map((item) => item.number);
  let cursor = preview.next_cursor;
  let parts = '';
  for (let pages = 0; cursor !== null; pages += 1) {
    expect(pages, 'read_result pages').toBeLessThan(100);
    const page = (await client.callTool({ name: 'read_result', arguments: { handle: preview.handle, cursor } })) as { content: Array<{ type: string; text: string }>; isError?: boolean };
    expect(page.isError ?? false).toBe(false);
    expect(countTokens(page.content[0]!.text)).toBeLessThanOrEqual(CAP_TOKENS);
    const body = JSON.parse(page.content[0]!.text) as Page;
    if (body.part !== undefined) {
      expect(body.part.from).toBe(parts.length);
      parts += body.text ?? '';
      if (body.part.to === body.part.length) {
        seen.push((JSON.parse(parts) as { number: number }).number);
        parts = '';
      }
    } else {
      seen.push(...(body.items ?? []).map((item) => item.number));
    }
    cursor = body.next_cursor;
  }
  expect(parts, 'a record left in parts').toBe('');
  return seen.sort((a, b) => a - b);
}

interface Row {
  rules: string;
  form: string;
  before: number;
  after: number;
  previewItems: number;
}

const rows: Row[] = [];
let noticeTokens: number | undefined;

describe('Claude Agent SDK: postToolUseHook and readResultServer on the recorded pull requests', () => {
  beforeAll(async () => {
    recorded = await callPullRequestsServer();
    exampleRules = await loadHostRules(join(ROOT, 'examples/gateway/gateway.yaml'));
  }, 60_000);

  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('the recorded result is 113,801 tokens of text and 227,605 on the wire', async () => {
    expect(await countTokensAsync(text())).toBe(113_801);
    expect(toolResultCost(recorded).textTokens).toBe(227_605);
    expect(recorded.content).toHaveLength(1);
  });

  for (const withRules of [true, false]) {
    const rulesName = withRules ? 'examples/gateway/gateway.yaml' : 'none (cap 25,000)';
    it.each(FORMS)(`rules ${rulesName}: $form is replaced by a preview under the cap and every PR stays reachable through read_result`, async ({ form, response }) => {
      const shaper = new HostShaper(withRules ? { rules: exampleRules } : {});
      const reports: ShapedCallReport[] = [];
      const { client, close } = await readResultClient(shaper);
      try {
        const given = response();
        const output = await runHook(postToolUseHook(shaper, { onShaped: (report) => reports.push(report) }), postToolUse(given));
        const rewrite = rewriteOf(output);
        expect(rewrite, 'the hook replaced the result').toBeDefined();
        // Both fields, the same value: current Claude Code reads updatedToolOutput, older releases updatedMCPToolOutput.
        expect(rewrite!.updatedToolOutput).toBe(rewrite!.updatedMCPToolOutput);
        const replaced = rewrite!.updatedMCPToolOutput;
        expect(typeof replaced).toBe(typeof given);
        const seen = modelText(replaced);
        const after = await countTokensAsync(seen);
        expect(after).toBeLessThanOrEqual(withRules ? PAGE_TOKENS : CAP_TOKENS);
        const preview = JSON.parse(seen) as Preview;
        expect(await reachableNumbers(client, preview)).toEqual(ALL_NUMBERS);
        if (withRules) {
          // The example's projection: author from user.login, bodies of 200 characters at most.
          expect(Object.keys(preview.items[0]!)).toEqual(expect.arrayContaining(['number', 'title', 'author', 'merged_at']));
          expect(preview.items.length).toBeGreaterThan(0);
        }
        expect(reports).toHaveLength(1);
        const report = reports[0]!;
        expect(report).toMatchObject({ toolName: 'mcp__prs__list_pull_requests', server: 'prs', tool: 'list_pull_requests', toolUseId: 'toolu_01', action: 'offloaded', changed: true, handle: preview.handle, tokensAfter: after });
        expect(report.tokensBefore).toBe(typeof given === 'string' ? await countTokensAsync(given) : 113_801);
        rows.push({ rules: rulesName, form, before: report.tokensBefore, after, previewItems: preview.items.length });
      } finally {
        await close();
        shaper.close();
      }
    });
  }

  it.each([
    { form: 'as a string', response: NOTICE },
    { form: 'wrapped as {"result": ...}', response: JSON.stringify({ result: NOTICE }) },
  ])("Claude Code's own notice ($form) is passed through untouched ({}) and reported", async ({ response }) => {
    const shaper = new HostShaper({ rules: exampleRules });
    const reports: ShapedCallReport[] = [];
    const output = await runHook(postToolUseHook(shaper, { onShaped: (report) => reports.push(report) }), postToolUse(response));
    expect(output).toEqual({});
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ toolName: 'mcp__prs__list_pull_requests', action: 'host-notice', changed: false, notice: { host: 'claude-code', text: NOTICE, characters: 694_797 } });
    expect(reports[0]!.notice!.file).toBe('/tmp/claude/tool-results/mcp-prs-list_pull_requests-1760000000000.txt');
    expect(reports[0]!.handle).toBeUndefined();
    expect(reports[0]!.tokensAfter).toBe(reports[0]!.tokensBefore);
    if (response === NOTICE) noticeTokens = reports[0]!.tokensBefore;
    shaper.close();
  });

  it('never shapes read_result itself, nor tools that are not MCP tools, nor other events', async () => {
    const shaper = new HostShaper();
    const reports: ShapedCallReport[] = [];
    const hook = postToolUseHook(shaper, { onShaped: (report) => reports.push(report) });
    // A page of read_result over the cap would be offloaded again if the hook shaped it: a page of a page.
    expect(await runHook(hook, postToolUse(text(), 'mcp__mcpctx__read_result', 'mcpctx'))).toEqual({});
    expect(await runHook(hook, postToolUse(text(), 'mcp__mcpctx__read_result', undefined))).toEqual({});
    expect(await runHook(postToolUseHook(shaper, { readResultServer: 'pages', onShaped: (report) => reports.push(report) }), postToolUse(text(), 'mcp__pages__read_result', 'pages'))).toEqual({});
    expect(await runHook(hook, postToolUse(text(), 'Bash', undefined))).toEqual({});
    const pre: PreToolUseHookInput = { hook_event_name: 'PreToolUse', session_id: 's', transcript_path: '/tmp/t', cwd: ROOT, tool_name: 'mcp__prs__list_pull_requests', tool_input: {}, tool_use_id: 'toolu_02' };
    expect(await runHook(hook, pre)).toEqual({});
    expect(reports).toEqual([]);
    // Another server's read_result is an ordinary tool.
    expect(rewriteOf(await runHook(hook, postToolUse(text(), 'mcp__other__read_result', 'other')))).toBeDefined();
    expect(reports.map((report) => `${report.server}/${report.tool}`)).toEqual(['other/read_result']);
    shaper.close();
  });

  it('a result the rules leave alone is answered with {} and reported as passed', async () => {
    const shaper = new HostShaper({ rules: exampleRules });
    const reports: ShapedCallReport[] = [];
    const small = JSON.stringify([{ number: 1, title: 'one' }]);
    expect(await runHook(postToolUseHook(shaper, { onShaped: (report) => reports.push(report) }), postToolUse(small, 'mcp__files__list_directory', 'files'))).toEqual({});
    expect(reports).toMatchObject([{ server: 'files', tool: 'list_directory', action: 'passed', changed: false, tokensBefore: countTokens(small), tokensAfter: countTokens(small) }]);
    shaper.close();
  });

  it('names the server from mcp_server when given (names with __ and dots), else from the tool name', async () => {
    const shaper = new HostShaper({ rules: { tools: { 'my.prs/list_pull_requests': { project: ['number'] }, 'a__b/list': { project: ['number'] } } } });
    const reports: ShapedCallReport[] = [];
    const hook = postToolUseHook(shaper, { onShaped: (report) => reports.push(report) });
    const small = JSON.stringify([{ number: 7, title: 'seven' }]);
    // Claude Code writes "my.prs" as my_prs in tool names; mcp_server keeps the configured name, the one rules use.
    expect(rewriteOf(await runHook(hook, postToolUse(small, 'mcp__my_prs__list_pull_requests', 'my.prs')))?.updatedMCPToolOutput).toBe('[{"number":7}]');
    expect(rewriteOf(await runHook(hook, postToolUse(small, 'mcp__a__b__list', 'a__b')))?.updatedMCPToolOutput).toBe('[{"number":7}]');
    expect(await runHook(hook, postToolUse(small, 'mcp__a__b__list', undefined))).toEqual({});
    expect(reports.map((report) => `${report.server}|${report.tool}|${report.action}`)).toEqual(['my.prs|list_pull_requests|projected', 'a__b|list|projected', 'a|b__list|passed']);
    shaper.close();
  });

  it('shapingHooks is the hooks option: PostToolUse on mcp__.* with the shaping hook', async () => {
    const shaper = new HostShaper({ rules: exampleRules });
    const hooks = shapingHooks(shaper);
    expect(Object.keys(hooks)).toEqual(['PostToolUse']);
    const [matcher] = hooks.PostToolUse!;
    expect(matcher!.matcher).toBe('mcp__.*');
    expect(new RegExp(`^(?:${matcher!.matcher!})$`).test('mcp__prs__list_pull_requests')).toBe(true);
    expect(new RegExp(`^(?:${matcher!.matcher!})$`).test('Bash')).toBe(false);
    expect(matcher!.hooks).toHaveLength(1);
    expect(rewriteOf(await runHook(matcher!.hooks[0]!, postToolUse(text())))).toBeDefined();
    shaper.close();
  });

  it('readResultServer lists read_result with the gateway definition, and a bad handle is a tool error', async () => {
    const shaper = new HostShaper();
    const { client, close } = await readResultClient(shaper);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['read_result']);
      expect(tools[0]!.description).toBe(shaper.readResultTool.description);
      expect(tools[0]!.inputSchema.required).toEqual(['handle']);
      expect(Object.keys(tools[0]!.inputSchema.properties ?? {}).sort()).toEqual(['cursor', 'handle', 'path', 'query']);
      const refused = (await client.callTool({ name: 'read_result', arguments: { handle: 'AgNotAHandle' } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toMatch(/handle/i);
    } finally {
      await close();
      shaper.close();
    }
    expect(readResultServer(shaper, { name: 'pages' }).name).toBe('pages');
    expect(() => readResultServer(shaper, { name: 'my pages' })).toThrow(/letters, digits/);
  });

  // Handles and cursors are random base64, which o200k splits differently each run, and the
  // preview fills its page up to the budget: the figure after moves by a few dozen tokens.
  it('the table in docs/host-claude-agent-sdk.md is the one measured here', () => {
    expect(rows).toHaveLength(FORMS.length * 2);
    const doc = readFileSync(DOC, 'utf8');
    for (const row of rows) {
      const line = doc.split('\n').find((candidate) => candidate.startsWith(`| ${row.rules} | ${row.form} |`));
      expect(line, `a row for ${row.rules}, ${row.form}:\n${tableRow(row)}`).toBeDefined();
      const cells = line!.split('|').map((cell) => cell.trim());
      expect(Number(cells[3]!.replace(/,/g, '')), line).toBe(row.before);
      expect(Math.abs(Number(cells[4]!.replace(/[~,]/g, '')) - row.after), `${line}\nmeasured: ${tableRow(row)}`).toBeLessThanOrEqual(AFTER_TOLERANCE);
      expect(cells[5], line).toContain(`${row.previewItems} of 30`);
    }
    const notice = doc.split('\n').find((candidate) => candidate.startsWith("| any | Claude Code's notice |"));
    expect(notice?.split('|').slice(3, 5).map((cell) => Number(cell.trim()))).toEqual([noticeTokens, noticeTokens]);
  });
});

function tableRow(row: Row): string {
  return `| ${row.rules} | ${row.form} | ${row.before.toLocaleString('en-US')} | ~${row.after.toLocaleString('en-US')} | a preview with ${row.previewItems} of 30 PRs and a handle; the rest through read_result |`;
}
