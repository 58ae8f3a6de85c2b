// mcpctx inspect-result, driven through runCli with fake io against the result server over stdio.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
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
    for (const key of ['tool', 'isError', 'content', 'fields', 'estimate', 'suggestion']) expect(inspection).toHaveProperty(key);
    expect(inspection).toMatchObject({ tool: 'get_result', isError: false });
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
    expect(lines[0]).toBe('tool get_result: 227,605 tokens in 1 content block and structuredContent');
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
  });

  it('reports a result with isError: true and exits 0', async () => {
    const run = await cli(['inspect-result', '--tool', 'get_result', '--json', '--env', `RESULT_FILE=${PULLS_FILE}`, '--env', 'RESULT_IS_ERROR=1', ...markFlags(), ...server]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ isError: true });
    const readable = await cli(['inspect-result', '--tool', 'get_result', '--env', `RESULT_FILE=${PULLS_FILE}`, '--env', 'RESULT_IS_ERROR=1', ...markFlags(), ...server]);
    expect(readable.stdout.split('\n')[0]).toMatch(/\(isError: true\)$/);
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
    expect(run.stdout).toContain('Suggested projection (a suggestion, not applied): none; the first text block is not a JSON object or array');
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

  it('exits 3 on an unknown tool and names the tools there are', async () => {
    const run = await cli(['inspect-result', '--tool', 'get_results', ...markFlags(), ...server]);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'mcpctx: the server has no tool "get_results"; its tools: get_result, echo_arguments, echo_env, fail. It answered: Unknown tool: get_results (code -32602)\n',
    );
  });

  it('exits 3 on any other JSON-RPC error reply', async () => {
    const run = await cli(['inspect-result', '--tool', 'fail', '--json', ...markFlags(), ...server]);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('mcpctx: tools/call fail failed: Internal error: the backend is down (code -32603)\n');
  });

  it('never prints a value passed with --env, even when the server echoes it', async () => {
    const canary = `canary-${randomUUID()}`;
    const runs = [
      await cli(['inspect-result', '--tool', 'echo_env', '--args', '{"name":"CANARY_SECRET"}', '--env', `CANARY_SECRET=${canary}`, ...markFlags(), ...server]),
      await cli(['inspect-result', '--tool', 'echo_env', '--args', '{"name":"CANARY_SECRET"}', '--json', '--env', `CANARY_SECRET=${canary}`, ...markFlags(), ...server]),
      await cli(['inspect-result', '--tool', 'get_result', '--env', `RESULT_FILE=/nonexistent/${canary}`, ...markFlags(), ...server]),
    ];
    expect(runs.map((run) => run.code)).toEqual([0, 0, 3]);
    expect(runs[0]?.stdout).toContain('note: 1 string(s) in the result held an env value and were redacted before counting');
    expect(runs[1]?.stdout).toContain('held an env value and were redacted before counting');
    expect(runs[2]?.stderr).toContain('[redacted:RESULT_FILE]');
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
