// Acceptance for the Claude Code adapter: the built `mcpctx hook post-tool-use`, fed the PostToolUse
// JSON Claude Code documents with the recorded pull-requests result (227,605 tokens on the wire,
// 113,801 in the text a host hands over) in the forms Claude Code may hand it, with the example
// rules and with none. What the model receives is counted, every pull request number is found in
// the preview or through read_result (`mcpctx hook results-server`, official SDK client), Claude
// Code's own notice goes through untouched and is logged, and bad input never blocks Claude Code.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBoundedInput } from '../../src/host/claude-code/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { ALL_NUMBERS, EXAMPLE_RULES, ROOT, postToolUseInput, recordedPullRequests, resultsClient, runHook, tempDir, type HookRun } from './_claude-code.js';

const CAP_TOKENS = 25_000;
const NOTICE = 'Error: result (694,797 characters) exceeds maximum allowed tokens. Output has been saved to /home/u/.claude/projects/x/tool-results/mcp-prs-list_pull_requests-1.txt';
const DOCS = join(ROOT, 'docs/host-claude-code.md');
const TABLE_START = '<!-- measured by test/host/claude-code-hook.test.ts: start -->';
const TABLE_END = '<!-- measured by test/host/claude-code-hook.test.ts: end -->';

interface LogLine {
  action: string;
  tool?: string;
  form?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  handle?: string;
  notice?: { text: string; file?: string };
  reason?: string;
}

interface Preview {
  handle: string;
  tokens: number;
  items: Array<{ number: number }>;
  next_cursor: string | null;
}

let recorded: Awaited<ReturnType<typeof recordedPullRequests>>;
let text: string;
const store = tempDir();
const rows: string[] = [];

function logLines(): LogLine[] {
  return readFileSync(join(store, 'hook-log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LogLine);
}

/** What the model reads of updatedMCPToolOutput: the string, or the text blocks of a content list. */
function modelText(output: unknown): string {
  if (typeof output === 'string') return output;
  return (output as Array<{ type: string; text?: string }>).filter((block) => block.type === 'text').map((block) => block.text ?? '').join('\n\n');
}

function answerOf(run: HookRun): unknown {
  expect(run.code, run.stderr).toBe(0);
  const answer = JSON.parse(run.stdout) as { hookSpecificOutput: { hookEventName: string; updatedMCPToolOutput: unknown } };
  expect(answer.hookSpecificOutput.hookEventName).toBe('PostToolUse');
  return answer.hookSpecificOutput.updatedMCPToolOutput;
}

/** Every number read_result gives from the preview on: the walk of next_cursor, or the query. */
async function numbersThroughReadResult(client: Client, preview: Preview, walk: boolean): Promise<number[]> {
  const read = async (args: Record<string, unknown>): Promise<string> => {
    const result = (await client.callTool({ name: 'read_result', arguments: args })) as { content: Array<{ text: string }>; isError?: boolean };
    expect(result.isError, result.content[0]?.text).not.toBe(true);
    const page = result.content[0]?.text ?? '';
    expect(countTokens(page)).toBeLessThanOrEqual(CAP_TOKENS);
    return page;
  };
  if (!walk) return JSON.parse(await read({ handle: preview.handle, query: '[*].number' })) as number[];
  const numbers = preview.items.map((item) => item.number);
  let cursor = preview.next_cursor;
  for (let pages = 0; cursor !== null && pages < 50; pages += 1) {
    const page = JSON.parse(await read({ handle: preview.handle, cursor })) as { items: Array<{ number: number }>; next_cursor: string | null };
    numbers.push(...page.items.map((item) => item.number));
    cursor = page.next_cursor;
  }
  expect(cursor).toBeNull();
  return numbers;
}

const FORMS: ReadonlyArray<{ name: string; response: () => unknown }> = [
  { name: 'content array', response: () => recorded.content },
  { name: 'text string', response: () => text },
  { name: '{"result": ...} wrapper', response: () => ({ result: text }) },
  { name: '{"result": ...} as a JSON string', response: () => JSON.stringify({ result: text }) },
];

const RULE_SETS: ReadonlyArray<{ name: string; args: string[]; walk: boolean }> = [
  { name: 'example rules (project, pageTokens 2000)', args: ['--rules', EXAMPLE_RULES], walk: true },
  { name: 'no rules (the 25,000 cap)', args: [], walk: false },
];

describe('mcpctx hook post-tool-use on the recorded pull requests', () => {
  let client: Client;

  beforeAll(async () => {
    recorded = await recordedPullRequests();
    text = recorded.content[0]!.text;
    expect(countTokens(text)).toBe(113_801);
    expect(countTokens(text) + countTokens(JSON.stringify(recorded.structuredContent))).toBe(227_605);
    client = await resultsClient(['--store', store, '--rules', EXAMPLE_RULES]);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  for (const rules of RULE_SETS) {
    for (const form of FORMS) {
      it(`${rules.name}, ${form.name}: the model gets a preview under the cap, every PR number reachable`, async () => {
        const output = answerOf(await runHook(['--store', store, ...rules.args], postToolUseInput(form.response())));
        const seen = modelText(output);
        const tokens = countTokens(seen);
        expect(tokens).toBeLessThanOrEqual(CAP_TOKENS);
        const line = logLines().at(-1)!;
        expect(line).toMatchObject({ tool: 'mcp__prs__list_pull_requests', action: 'offloaded', tokensAfter: tokens });
        expect(JSON.stringify(line)).not.toContain('Homebrew installation command');
        const preview = JSON.parse(seen) as Preview;
        expect(preview.handle).toBe(line.handle);
        const numbers = await numbersThroughReadResult(client, preview, rules.walk);
        expect([...numbers].sort((a, b) => a - b)).toEqual(ALL_NUMBERS);
        rows.push(`| ${rules.name} | ${form.name} | ${line.tokensBefore!.toLocaleString('en-US')} | ${tokens.toLocaleString('en-US')} | ${preview.items.length} of 30 PRs in the preview, the rest through read_result (${rules.walk ? 'next_cursor' : 'query [*].number'}) |`);
      }, 60_000);
    }
  }

  it('the docs table holds these figures (UPDATE_DOCS=1 rewrites it)', () => {
    expect(rows).toHaveLength(RULE_SETS.length * FORMS.length);
    const table = ['| rules | tool_response form | tokens before | tokens the model gets | what the model got |', '| --- | --- | ---: | ---: | --- |', ...rows].join('\n');
    const docs = readFileSync(DOCS, 'utf8');
    const start = docs.indexOf(TABLE_START);
    const end = docs.indexOf(TABLE_END);
    expect(start, `${DOCS} needs the markers`).toBeGreaterThan(-1);
    const written = docs.slice(start + TABLE_START.length, end).trim();
    if (process.env.UPDATE_DOCS === '1') {
      writeFileSync(DOCS, `${docs.slice(0, start + TABLE_START.length)}\n${table}\n${docs.slice(end)}`);
      return;
    }
    // The handle and cursor are random, so the preview's count moves by a few tokens between runs.
    const figures = (table_: string): number[][] => table_.split('\n').slice(2).map((row) => row.split('|').slice(3, 5).map((cell) => Number(cell.replace(/,/g, ''))));
    const measured = figures(table);
    figures(written).forEach(([before, after], index) => {
      expect(before).toBe(measured[index]![0]);
      expect(Math.abs(after! - measured[index]![1]!)).toBeLessThanOrEqual(Math.max(20, after! * 0.03));
    });
    expect(figures(written)).toHaveLength(measured.length);
  });

  it("Claude Code's own notice (its limit fired first): no output, exit 0, passed through and logged", async () => {
    for (const response of [NOTICE, { result: NOTICE }]) {
      const run = await runHook(['--store', store, '--rules', EXAMPLE_RULES], postToolUseInput(response));
      expect(run).toMatchObject({ code: 0, stdout: '' });
      const line = logLines().at(-1)!;
      expect(line).toMatchObject({ tool: 'mcp__prs__list_pull_requests', action: 'host-notice', notice: { text: NOTICE, file: '/home/u/.claude/projects/x/tool-results/mcp-prs-list_pull_requests-1.txt' } });
    }
  }, 60_000);
});

describe('mcpctx hook post-tool-use never blocks Claude Code', () => {
  const quiet = tempDir();
  const lastLine = (): LogLine => JSON.parse(readFileSync(join(quiet, 'hook-log.jsonl'), 'utf8').trim().split('\n').at(-1)!) as LogLine;

  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it.each([
    ['not JSON', 'this is not JSON {', 'bad-input'],
    ['nested 100,000 deep', `{"tool_name":"mcp__prs__x","tool_response":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, 'bad-input'],
    ['a built-in tool', JSON.stringify(postToolUseInput({ stdout: 'x'.repeat(200_000), stderr: '' }, { toolName: 'Bash' })), 'not-mcp'],
    ['read_result itself', JSON.stringify(postToolUseInput([{ type: 'text', text: 'word '.repeat(40_000) }], { toolName: 'mcp__mcpctx-results__read_result' })), 'read-result'],
    ['an unreadable rules file', JSON.stringify(postToolUseInput([{ type: 'text', text: 'word '.repeat(40_000) }])), 'failed'],
  ])('%s: exit 0, no stdout, logged', async (name, stdin, action) => {
    const rules = name === 'an unreadable rules file' ? ['--rules', join(quiet, 'missing.yaml')] : [];
    const run = await runHook(['--store', quiet, ...rules], stdin);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(lastLine().action).toBe(action);
    if (action === 'bad-input' || action === 'failed') expect(run.stderr).toMatch(/^mcpctx hook: /);
  }, 60_000);

  it('stops reading past the bound and says so, whatever the writer does', async () => {
    // An endless writer: the read must end at the bound, not at the writer's end.
    const endless = Readable.from(
      (function* () {
        for (;;) yield Buffer.alloc(64 * 1024, 32);
      })(),
    );
    const read = await readBoundedInput(endless, 1024 * 1024);
    expect(read).toEqual({ ok: false, reason: 'the hook input is over 1,048,576 bytes; not read' });
    expect(endless.destroyed).toBe(true);
  });

  it('a server name with characters Claude Code rewrites: mcp_server.name names the rules key', async () => {
    const dir = tempDir();
    const rules = join(dir, 'rules.json');
    writeFileSync(rules, JSON.stringify({ tools: { 'pull.requests/list_pull_requests': { project: ['number'] } } }));
    const input = postToolUseInput(recorded?.content ?? [{ type: 'text', text: JSON.stringify(ALL_NUMBERS.map((number) => ({ number, title: 't' }))) }], { toolName: 'mcp__pull_requests__list_pull_requests', server: 'pull.requests' });
    const output = answerOf(await runHook(['--store', quiet, '--rules', rules], input));
    const numbers = (JSON.parse(modelText(output)) as Array<{ number: number }>).map((item) => item.number);
    expect([...numbers].sort((a, b) => a - b)).toEqual(ALL_NUMBERS);
    expect(lastLine()).toMatchObject({ action: 'projected', tool: 'mcp__pull_requests__list_pull_requests' });
  }, 60_000);
});
