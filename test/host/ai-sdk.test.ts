// mcpctx/host/ai-sdk with the real AI SDK (`ai` 7, @ai-sdk/mcp 2) offline: the pull-requests
// example server over stdio through the SDK's own MCP client, generateText driven by the SDK's
// MockLanguageModelV4. What is asserted is what the model was sent (its prompts and tool list),
// besides what the app keeps (the steps' toolResults). The figures measured here are the table of
// docs/host-ai-sdk.md (UPDATE_DOCS=1 rewrites it).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { generateText, isStepCount, type ToolSet } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostShaper, loadHostRules } from '../../src/host/index.js';
import { pruneToolResults, shapeMcpTools, type AiSdkShapedReport, type PrunedToolResult } from '../../src/host/ai-sdk/index.js';
import { toolResultCost } from '../../src/shape/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { markEnvEntries } from '../gateway/_gateway-process.js';
import { receivedResults, scriptedModel, unpairedCalls, type Move, type ReceivedResult } from './_scripted-model.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/pull-requests/');
const ALL_NUMBERS = (JSON.parse(readFileSync(join(EXAMPLE, 'data/pulls.json'), 'utf8')) as Array<{ number: number }>).map((pull) => pull.number).sort((a, b) => a - b);
const EXAMPLE_RULES = join(ROOT, 'examples/gateway/gateway.yaml');
const DOC = join(ROOT, 'docs/host-ai-sdk.md');
const NOTICE = 'Error: result (694,797 characters) exceeds maximum allowed tokens. Output has been saved to /tmp/claude/tool-results/mcp-prs-list_pull_requests-1.txt';

interface CallToolResult {
  content: Array<{ type: string; text: string }>;
  structuredContent?: { pull_requests: Array<{ number: number }> };
}

/** One row of the docs table, measured on a run. */
interface Row {
  setup: string;
  wire: number;
  firstResult: number;
  read: number;
  calls: number;
  got: string;
}
const rows: Row[] = [];

let client: MCPClient;
let mcpTools: ToolSet;

beforeAll(async () => {
  client = await createMCPClient({
    transport: new StdioMCPTransport({ command: process.execPath, args: [join(EXAMPLE, 'server.js'), 'before'], env: markEnvEntries(), cwd: ROOT }),
  });
  // @ai-sdk/mcp 2.0.99 is typed against provider-utils 5.0.81 and ai 7.0.185 against 5.0.86: the same shapes, two declarations.
  mcpTools = (await client.tools()) as unknown as ToolSet;
}, 60_000);

afterAll(async () => {
  await client?.close();
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
});

/** A model that lists the pull requests, then reads on through read_result (`how`), then answers with the numbers it saw. */
function listThenRead(how: 'cursor' | 'query', seen: number[]): (latest: ReceivedResult | undefined, step: number) => Move {
  let handle: string | undefined;
  return (latest, step) => {
    if (step === 0 || latest === undefined) return { call: 'list_pull_requests', input: {} };
    const value = JSON.parse(latest.text) as { handle?: string; items?: Array<{ number: number }>; next_cursor?: string | null } | Array<number | { number: number }>;
    if (Array.isArray(value)) {
      // A query's answer (the numbers), or the whole result as the server sent it (the pull requests).
      seen.push(...value.map((one) => (typeof one === 'number' ? one : one.number)));
      return { answer: 'done' };
    }
    handle ??= value.handle;
    seen.push(...(value.items ?? []).map((item) => item.number));
    if (handle === undefined) return { answer: 'no handle' };
    if (how === 'query' && latest.toolName === 'list_pull_requests') return { call: 'read_result', input: { handle, query: 'pull_requests[*].number' } };
    if (typeof value.next_cursor === 'string') return { call: 'read_result', input: { handle, cursor: value.next_cursor } };
    return { answer: 'done' };
  };
}

async function run(tools: ToolSet, how: 'cursor' | 'query') {
  const seen: number[] = [];
  const model = scriptedModel(listThenRead(how, seen));
  const result = await generateText({ model, prompt: 'List every pull request number.', tools, stopWhen: isStepCount(60) });
  const lastPrompt = model.doGenerateCalls[model.doGenerateCalls.length - 1]!.prompt;
  const received = receivedResults(lastPrompt);
  const whole = result.steps[0]!.toolResults[0]!.output as CallToolResult;
  return { result, model, seen: [...new Set(seen)].sort((a, b) => a - b), received, whole };
}

const tokensOf = (results: readonly ReceivedResult[]): number => results.reduce((sum, result) => sum + countTokens(result.text), 0);

describe('mcpctx/host/ai-sdk on the real pull requests (227,605 tokens on the wire)', () => {
  it('without mcpctx: the AI SDK gives the model the 113,801-token text (its MCP toModelOutput leaves the structured copy out)', async () => {
    const { received, whole, seen, result } = await run(mcpTools, 'cursor');
    expect(received).toHaveLength(1);
    const wire = toolResultCost(whole).textTokens;
    expect(wire).toBe(227_605);
    expect(countTokens(received[0]!.text)).toBe(113_801);
    expect(received[0]!.text).toBe(whole.content[0]!.text);
    expect(seen).toEqual(ALL_NUMBERS);
    rows.push({ setup: 'AI SDK alone (`mcpClient.tools()`)', wire, firstResult: countTokens(received[0]!.text), read: 0, calls: result.steps.length - 1, got: 'the whole text of 30 pull requests, every field' });
  }, 60_000);

  it('the example rules: a 2,000-token page with a handle, every number reached through read_result, the app keeps the whole result', async () => {
    const reports: AiSdkShapedReport[] = [];
    const shaper = new HostShaper({ rules: await loadHostRules(EXAMPLE_RULES) });
    const tools = shapeMcpTools(mcpTools, shaper, { server: 'prs', onShaped: (report) => reports.push(report) });
    const { model, received, whole, seen, result } = await run(tools, 'cursor');

    // The model was offered the rules' description and read_result.
    const offered = model.doGenerateCalls[0]!.tools ?? [];
    const listed = offered.find((tool) => tool.name === 'list_pull_requests') as { description?: string } | undefined;
    expect(listed?.description).toMatch(/^List the repository's pull requests: number, title, state, author/);
    expect(offered.map((tool) => tool.name).sort()).toEqual(['list_pull_requests', 'read_result']);

    const [first, ...pages] = received;
    const firstTokens = countTokens(first!.text);
    expect(firstTokens).toBeLessThanOrEqual(2_000);
    const preview = JSON.parse(first!.text) as { handle: string; items: Array<Record<string, unknown>>; next_cursor: string };
    expect(Object.keys(preview.items[0]!)).toEqual(['number', 'title', 'state', 'author', 'created_at', 'merged_at', 'body', 'body_truncated']);
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.every((page) => page.toolName === 'read_result' && page.type === 'text')).toBe(true);
    expect(seen).toEqual(ALL_NUMBERS);

    // The app's step still holds the whole result, structured copy included.
    expect(toolResultCost(whole).textTokens).toBe(227_605);
    expect(whole.structuredContent?.pull_requests).toHaveLength(30);

    // One report, for the MCP tool only (read_result's pages are never shaped).
    expect(reports).toEqual([
      expect.objectContaining({ tool: 'list_pull_requests', server: 'prs', toolCallId: 'call-1', action: 'offloaded', changed: true, tokensBefore: 113_801, tokensAfter: firstTokens, handle: preview.handle }),
    ]);
    rows.push({
      setup: 'shapeMcpTools, the example rules (project, pageTokens 2000)',
      wire: toolResultCost(whole).textTokens,
      firstResult: firstTokens,
      read: tokensOf(pages),
      calls: result.steps.length - 1,
      got: 'the 8 projected fields of the first pull requests that fit in 2,000 tokens and a handle; the others in a read_result page',
    });
    shaper.close();
  }, 60_000);

  it('no rules: over the 25,000 cap a preview with a handle; one read_result query gives every number', async () => {
    const reports: AiSdkShapedReport[] = [];
    const shaper = new HostShaper();
    const tools = shapeMcpTools(mcpTools, shaper, { onShaped: (report) => reports.push(report) });
    const { received, whole, seen, result } = await run(tools, 'query');
    const [first, answer] = received;
    const firstTokens = countTokens(first!.text);
    expect(firstTokens).toBeLessThan(1_000);
    expect(JSON.parse(first!.text)).toMatchObject({ tokens: 113_801, items: [], next_cursor: expect.any(String) });
    expect(answer?.toolName).toBe('read_result');
    expect(seen).toEqual(ALL_NUMBERS);
    expect(whole.structuredContent?.pull_requests).toHaveLength(30);
    expect(reports).toEqual([expect.objectContaining({ tool: 'list_pull_requests', action: 'offloaded', tokensBefore: 113_801, tokensAfter: firstTokens })]);
    rows.push({
      setup: 'shapeMcpTools, no rules (the 25,000 cap only)',
      wire: toolResultCost(whole).textTokens,
      firstResult: firstTokens,
      read: tokensOf([answer!]),
      calls: result.steps.length - 1,
      got: 'a preview (the shape, no items) and a handle; `read_result` query `pull_requests[*].number` for the numbers',
    });
    shaper.close();
  }, 60_000);

  it("a host's notice given as the tool's output reaches the model untouched, and is reported", async () => {
    const reports: AiSdkShapedReport[] = [];
    const shaper = new HostShaper({ rules: await loadHostRules(EXAMPLE_RULES) });
    // The app's own wrapper around the MCP tool, which saved the result and said so.
    const noticing = { ...mcpTools, list_pull_requests: { ...mcpTools.list_pull_requests!, execute: async () => NOTICE } } as ToolSet;
    const tools = shapeMcpTools(noticing, shaper, { server: 'prs', onShaped: (report) => reports.push(report) });
    const model = scriptedModel((latest) => (latest === undefined ? { call: 'list_pull_requests', input: {} } : { answer: 'saved' }));
    await generateText({ model, prompt: 'List them.', tools, stopWhen: isStepCount(5) });
    const received = receivedResults(model.doGenerateCalls[1]!.prompt);
    expect(received).toEqual([{ toolCallId: 'call-1', toolName: 'list_pull_requests', type: 'text', text: NOTICE }]);
    expect(reports).toEqual([
      expect.objectContaining({ tool: 'list_pull_requests', action: 'host-notice', changed: false, notice: expect.objectContaining({ host: 'claude-code', text: NOTICE }) }),
    ]);
    rows.push({ setup: "shapeMcpTools, a host's saved-to-file notice as the output", wire: countTokens(NOTICE), firstResult: countTokens(received[0]!.text), read: 0, calls: 1, got: 'the notice, byte for byte' });
    shaper.close();
  }, 60_000);

  it('read_result answers are never shaped again, even when a rule names read_result', async () => {
    const reports: AiSdkShapedReport[] = [];
    // A raw read_result page (one pull request, ~3,900 tokens) would be offloaded again if it were shaped under this rule.
    const shaper = new HostShaper({ rules: { tools: { read_result: { maxTokens: 1_000 } } } });
    const tools = shapeMcpTools(mcpTools, shaper, { onShaped: (report) => reports.push(report) });
    let pages = 0;
    const model = scriptedModel((latest, step) => {
      if (step === 0 || latest === undefined) return { call: 'list_pull_requests', input: {} };
      const value = JSON.parse(latest.text) as { handle?: string; next_cursor?: string | null };
      if (latest.toolName === 'read_result') pages += 1;
      if (pages >= 3 || typeof value.next_cursor !== 'string') return { answer: 'enough' };
      return { call: 'read_result', input: { handle: reports[0]?.handle, cursor: value.next_cursor } };
    });
    const result = await generateText({ model, prompt: 'Read three pages.', tools, stopWhen: isStepCount(10) });
    const received = receivedResults(model.doGenerateCalls[model.doGenerateCalls.length - 1]!.prompt).filter((one) => one.toolName === 'read_result');
    expect(received).toHaveLength(3);
    const kept = result.steps.flatMap((step) => step.toolResults).filter((one) => one.toolName === 'read_result');
    received.forEach((page, index) => {
      expect(JSON.parse(page.text)).not.toHaveProperty('handle');
      expect(page.text).toBe((kept[index]!.output as { text: string }).text);
    });
    expect(Math.max(...received.map((page) => countTokens(page.text)))).toBeGreaterThan(1_000);
    expect(reports.map((report) => report.tool)).toEqual(['list_pull_requests']);
    shaper.close();
  }, 60_000);

  it('a result converted again (a chat history rebuilt by convertToModelMessages) gets the same bytes and one report', async () => {
    const reports: AiSdkShapedReport[] = [];
    const shaper = new HostShaper();
    const tools = shapeMcpTools(mcpTools, shaper, { onShaped: (report) => reports.push(report) });
    const whole = await mcpTools.list_pull_requests!.execute!({}, { toolCallId: 'call-9', messages: [], context: undefined } as never);
    const convert = (output: unknown) => tools.list_pull_requests!.toModelOutput!({ toolCallId: 'call-9', input: {}, output } as never);
    const first = await convert(whole);
    const again = await convert(JSON.parse(JSON.stringify(whole)));
    expect(again).toEqual(first);
    expect(reports).toHaveLength(1);
    // Another call's result is shaped on its own.
    await tools.list_pull_requests!.toModelOutput!({ toolCallId: 'call-10', input: {}, output: whole } as never);
    expect(reports.map((report) => report.toolCallId)).toEqual(['call-9', 'call-10']);
    shaper.close();
  }, 60_000);
});

/** Cells of two tables that differ: text exactly, figures by more than 10% (and 2 tokens). */
function differingCells(documented: string, measured: string): string[] {
  const cells = (table: string): string[][] => table.trim().split('\n').map((line) => line.split('|').map((cell) => cell.trim()));
  const [left, right] = [cells(documented), cells(measured)];
  if (left.length !== right.length) return [`${left.length} lines documented, ${right.length} measured`];
  return right.flatMap((row, line) =>
    row.flatMap((cell, column) => {
      const other = left[line]?.[column] ?? '';
      const figure = /^[\d,]+$/.test(cell) && /^[\d,]+$/.test(other);
      const [a, b] = [Number(other.replace(/,/g, '')), Number(cell.replace(/,/g, ''))];
      const same = figure ? Math.abs(a - b) <= Math.max(2, b * 0.1) : other === cell;
      return same ? [] : [`line ${line + 1}, column ${column}: documented ${JSON.stringify(other)}, measured ${JSON.stringify(cell)}`];
    }),
  );
}

describe('pruneToolResults: older tool results under an o200k budget between steps', () => {
  const BUDGET = 120_000;
  const WHOLE = 113_801;
  /** Four list_pull_requests calls (113,801 tokens each as the model reads them), then an answer. */
  const fourCalls = () => scriptedModel((_latest, step) => (step < 4 ? { call: 'list_pull_requests', input: {} } : { answer: 'done' }));

  it('stub: the newest result whole, older ones kept newest first within the budget, the rest one line each with their call still paired', async () => {
    const pruned: PrunedToolResult[][] = [];
    const model = fourCalls();
    const result = await generateText({
      model,
      prompt: 'List them four times.',
      tools: mcpTools,
      stopWhen: isStepCount(10),
      prepareStep: pruneToolResults({ keepRecentTokens: BUDGET, onPruned: (step) => pruned.push([...step]) }),
    });
    const last = model.doGenerateCalls[4]!.prompt;
    const received = receivedResults(last);
    expect(received.map((one) => one.toolCallId)).toEqual(['call-1', 'call-2', 'call-3', 'call-4']);
    const [first, second, third, newest] = received;
    expect(newest!.text).toBe((result.steps[3]!.toolResults[0]!.output as CallToolResult).content[0]!.text);
    expect(countTokens(newest!.text)).toBe(WHOLE);
    // Older than the newest step: what is kept whole fits the budget.
    const keptOld = [first, second, third].filter((one) => !one!.text.startsWith('[mcpctx pruned]'));
    expect(keptOld.map((one) => one!.toolCallId)).toEqual(['call-3']);
    expect(tokensOf(keptOld as ReceivedResult[])).toBeLessThanOrEqual(BUDGET);
    for (const stub of [first, second]) {
      expect(stub!.text).toMatch(/^\[mcpctx pruned\] The result of list_pull_requests \(113,801 tokens\) was removed/);
      expect(countTokens(stub!.text)).toBeLessThan(60);
    }
    expect(unpairedCalls(last)).toEqual([]);
    // Pruned as soon as a step's older results passed the budget: call-1 before the fourth call, call-2 before the answer.
    expect(pruned.map((step) => step.map((one) => one.toolCallId))).toEqual([['call-1'], ['call-2']]);
    // The app keeps every whole result.
    expect(result.steps.slice(0, 4).map((step) => toolResultCost(step.toolResults[0]!.output).textTokens)).toEqual([227_605, 227_605, 227_605, 227_605]);
    rows.push({
      setup: 'pruneToolResults (keepRecentTokens 120,000), after the 4th call',
      wire: 4 * toolResultCost(result.steps[0]!.toolResults[0]!.output).textTokens,
      firstResult: tokensOf(received),
      read: 0,
      calls: 4,
      got: 'the two newest results whole, the two older ones as one-line stubs with their calls',
    });
  }, 120_000);

  it('drop: older calls and their results leave the prompt together (pruneMessages), the newest within the budget stay', async () => {
    const model = fourCalls();
    await generateText({ model, prompt: 'List them four times.', tools: mcpTools, stopWhen: isStepCount(10), prepareStep: pruneToolResults({ keepRecentTokens: BUDGET, mode: 'drop' }) });
    const last = model.doGenerateCalls[4]!.prompt;
    expect(receivedResults(last).map((one) => [one.toolCallId, countTokens(one.text)])).toEqual([
      ['call-3', WHOLE],
      ['call-4', WHOLE],
    ]);
    const calls = last.flatMap((message) => (message.role === 'assistant' && typeof message.content !== 'string' ? message.content.filter((part) => part.type === 'tool-call').map((part) => part.toolCallId) : []));
    expect(calls).toEqual(['call-3', 'call-4']);
    expect(unpairedCalls(last)).toEqual([]);
  }, 120_000);

  it("a pruned preview's stub names its read_result handle, and the model still reads on with it", async () => {
    const shaper = new HostShaper();
    const tools = shapeMcpTools(mcpTools, shaper);
    let stubbedHandle: string | undefined;
    const model = scriptedModel((latest, step) => {
      if (step < 2) return { call: 'list_pull_requests', input: {} };
      if (step === 2) {
        const stub = receivedResults(model.doGenerateCalls[2]!.prompt)[0]!.text;
        stubbedHandle = /read_result with \{"handle":"([^"]+)"\}/.exec(stub)?.[1];
        return { call: 'read_result', input: { handle: stubbedHandle, query: 'pull_requests[*].number' } };
      }
      return { answer: latest?.text ?? '' };
    });
    const result = await generateText({ model, prompt: 'List, list, read.', tools, stopWhen: isStepCount(10), prepareStep: pruneToolResults({ keepRecentTokens: 0 }) });
    expect(stubbedHandle).toBe(JSON.parse((await tools.list_pull_requests!.toModelOutput!({ toolCallId: 'call-1', input: {}, output: result.steps[0]!.toolResults[0]!.output } as never) as { value: Array<{ text: string }> }).value[0]!.text).handle);
    expect((JSON.parse(result.text) as number[]).sort((a, b) => a - b)).toEqual(ALL_NUMBERS);
    shaper.close();
  }, 120_000);
});

describe('docs/host-ai-sdk.md', () => {
  it('the table in docs/host-ai-sdk.md is the one these runs measured', () => {
    expect(rows).toHaveLength(5);
    const table = renderTable(rows);
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf(TABLE_START);
    const end = doc.indexOf(TABLE_END);
    expect(start, `${DOC} has no ${TABLE_START} marker`).toBeGreaterThanOrEqual(0);
    const current = doc.slice(start + TABLE_START.length, end);
    if (process.env.UPDATE_DOCS === '1') {
      writeFileSync(DOC, `${doc.slice(0, start + TABLE_START.length)}${table}${doc.slice(end)}`);
      return;
    }
    // A handle is random (its store id and time), so a preview's size moves by a few tokens from run to run.
    expect(differingCells(current, table), 'the measured figures changed: UPDATE_DOCS=1 npx vitest run test/host/ai-sdk.test.ts rewrites the table').toEqual([]);
  });
});

const TABLE_START = '<!-- measured by test/host/ai-sdk.test.ts: start -->';
const TABLE_END = '<!-- measured by test/host/ai-sdk.test.ts: end -->';

function renderTable(measured: readonly Row[]): string {
  const number = (value: number): string => value.toLocaleString('en-US');
  const lines = [
    '| setup | tokens before (on the wire) | tokens after (the model receives) | read_result tokens the model read on | tool calls | what the model got |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...measured.map((row) => `| ${row.setup} | ${number(row.wire)} | ${number(row.firstResult)} | ${number(row.read)} | ${row.calls} | ${row.got} |`),
  ];
  return `\n${lines.join('\n')}\n`;
}
