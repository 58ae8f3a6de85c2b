// mcpctx/host's core: the gateway's rules on a result in every form a host hands over, on the
// recorded pull requests (113,801 tokens of text, the same again as structuredContent).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { countTokens } from '../../src/tokens/index.js';
import { entrySource, walkImports } from '../support/import-graph.js';
import { HostShaper, createFileStore, defineHostRules, fileStoreKey, loadHostRules, readHostOutput, resultText, type HostShaped } from '../../src/host/index.js';

const PULLS = readFileSync(fileURLToPath(new URL('../../examples/pull-requests/data/pulls.json', import.meta.url)), 'utf8');
const NUMBERS = (JSON.parse(PULLS) as Array<{ number: number }>).map((pull) => pull.number);
// As the server sends it (examples/pull-requests/server.js before): the text, and the same list as structuredContent.
const RESULT = { content: [{ type: 'text', text: PULLS }], structuredContent: { pull_requests: JSON.parse(PULLS) as unknown } };
const CALL = { server: 'prs', tool: 'list_pull_requests' };
const PROJECT = ['number', 'title', 'state', { path: 'user.login', as: 'author' }, 'created_at', 'merged_at', { path: 'body', maxChars: 200 }];
const NOTICE = 'Error: result (694,797 characters) exceeds maximum allowed tokens. Output has been saved to /home/u/.claude/projects/p/tool-results/mcp-prs-list_pull_requests-1.txt';

const dir = mkdtempSync(join(tmpdir(), 'mcpctx-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The text the model gets of a shaped output, whatever its form. */
function textOf(shaped: HostShaped): string {
  const output = shaped.output;
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return resultText({ content: output });
  return resultText(output as Record<string, unknown>);
}

/**
 * Every PR number the model can reach as the preview tells it to: those in the preview, then those
 * on the read_result pages it walks from the preview's next_cursor until there is none.
 */
function reachableNumbers(shaper: HostShaper, shaped: HostShaped): number[] {
  // An item too large for a page is walked in pieces of its JSON text, where the quotes are escaped.
  const numbers = (text: string): number[] => [...text.matchAll(/\\?"number\\?":(\d+)/g)].map((match) => Number(match[1]));
  const preview = JSON.parse(textOf(shaped)) as { handle?: string; next_cursor?: string | null };
  const found = new Set(numbers(textOf(shaped)));
  let cursor = preview.next_cursor ?? null;
  for (let pages = 0; cursor !== null && preview.handle !== undefined; pages += 1) {
    expect(pages).toBeLessThan(200);
    const page = shaper.readResult({ handle: preview.handle, cursor });
    expect(page.isError).toBe(false);
    expect(page.tokens).toBeLessThanOrEqual(4000);
    for (const number of numbers(page.text)) found.add(number);
    cursor = (JSON.parse(page.text) as { next_cursor?: string | null }).next_cursor ?? null;
  }
  return [...found].sort((a, b) => b - a);
}

describe('HostShaper on the recorded pull requests', () => {
  const forms: Array<[string, unknown]> = [
    ['result object', RESULT],
    ['content blocks', RESULT.content],
    ['text', PULLS],
    ['{"result": ...} wrapper', JSON.stringify({ result: PULLS })],
    ['content blocks as JSON text', JSON.stringify(RESULT.content)],
    // Claude Code hands the model (and its hooks) JSON.stringify(structuredContent) when there is one
    // (anthropics/claude-code#79944, 2.1.280).
    ['structuredContent as JSON text', JSON.stringify(RESULT.structuredContent)],
  ];

  it.each(forms)('with the example rules, %s: a page of at most pageTokens goes back in the same form, every PR reachable', (_form, output) => {
    const shaper = new HostShaper({ rules: { tools: { 'prs/list_pull_requests': { project: PROJECT, pageTokens: 2000 } } } });
    const shaped = shaper.shape(CALL, output);
    expect(shaped.changed).toBe(true);
    expect(shaped.action).toBe('offloaded');
    // A string comes back a string (the shaped text), an object or a list as one.
    expect(typeof shaped.output).toBe(typeof output);
    expect(Array.isArray(shaped.output)).toBe(Array.isArray(output));
    expect(shaped.tokensBefore).toBeGreaterThanOrEqual(113_801);
    expect(shaped.tokensAfter).toBeLessThanOrEqual(2000);
    expect(countTokens(textOf(shaped))).toBeLessThanOrEqual(2000);
    expect(reachableNumbers(shaper, shaped)).toEqual([...NUMBERS].sort((a, b) => b - a));
  });

  it('with no rules: over the 25,000-token cap the whole result is kept behind a handle, nothing cut', () => {
    const shaper = new HostShaper();
    const shaped = shaper.shape(CALL, RESULT);
    expect(shaped.action).toBe('offloaded');
    expect(shaped.tokensBefore).toBe(113_801);
    expect(shaped.tokensAfter).toBeLessThanOrEqual(4000);
    expect(reachableNumbers(shaper, shaped)).toEqual([...NUMBERS].sort((a, b) => b - a));
    const numbers = JSON.parse(shaper.readResult({ handle: shaped.handle, query: 'pull_requests[*].number' }).text) as number[];
    expect(numbers).toEqual(NUMBERS);
  });

  it('offload: false refuses with the figure and a remedy instead', () => {
    const shaper = new HostShaper({ rules: { offload: false } });
    const shaped = shaper.shape(CALL, PULLS);
    expect(shaped.action).toBe('refused');
    expect(shaped.output).toMatch(/^RESULT_TOO_LARGE: tool "prs\/list_pull_requests" would have returned 113,801 tokens, over the cap of 25,000 tokens/);
  });

  it("passes a host's own notice through untouched and reports it", () => {
    const shaper = new HostShaper({ rules: { tools: { list_pull_requests: { project: PROJECT } } } });
    for (const output of [NOTICE, JSON.stringify({ result: NOTICE }), { result: NOTICE }]) {
      const shaped = shaper.shape(CALL, output);
      expect(shaped.output).toBe(output);
      expect(shaped.changed).toBe(false);
      expect(shaped.action).toBe('host-notice');
      expect(shaped.notice).toMatchObject({ host: 'claude-code', characters: 694_797, file: '/home/u/.claude/projects/p/tool-results/mcp-prs-list_pull_requests-1.txt' });
    }
  });

  it('gives back the very value it was given when nothing applies', () => {
    const shaper = new HostShaper({ rules: { tools: { 'other/list_pull_requests': { project: PROJECT } } } });
    const small = { content: [{ type: 'text', text: '[{"number":1}]' }] };
    expect(shaper.shape(CALL, small).output).toBe(small);
    for (const odd of [42, null, { some: 'object' }, [1, 2]]) {
      const shaped = shaper.shape(CALL, odd);
      expect(shaped).toMatchObject({ output: odd, changed: false, action: 'not-a-result' });
    }
  });

  it('rules name a server the host knows: SERVER/tool for any server, a bare name for every server', () => {
    const shaper = new HostShaper({ rules: { tools: { 'prs/list_*': { maxTokens: 100 }, list_pull_requests: { project: ['number'] } } } });
    expect(shaper.rulesFor(CALL)).toEqual({ maxTokens: 100, project: ['number'] });
    expect(shaper.rulesFor({ server: 'other', tool: 'list_pull_requests' })).toEqual({ project: ['number'] });
    expect(shaper.rulesFor({ tool: 'list_pull_requests' })).toEqual({ project: ['number'] });
  });

  it('never counts a hostile text on the way: JSON nested 100,000 deep is read as text, an own "__proto__" stays data', () => {
    const shaper = new HostShaper({ rules: { tools: { '*': { project: ['number'] } } } });
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(shaper.shape(CALL, deep).form).toBe('text');
    const shaped = shaper.shape(CALL, '[{"number":1,"__proto__":{"polluted":true}}]');
    expect(shaped.action).toBe('projected');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("reads a tool's own JSON payload as text without parsing it (the shaper parses it once), and parses only what may be a result", () => {
    const payload = JSON.stringify(RESULT.structuredContent);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(readHostOutput(payload).form).toBe('text');
      expect(parse.mock.calls.filter(([text]) => text === payload)).toHaveLength(0);
      expect(readHostOutput(`  ${JSON.stringify({ result: 'x' })}`).form).toBe('wrapped');
      expect(readHostOutput(JSON.stringify([{ text: 'x', type: 'text' }])).form).toBe('content');
      expect(readHostOutput(JSON.stringify(RESULT)).form).toBe('result');
    } finally {
      parse.mockRestore();
    }
  });

  it('applies description rules to a definition as the gateway lists it', () => {
    const shaper = new HostShaper({ rules: { tools: { 'prs/list_pull_requests': { description: 'List pull requests.' } } } });
    const { tool, changes } = shaper.describeTool(CALL, { name: 'list_pull_requests', description: 'x'.repeat(500), inputSchema: { type: 'object' }, outputSchema: { type: 'object' } });
    expect(tool).toEqual({ name: 'list_pull_requests', description: 'List pull requests.', inputSchema: { type: 'object' } });
    expect(changes.map((change) => change.field)).toEqual(['description', 'outputSchema']);
  });
});

describe('host rules', () => {
  it('refuses a bad rule with its path', () => {
    expect(() => defineHostRules({ capTokens: 3, tools: { 'prs/x': { pageTokens: 'many' } } } as never)).toThrow(/capTokens[\s\S]*tools\["?prs\/x"?\]?\.pageTokens|capTokens/);
    expect(() => defineHostRules({ tool: {} } as never)).toThrow(/tool: unknown key/);
  });

  it('reads a gateway config as it is (its servers name the keys) and a host file with comments', async () => {
    const gateway = await loadHostRules(fileURLToPath(new URL('../../examples/gateway/gateway.yaml', import.meta.url)));
    expect(new HostShaper({ rules: gateway }).rulesFor(CALL)).toMatchObject({ pageTokens: 2000, maxTokens: 8000 });
    const file = join(dir, 'rules.jsonc');
    writeFileSync(file, '{\n  // slim the PR list\n  "capTokens": 10000,\n  "tools": { "prs/list_pull_requests": { "project": ["number"] }, },\n}\n');
    const rules = await loadHostRules(file);
    expect(rules.capTokens).toBe(10_000);
    expect(new HostShaper({ rules }).rulesFor(CALL)).toEqual({ project: ['number'] });
  });
});

describe('a 0600 folder store shared by processes', () => {
  it('a handle issued by one shaper is read by another on the same folder and key, and by no other session', () => {
    const folder = join(dir, 'shared');
    const key = fileStoreKey(folder);
    expect(fileStoreKey(folder)).toEqual(key);
    const hook = new HostShaper({ store: createFileStore(folder), key, sessionId: 'claude-code' });
    const shaped = hook.shape(CALL, PULLS);
    expect(shaped.action).toBe('offloaded');
    const files = (statSync(folder).mode & 0o777).toString(8);
    expect(files).toBe('700');
    const reader = new HostShaper({ store: createFileStore(folder), key: fileStoreKey(folder), sessionId: 'claude-code' });
    expect(reachableNumbers(reader, shaped)).toEqual([...NUMBERS].sort((a, b) => b - a));
    const stranger = new HostShaper({ store: createFileStore(folder), key, sessionId: 'another' });
    const refused = stranger.readResult({ handle: shaped.handle });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/session/i);
  });
});

describe('framework packages are optional peers', () => {
  const FRAMEWORKS = ['ai', '@ai-sdk/mcp', '@anthropic-ai/claude-agent-sdk', '@openai/agents', '@openai/agents-core', '@langchain/core', '@langchain/mcp-adapters', '@langchain/langgraph'];
  const framework = (packageName: string | undefined): string | undefined => FRAMEWORKS.find((name) => packageName === name || packageName?.startsWith(`${name}/`) === true);
  const entries: Array<[string, string[]]> = [
    ['mcpctx/host', []],
    ['mcpctx/host/claude-code', []],
    ['mcpctx/host/ai-sdk', ['ai']],
    ['mcpctx/host/claude-agent-sdk', ['@anthropic-ai/claude-agent-sdk']],
    ['mcpctx/host/openai-agents', ['@openai/agents']],
    ['mcpctx/host/langchain', ['@langchain/core']],
  ];

  it.each(entries)('%s loads no framework at run time but its own (%j)', (entry, own) => {
    const walk = walkImports(entrySource(entry), { isForbidden: ({ packageName }) => framework(packageName) !== undefined });
    const reached = [...new Set(walk.forbidden.map((reach) => framework(reach.module.startsWith('@') ? reach.module : reach.module.split('/')[0])))].sort();
    expect(reached).toEqual(own);
  });
});
