// mcpctx/host/openai-agents in a real @openai/agents Runner: an Agent with MCPServerStdio on the
// recorded pull-requests server (`before`: 30 real pull requests, 113,801 tokens of text; the SDK
// hands the model the text, not the structured copy) and the read_result tool, driven by a
// scripted Model (no network). Every assertion is on the input the model RECEIVED at each turn.
// The before/after table of docs/host-openai-agents.md is the one these runs measure:
//   UPDATE_DOCS=1 npx vitest run test/host/openai-agents.test.ts   rewrites it after a deliberate change.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, MCPServerStdio, RunContext, Runner, Usage, tool, type AgentInputItem, type AgentOutputType, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { afterAll, describe, expect, it } from 'vitest';
import { HostShaper, loadHostRules } from '../../src/host/index.js';
import { readResultTool, shapingInputFilter, type ShapedCallReport } from '../../src/host/openai-agents/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { markEnvEntries } from '../gateway/_gateway-process.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER = join(ROOT, 'examples/pull-requests/server.js');
const RULES = join(ROOT, 'examples/gateway/gateway.yaml');
const DOC = join(ROOT, 'docs/host-openai-agents.md');
const PR_NUMBERS: number[] = (JSON.parse(readFileSync(join(ROOT, 'examples/pull-requests/data/pulls.json'), 'utf8')) as Array<{ number: number }>).map((pull) => pull.number).sort((a, b) => a - b);
/**
 * How far a preview's tokens may be from the documented figure: its handle and cursor are random
 * base64 whose tokens vary by a few, and near the budget that decides whether one more item fits.
 */
const tolerance = (documented: number): number => Math.max(40, Math.round(documented * 0.08));
const NOTICE = 'Error: result (694,797 characters) exceeds maximum allowed tokens. Output has been saved to /tmp/claude/tool-results/mcp-prs-list_pull_requests-1.txt';

type FunctionCall = { type: 'function_call'; callId: string; name: string; arguments: string; status: 'completed' };
type ResultItem = { type: 'function_call_result'; callId: string; name: string; output: unknown };

/** One scripted model turn: what to answer, given every input received so far (the last is this turn's). */
type Step = (inputs: readonly AgentInputItem[][]) => FunctionCall | string;

/** A Model that answers from a script and keeps a copy of each input it receives. */
class ScriptedModel implements Model {
  readonly inputs: AgentInputItem[][] = [];
  #step = 0;
  constructor(readonly steps: readonly Step[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = typeof request.input === 'string' ? [{ role: 'user', content: request.input } as AgentInputItem] : request.input;
    this.inputs.push(structuredClone(input));
    const step = this.steps[this.#step];
    this.#step += 1;
    if (step === undefined) throw new Error(`the script has no turn ${this.#step}`);
    const answer = step(this.inputs);
    const output = typeof answer === 'string' ? [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: answer }] }] : [answer];
    return { usage: new Usage(), output: output as ModelResponse['output'] };
  }

  // eslint-disable-next-line require-yield -- the Runner here never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed in these tests');
  }
}

let calls = 0;
function call(name: string, args: Record<string, unknown> = {}): FunctionCall {
  calls += 1;
  return { type: 'function_call', callId: `call_${calls}`, name, arguments: JSON.stringify(args), status: 'completed' };
}

function resultsIn(input: readonly AgentInputItem[]): ResultItem[] {
  return input.filter((item): item is AgentInputItem & ResultItem => (item as { type?: unknown }).type === 'function_call_result');
}

/** The text of an output as the model receives it: a string, or its text blocks. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  const blocks = Array.isArray(output) ? output : [output];
  return blocks.map((block) => (block as { text?: string }).text ?? '').join('');
}

function resultOf(input: readonly AgentInputItem[], callId: string): ResultItem {
  const found = resultsIn(input).find((item) => item.callId === callId);
  if (found === undefined) throw new Error(`no output of ${callId} in the input`);
  return found;
}

/** The last output in the latest input, parsed: a preview, a page or the rules' JSON. */
function lastJson(inputs: readonly AgentInputItem[][]): Record<string, unknown> {
  const last = resultsIn(inputs.at(-1) ?? []).at(-1);
  return JSON.parse(outputText(last?.output)) as Record<string, unknown>;
}

function numbersIn(value: unknown): number[] {
  const items = Array.isArray(value) ? value : [];
  return items.map((item) => (item as { number: number }).number);
}

function prsServer(useStructuredContent = false): MCPServerStdio {
  return new MCPServerStdio({ name: 'prs', command: process.execPath, args: [SERVER, 'before'], cwd: ROOT, env: markEnvEntries(), cacheToolsList: true, useStructuredContent });
}

/** One Runner run of `steps` against the pull-requests server, the server connected and closed around it. */
async function runAgent(shaper: HostShaper, steps: readonly Step[], options: Parameters<typeof shapingInputFilter>[1] = {}, extra: { tools?: Agent['tools']; useStructuredContent?: boolean } = {}) {
  const server = prsServer(extra.useStructuredContent);
  const model = new ScriptedModel(steps);
  const reports: ShapedCallReport[] = [];
  await server.connect();
  try {
    const agent = new Agent({ name: 'reviewer', instructions: 'Answer about the pull requests.', model, mcpServers: [server], tools: [readResultTool(shaper), ...(extra.tools ?? [])] });
    const runner = new Runner({ tracingDisabled: true, callModelInputFilter: shapingInputFilter(shaper, { ...options, onShaped: (report) => reports.push(report) }) });
    const result = await runner.run(agent, 'Which pull requests are there?', { maxTurns: steps.length });
    return { model, reports, finalOutput: result.finalOutput };
  } finally {
    await server.close();
  }
}

/** What the docs table shows, one row per run. */
const measured: Array<{ rules: string; before: number; after: number; got: string }> = [];
const number = (value: number): string => value.toLocaleString('en-US');

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
});

describe('shapingInputFilter in a Runner with MCPServerStdio on the pull-requests server', () => {
  it('with the example rules: the model receives a 2,000-token page with a handle, and every PR number through read_result', async () => {
    const shaper = new HostShaper({ rules: await loadHostRules(RULES) });
    const list = call('list_pull_requests');
    const seen: number[] = [];
    const readOn: Step = (inputs) => {
      const page = lastJson(inputs);
      seen.push(...numbersIn(page.items));
      return typeof page.next_cursor === 'string' ? call('read_result', { handle: firstHandle, cursor: page.next_cursor }) : 'Thirty pull requests.';
    };
    let firstHandle = '';
    const first: Step = (inputs) => {
      const preview = lastJson(inputs);
      firstHandle = preview.handle as string;
      seen.push(...numbersIn(preview.items));
      return call('read_result', { handle: firstHandle, cursor: preview.next_cursor });
    };
    const steps: Step[] = [() => list, first, ...Array.from({ length: 30 }, () => readOn)];
    const { model, reports, finalOutput } = await runAgent(shaper, steps, { tools: { list_pull_requests: 'prs' }, recentTurns: 100 });

    expect(finalOutput).toBe('Thirty pull requests.');
    const received = outputText(resultOf(model.inputs[1] ?? [], list.callId).output);
    const tokens = countTokens(received);
    expect(tokens).toBeLessThanOrEqual(2000);
    const preview = JSON.parse(received) as Record<string, unknown>;
    expect(Object.keys(preview)).toEqual(['handle', 'tokens', 'shape', 'items', 'next_cursor', 'note']);
    // The rules' projection: number, title, state, author, dates and 200 characters of body.
    expect(Object.keys((preview.items as object[])[0] ?? {})).toEqual(['number', 'title', 'state', 'author', 'created_at', 'merged_at', 'body', 'body_truncated']);
    expect([...seen].sort((a, b) => a - b)).toEqual(PR_NUMBERS);

    // Shaped once: every later turn shows the same page (the same handle), and one report says so.
    for (const input of model.inputs.slice(1)) expect(outputText(resultOf(input, list.callId).output)).toBe(received);
    const shapedReports = reports.filter((report) => report.callId === list.callId);
    expect(shapedReports).toEqual([expect.objectContaining({ tool: 'list_pull_requests', server: 'prs', stage: 'shaped', action: 'offloaded', tokensBefore: 113_801, tokensAfter: tokens, handle: firstHandle })]);
    // read_result's pages are never shaped or reported.
    expect(reports.every((report) => report.tool !== 'read_result')).toBe(true);
    measured.push({ rules: 'example rules (project, pageTokens 2000)', before: 113_801, after: tokens, got: `the first ${numbersIn(preview.items).length} of 30 PRs (the 7 projected fields), a handle, next_cursor; the rest through read_result` });
  });

  it('with no rules: the 25,000-token cap offloads the result, and read_result gives every PR number', async () => {
    const shaper = new HostShaper();
    const list = call('list_pull_requests');
    let numbers: unknown;
    const steps: Step[] = [
      () => list,
      (inputs) => call('read_result', { handle: lastJson(inputs).handle, query: '[*].number' }),
      (inputs) => {
        numbers = JSON.parse(outputText(resultsIn(inputs.at(-1) ?? []).at(-1)?.output));
        return 'Thirty pull requests.';
      },
    ];
    const { model, reports } = await runAgent(shaper, steps);
    const received = outputText(resultOf(model.inputs[1] ?? [], list.callId).output);
    const tokens = countTokens(received);
    expect(tokens).toBeLessThanOrEqual(4000);
    const preview = JSON.parse(received) as Record<string, unknown>;
    expect(preview.handle).toEqual(expect.any(String));
    expect(preview.items).toEqual([]);
    expect(numbers).toEqual(expect.arrayContaining(PR_NUMBERS));
    expect((numbers as number[]).length).toBe(30);
    expect(reports).toEqual([expect.objectContaining({ tool: 'list_pull_requests', stage: 'shaped', action: 'offloaded', tokensBefore: 113_801, tokensAfter: tokens })]);
    expect(reports[0]).not.toHaveProperty('server');
    measured.push({ rules: 'no rules (the 25,000-token cap)', before: 113_801, after: tokens, got: "a preview: the result's shape and a handle (no PR fits whole in its 4,000 tokens); every number through one read_result query" });
  });

  it('with useStructuredContent (the SDK hands over the structured copy as a JSON string): the same rules, the same form back', async () => {
    const shaper = new HostShaper({ rules: await loadHostRules(RULES) });
    const list = call('list_pull_requests');
    let received: unknown;
    const { reports } = await runAgent(
      shaper,
      [
        () => list,
        (inputs) => {
          received = resultOf(inputs.at(-1) ?? [], list.callId).output;
          return 'Done.';
        },
      ],
      { tools: { list_pull_requests: 'prs' } },
      { useStructuredContent: true },
    );
    // The SDK keeps a string output as one {type: "text"} item: the preview comes back the same way.
    expect(received).toEqual({ type: 'text', text: expect.any(String) });
    const text = (received as { text: string }).text;
    const tokens = countTokens(text);
    expect(tokens).toBeLessThanOrEqual(2000);
    const preview = JSON.parse(text) as { items: unknown[]; shape: unknown };
    expect(Object.keys(preview.items[0] ?? {})).toEqual(['number', 'title', 'state', 'author', 'created_at', 'merged_at', 'body', 'body_truncated']);
    const before = reports[0]?.tokensBefore ?? 0;
    expect(reports).toEqual([expect.objectContaining({ tool: 'list_pull_requests', server: 'prs', action: 'offloaded', tokensAfter: tokens })]);
    expect(before).toBeGreaterThan(113_801);
    measured.push({ rules: 'example rules, useStructuredContent: true', before, after: tokens, got: `the first ${preview.items.length} of 30 PRs (the 7 projected fields), a handle, next_cursor` });
  });

  it("passes a host's own notice through untouched and reports it", async () => {
    const shaper = new HostShaper({ rules: await loadHostRules(RULES) });
    const savedToFile = tool({ name: 'export_pull_requests', description: 'Exports the pull requests.', parameters: { type: 'object', properties: {}, required: [], additionalProperties: false }, execute: () => NOTICE });
    const exported = call('export_pull_requests');
    const { model, reports } = await runAgent(shaper, [() => exported, () => 'Saved to a file.'], { tools: { list_pull_requests: 'prs' } }, { tools: [savedToFile] });
    expect(resultOf(model.inputs[1] ?? [], exported.callId).output).toEqual({ type: 'text', text: NOTICE });
    expect(reports).toEqual([
      expect.objectContaining({ tool: 'export_pull_requests', action: 'host-notice', notice: expect.objectContaining({ host: 'claude-code', file: '/tmp/claude/tool-results/mcp-prs-list_pull_requests-1.txt', characters: 694_797 }) }),
    ]);
    const tokens = countTokens(NOTICE);
    expect(reports[0]).toMatchObject({ tokensBefore: tokens, tokensAfter: tokens });
    measured.push({ rules: "a host's own notice (saved to a file)", before: tokens, after: tokens, got: 'the notice, untouched (reported with its file)' });
  });

  it("trims an older turn's output behind a new handle after recentTurns, and read_result opens it", async () => {
    const shaper = new HostShaper({ rules: await loadHostRules(RULES) });
    const list = call('list_pull_requests');
    let firstPage = '';
    let trimmedHandle = '';
    let reopened = '';
    const steps: Step[] = [
      () => list,
      (inputs) => {
        firstPage = outputText(resultOf(inputs.at(-1) ?? [], list.callId).output);
        const page = lastJson(inputs);
        return call('read_result', { handle: page.handle, cursor: page.next_cursor });
      },
      (inputs) => {
        trimmedHandle = (JSON.parse(outputText(resultOf(inputs.at(-1) ?? [], list.callId).output)) as { handle: string }).handle;
        return call('read_result', { handle: trimmedHandle, query: 'items[*].number' });
      },
      (inputs) => {
        reopened = outputText(resultsIn(inputs.at(-1) ?? []).at(-1)?.output);
        return 'Done.';
      },
    ];
    const { model, reports } = await runAgent(shaper, steps, { tools: { list_pull_requests: 'prs' }, recentTurns: 1, olderOutputTokens: 500 });

    // Turn 2: the list's output is in the latest turn, as the rules made it (the 2,000-token page).
    expect(countTokens(firstPage)).toBeGreaterThan(500);
    // Turn 3: it is older than the one recent turn: a preview of at most 500 tokens with a new handle.
    const trimmed = outputText(resultOf(model.inputs[2] ?? [], list.callId).output);
    expect(countTokens(trimmed)).toBeLessThanOrEqual(500);
    expect(trimmedHandle).not.toBe((JSON.parse(firstPage) as { handle: string }).handle);
    // Turn 4: the same trimmed output (trimmed once), and read_result opened it: the page's numbers.
    expect(outputText(resultOf(model.inputs[3] ?? [], list.callId).output)).toBe(trimmed);
    expect(JSON.parse(reopened)).toEqual(numbersIn((JSON.parse(firstPage) as { items: unknown }).items));
    // read_result's own page of turn 2 is older than the recent turn at turn 4 and over 500 tokens: untouched.
    const [readPage] = resultsIn(model.inputs[2] ?? []).filter((item) => item.name === 'read_result');
    expect(countTokens(outputText(readPage?.output))).toBeGreaterThan(500);
    expect(resultOf(model.inputs[3] ?? [], readPage?.callId ?? '').output).toEqual(readPage?.output);
    const trims = reports.filter((report) => report.stage === 'trimmed');
    expect(trims).toEqual([expect.objectContaining({ callId: list.callId, tool: 'list_pull_requests', server: 'prs', action: 'offloaded', tokensBefore: countTokens(firstPage), tokensAfter: countTokens(trimmed), handle: trimmedHandle })]);
    measured.push({ rules: "that page, one turn older (recentTurns 1, olderOutputTokens 500)", before: countTokens(firstPage), after: countTokens(trimmed), got: 'a preview of the page with a new handle; read_result reads the page back' });
  });

  it('the docs table is the one these runs measured', () => {
    const rows = measured.map((row) => `| ${row.rules} | ${number(row.before)} | ${number(row.after)} | ${row.got} |`);
    const table = ['| Run | Tokens before | Tokens after | What the model got |', '|---|---:|---:|---|', ...rows].join('\n');
    const page = readFileSync(DOC, 'utf8');
    const [head, rest] = page.split('<!-- measured:start -->');
    const [shown, tail] = (rest ?? '').split('<!-- measured:end -->');
    if (process.env.UPDATE_DOCS === '1') {
      writeFileSync(DOC, `${head}<!-- measured:start -->\n${table}\n<!-- measured:end -->${tail ?? '\n'}`);
      return;
    }
    expect(measured).toHaveLength(5);
    // A preview holds a handle and a cursor, random base64 whose tokens vary by a few from run to run.
    const cells = (line: string): string[] => line.split('|').slice(1, -1).map((cell) => cell.trim());
    const documented = (shown ?? '').trim().split('\n').slice(2).map(cells);
    // How many items a preview shows can move by one with them too: counts in the text are not compared.
    const counts = (text: string | undefined): string => (text ?? '').replace(/\b\d+ of 30\b/g, 'N of 30');
    expect(documented.map((row) => [row[0], counts(row[3])])).toEqual(measured.map((row) => [row.rules, counts(row.got)]));
    const figure = (cell: string | undefined): number => Number((cell ?? '').replace(/,/g, ''));
    documented.forEach((row, index) => {
      const run = measured[index];
      expect(Math.abs(figure(row[1]) - (run?.before ?? 0)), `${row[0]}: tokens before`).toBeLessThanOrEqual(tolerance(figure(row[1])));
      expect(Math.abs(figure(row[2]) - (run?.after ?? 0)), `${row[0]}: tokens after`).toBeLessThanOrEqual(tolerance(figure(row[2])));
    });
  });
});

/** Freezes a value and everything in it, so that a write anywhere throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

describe('shapingInputFilter called as the SDK calls it', () => {
  // The SDK's filter arguments type the agent by any output type.
  const agent = new Agent({ name: 'reviewer' }) as unknown as Agent<unknown, AgentOutputType>;
  const pullsText = readFileSync(join(ROOT, 'examples/pull-requests/data/pulls.json'), 'utf8');
  const turn = (callId: string, name: string, output: unknown): AgentInputItem[] => [
    { type: 'function_call', callId, name, arguments: '{}', status: 'completed' } as AgentInputItem,
    { type: 'function_call_result', callId, name, status: 'completed', output } as AgentInputItem,
  ];

  it("never changes the SDK's items, and shapes an output given back as it made it (a session's history) no second time", async () => {
    const reports: ShapedCallReport[] = [];
    const filter = shapingInputFilter(new HostShaper({ rules: await loadHostRules(RULES) }), { tools: { list_pull_requests: 'prs' }, onShaped: (report) => reports.push(report) });
    expect(filter.preserveInputIdentity).toBe(true);
    const items = deepFreeze([{ role: 'user', content: 'Which pull requests?' } as AgentInputItem, ...turn('call_a', 'list_pull_requests', [{ type: 'input_text', text: pullsText }])]);
    const copy = structuredClone(items);
    const first = await filter({ modelData: { input: items, instructions: 'Be brief.' }, agent, context: undefined });
    expect(items).toEqual(copy);
    expect(first.instructions).toBe('Be brief.');
    expect(first.input[0]).toBe(items[0]);
    expect(first.input[2]).not.toBe(items[2]);
    const shaped = (first.input[2] as unknown as ResultItem).output;
    expect(countTokens(outputText(shaped))).toBeLessThanOrEqual(2000);
    // The next run starts from the last one's history: the shaped output comes back as it is.
    const again = await filter({ modelData: { input: deepFreeze(structuredClone(first.input)) }, agent, context: undefined });
    expect((again.input[2] as unknown as ResultItem).output).toEqual(shaped);
    expect(reports).toHaveLength(1);
  });

  it('leaves an output with an image as it came, and keeps an older output whose preview would not fit as it was, saying so', async () => {
    const reports: ShapedCallReport[] = [];
    const filter = shapingInputFilter(new HostShaper(), { recentTurns: 1, olderOutputTokens: 20, onShaped: (report) => reports.push(report) });
    const image = [{ type: 'input_text', text: pullsText }, { type: 'input_image', image: 'data:image/png;base64,iVBORw0KGgo=' }];
    const older = [{ type: 'input_text', text: 'x '.repeat(400) }];
    const items = deepFreeze([...turn('call_i', 'screenshot', image), ...turn('call_o', 'echo', older), ...turn('call_n', 'echo', [{ type: 'input_text', text: 'now' }])]);
    const { input } = await filter({ modelData: { input: items }, agent, context: undefined });
    expect(input).toEqual(items);
    expect(reports.filter((report) => report.tool === 'screenshot')).toEqual([]);
    expect(reports.find((report) => report.callId === 'call_o' && report.stage === 'trimmed')).toMatchObject({ action: 'passed', note: expect.stringMatching(/^kept as it was: RESULT_TOO_LARGE/) });
  });

  it('read_result answers a malformed call and a bad handle as text the model can act on', async () => {
    const readResult = readResultTool(new HostShaper());
    // Strict: the SDK makes the optional parameters nullable and strips the nulls before the call.
    expect(readResult).toMatchObject({ name: 'read_result', strict: true, parameters: { required: ['handle', 'cursor', 'path', 'query'] } });
    const context = new RunContext();
    expect(await readResult.invoke(context, JSON.stringify({ handle: 'h', path: 'a', query: 'b' }))).toMatch(/^INVALID_ARGUMENT: read_result: pass path or query, not both/);
    expect(await readResult.invoke(context, JSON.stringify({ handle: 'not-a-handle', cursor: null, path: null, query: null }))).toMatch(/^INVALID_HANDLE: /);
  });

  it('refuses options it cannot honour', () => {
    const shaper = new HostShaper();
    expect(() => shapingInputFilter(shaper, { recentTurns: 0 })).toThrow(/recentTurns must be a positive integer/);
    expect(() => shapingInputFilter(shaper, { olderOutputTokens: 1.5 })).toThrow(/olderOutputTokens must be a positive integer/);
    expect(() => shapingInputFilter(shaper, { tools: { list_pull_requests: '' } })).toThrow(/tools maps a tool name/);
    expect(() => shapingInputFilter({} as HostShaper)).toThrow(/needs a HostShaper/);
  });
});
