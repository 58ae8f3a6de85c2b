// mcpctx inspect-result, driven through runCli with fake io against the result server over stdio.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../src/tokens/index.js';
import { type CliRun, markFlags, runCliCaptured } from '../support/cli-run.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

const cli = (args: string[]): Promise<CliRun> => runCliCaptured(args);

const RESULT_SERVER = fileURLToPath(new URL('../servers/result-server.mjs', import.meta.url));
const PULLS_FILE = fileURLToPath(
  new URL('../fixtures/github-pulls-issues/pygithub/openmicroscopy_ome-documentation_pulls_state-closed.body.json', import.meta.url),
);

const server = ['--', process.execPath, RESULT_SERVER];
const pulls = ['--env', `RESULT_FILE=${PULLS_FILE}`, '--env', 'RESULT_STRUCTURED=wrapped:pull_requests'];

describe('mcpctx inspect-result', () => {
  it('prints exactly one object with --json', async () => {
    const run = await cli(['inspect-result', '--tool', 'get_result', '--json', ...pulls, ...markFlags(), ...server]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const inspection = JSON.parse(run.stdout) as Record<string, unknown>;
    for (const key of ['tool', 'status', 'note', 'details', 'isError', 'errorText', 'content', 'fields', 'estimate', 'suggestion', 'redactions']) {
      expect(inspection).toHaveProperty(key);
    }
    expect(inspection).toMatchObject({ tool: 'get_result', status: 'analysed', isError: false });
    const content = inspection.content as Record<string, unknown>;
    for (const key of ['textTokens', 'textBytes', 'structuredTokens', 'structuredBytes', 'structuredDuplicatesText']) expect(content).toHaveProperty(key);
    expect(content).toMatchObject({ textTokens: 113_801, textBytes: 424_635, structuredDuplicatesText: true, duplicateWrapperKey: 'pull_requests' });
    const fields = inspection.fields as Array<Record<string, unknown>>;
    for (const field of fields) expect(Object.keys(field)).toEqual(expect.arrayContaining(['path', 'tokens', 'share', 'copy']));
    expect(fields.slice(0, 2)).toMatchObject([
      { path: 'head', copy: true },
      { path: 'base', copy: true },
    ]);
    expect(inspection.estimate).toMatchObject({ charsOver4: expect.any(Number), errorPercent: -6.7 });
    expect(inspection.suggestion).toMatchObject({ tokens: 5_587, fields: expect.arrayContaining([{ name: 'user', source: 'user.login', rule: expect.any(String) }]) });
  });

  it('prints a readable report: blocks, fields with children beneath, the estimate and the suggestion', async () => {
    const run = await cli(['inspect-result', '--tool', 'get_result', ...pulls, ...markFlags(), ...server]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('tool get_result: analysed, 227,605 tokens in 1 content block and structuredContent');
    expect(run.stdout).toMatch(/^part\s+type\s+tokens\s+bytes\s+JSON$/m);
    expect(run.stdout).toMatch(/^content\[0\]\s+text\s+113,801\s+424,635\s+yes$/m);
    expect(run.stdout).toMatch(/^structuredContent\s+json\s+113,804\s+424,653\s+yes$/m);
    expect(run.stdout).toContain('structuredContent duplicates content[0], wrapped in "pull_requests"');
    expect(run.stdout).toMatch(/^field\s+tokens\s+share\s+repeated\s+copy$/m);
    const head = lines.findIndex((line) => /^head\s+49,072\s+43\.1%\s+[\d,]+\s+copy$/.test(line));
    expect(head).toBeGreaterThan(0);
    expect(lines[head + 1]).toMatch(/^ {2}head\.repo\s+39,641\s+34\.8%\s+[\d,]+\s+copy$/);
    expect(lines.find((line) => line.startsWith('base '))).toMatch(/35\.6%\s+[\d,]+\s+copy$/);
    expect(run.stdout).toMatch(/^estimate: characters\/4 says [\d,]+ tokens \([\d,]+ characters\); the o200k count is 227,605, an error of -6\.7%$/m);
    expect(run.stdout).toContain('Suggested projection (a suggestion, not applied): 5,587 tokens, 4.9% of the payload\'s 113,801');
    expect(run.stdout).toMatch(/^user\s+user\.login\s+nested object, reduced to its identifying value$/m);
    expect(run.stdout).toMatch(/^ {2}url, comments_url, .*: rebuildable link$/m);
    expect(run.stdout).toMatch(/^ {2}head\.user, head\.label, head\.repo, head\.sha: nested object, reduced to head\.ref$/m);
    expect(run.stdout).toMatch(/^as code: defineProjection\(\[.*\{"path":"user\.login","as":"user"\}.*\], \{ sample \}\) from mcpctx\/shape, applied to each record$/m);
  });

  it('reports a result with isError: true as tool-error, its text shown, and exits 3', async () => {
    const json = await cli(['inspect-result', '--tool', 'tool_error', '--json', ...markFlags(), ...server]);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'tool-error',
      isError: true,
      errorText: 'Error executing tool tool_error: the backend refused the query',
      content: { totalTokens: expect.any(Number) },
    });
    const readable = await cli(['inspect-result', '--tool', 'tool_error', ...markFlags(), ...server]);
    expect(readable.code).toBe(3);
    const lines = readable.stdout.split('\n');
    expect(lines[0]).toMatch(/^tool tool_error: tool-error, \d+ tokens in 1 content block \(isError: true\)$/);
    expect(lines[1]).toBe('the tool answered with isError: true: "Error executing tool tool_error: the backend refused the query"');
    expect(readable.stdout).toMatch(/^content\[0\]\s+text\s+\d+/m);
  });

  it('shows a multi-line error text whole, bounded', async () => {
    const run = await cli(['inspect-result', '--tool', 'get_result', '--env', `RESULT_FILE=${RESULT_SERVER}`, '--env', 'RESULT_IS_ERROR=1', ...markFlags(), ...server]);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/^error text:\n {2}#!\/usr\/bin\/env node\n/m);
    expect(run.stdout).toMatch(/… \(\d+ more characters\)\n/);
  });

  it('summarises a Python-SDK list result: a few block rows, one line for the rest, the copy found', async () => {
    const run = await cli(['inspect-result', '--tool', 'list_packages', ...markFlags(), ...server]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('tool list_packages: analysed, 87,914 tokens in 261 content blocks and structuredContent');
    const blockRows = lines.filter((line) => line.startsWith('content['));
    expect(blockRows).toHaveLength(6);
    expect(blockRows[5]).toMatch(/^content\[5\.\.260\], 256 more\s+text\s+[\d,]+\s+[\d,]+\s+yes$/);
    const tokens = (row: string): number => Number(/\s([\d,]+)\s+[\d,]+\s+yes$/.exec(row)?.[1]?.replace(/,/g, '') ?? NaN);
    expect(blockRows.reduce((sum, row) => sum + tokens(row), 0)).toBe(50_871);
    expect(run.stdout).toContain('structuredContent duplicates content[0..260], wrapped in "result": the same JSON sent twice, the copy costs 37,043 tokens');
    expect(run.stdout).toContain('payload: content[0..260] (261 JSON text blocks read as one list), an array of 261 records, 37,041 tokens as compact JSON');
  });

  it('passes --args to the tool', async () => {
    const run = await cli(['inspect-result', '--tool', 'echo_arguments', '--args', '{"state":"closed","per_page":5}', '--json', ...markFlags(), ...server]);
    expect(run.code).toBe(0);
    const inspection = JSON.parse(run.stdout) as { fields: Array<{ path: string }>; payload: { shape: string } };
    expect(inspection.payload.shape).toBe('object');
    expect(inspection.fields.map((field) => field.path).sort()).toEqual(['per_page', 'state']);
  });

  it('says when the payload is not JSON', async () => {
    const run = await cli(['inspect-result', '--tool', 'get_result', '--env', `RESULT_FILE=${RESULT_SERVER}`, ...markFlags(), ...server]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^content\[0\]\s+text\s+[\d,]+\s+[\d,]+\s+no$/m);
    expect(run.stdout).toContain('Suggested projection (a suggestion, not applied): none; no text block holds a JSON object or array');
    expect(run.stdout).not.toMatch(/^field\s+tokens/m);
    expect(run.stdout).not.toContain('note: ');
  });

  it.each([
    [['--tool', 'echo_arguments', '--args', '[1,2]'], /--args must be a JSON object .*got an array/],
    [['--tool', 'echo_arguments', '--args', '"text"'], /--args must be a JSON object .*got a string/],
    [['--tool', 'echo_arguments', '--args', '{"state":'], /--args is not valid JSON; give a JSON object/],
    [[], /required option '--tool <name>'/],
    [['--tool', 'x', '--timeout', '0'], /from 1 to 86400000/],
  ])('rejects %j as a usage error (exit 2)', async (args, message) => {
    const run = await cli(['inspect-result', ...args, ...server]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('asks for the server command', async () => {
    const run = await cli(['inspect-result', '--tool', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/give the server command after --/);
  });

  it('exits 3 on an unknown tool and names the tools there are, whether refused by JSON-RPC or by isError', async () => {
    const tools = 'get_result, echo_arguments, echo_env, fail, list_packages, mixed_content, tool_error, nested_result, nested_error, not_object, crash, hang';
    const run = await cli(['inspect-result', '--tool', 'get_results', ...markFlags(), ...server]);
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      `tool get_results: unknown-tool\nthe server has no tool "get_results"; its tools: ${tools}. It answered: Unknown tool: get_results (code -32602)\n`,
    );
    const isError = await cli(['inspect-result', '--tool', 'get_results', '--env', 'RESULT_UNKNOWN_TOOL=is-error', ...markFlags(), ...server]);
    expect(isError.code).toBe(3);
    const lines = isError.stdout.split('\n');
    expect(lines[0]).toBe('tool get_results: unknown-tool, 5 tokens in 1 content block (isError: true)');
    expect(lines[1]).toBe(`the server has no tool "get_results"; its tools: ${tools}. It answered with isError: "Unknown tool: get_results"`);
  });

  it('exits 3 on any other JSON-RPC error reply, the whole inspection still printed with --json', async () => {
    const run = await cli(['inspect-result', '--tool', 'fail', '--json', ...markFlags(), ...server]);
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('');
    const inspection = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(inspection).toMatchObject({
      tool: 'fail',
      status: 'rpc-error',
      note: 'tools/call fail failed: Internal error: the backend is down (code -32603)',
      details: { step: 'tools/call', errorCode: 'RPC_ERROR', rpcCode: -32603, rpcMessage: 'Internal error: the backend is down', limit: null, stderrTail: null },
      isError: false,
      errorText: null,
      content: null,
      payload: null,
      fields: [],
      estimate: null,
      suggestion: { tokens: null, note: 'there is no result to analyse' },
      notes: [],
    });
  });

  it.each([
    ['nested_result', [], 'over-limit', 'tools/call nested_result: the response to tools/call nests deeper than 512 levels (MAX_JSON_DEPTH); it is refused, not read'],
    ['not_object', [], 'protocol-error', 'the tools/call result is a string, not an object; it is not analysed'],
    ['crash', [], 'server-exited', 'the server exited with code 1 during tools/call crash: the server closed the connection'],
    ['hang', ['--timeout', '3000'], 'timeout', 'no answer to tools/call within the 3000 ms budget shared by start, initialize and the call'],
  ])('prints the status of %s and exits 3', async (tool, extra, status, note) => {
    const run = await cli(['inspect-result', '--tool', tool, ...extra, ...markFlags(), ...server]);
    expect(run.code).toBe(3);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`tool ${tool}: ${status}`);
    // A loaded machine may run out of the 3 s before the call; the status is the same.
    expect(lines[1]).toEqual(status === 'timeout' ? expect.stringMatching(/^no answer to (start|initialize|tools\/call) within the 3000 ms budget/) : note);
  });

  it('never prints a value passed with --env, even when the server echoes it', async () => {
    const canary = `canary-${randomUUID()}`;
    const runs = [
      await cli(['inspect-result', '--tool', 'echo_env', '--args', '{"name":"CANARY_SECRET"}', '--env', `CANARY_SECRET=${canary}`, ...markFlags(), ...server]),
      await cli(['inspect-result', '--tool', 'echo_env', '--args', '{"name":"CANARY_SECRET"}', '--json', '--env', `CANARY_SECRET=${canary}`, ...markFlags(), ...server]),
      await cli(['inspect-result', '--tool', 'get_result', '--env', `RESULT_FILE=/nonexistent/${canary}`, ...markFlags(), ...server]),
    ];
    expect(runs.map((run) => run.code)).toEqual([0, 0, 3]);
    // Counted on what the server sent; the value itself is in no printed string.
    expect(JSON.parse(runs[1]?.stdout ?? '')).toMatchObject({ content: { textTokens: countTokens(JSON.stringify({ name: 'CANARY_SECRET', value: canary })) }, redactions: 0 });
    expect(runs[2]?.stdout).toContain('[redacted:RESULT_FILE]');
    expect(runs[2]?.stdout).toMatch(/^note: 2 string\(s\) of this report held an env value and were redacted; every figure is counted on the server's real bytes$/m);
    for (const run of runs) expect(run.stdout + run.stderr).not.toContain(canary);
  });

  it('explains itself with --help', async () => {
    const run = await cli(['inspect-result', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--tool <name>');
    expect(run.stdout).toContain('Exit codes');
  });

  it('leaves none behind', async () => {
    expect(await waitForNoMarkedProcesses()).toEqual([]);
  });
});
