// inspectResult through real stdio: the result server launched, initialized, one tools/call, the
// result analysed as it came off the wire, and the server always gone afterwards.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { inspectResult, type InspectResultOptions, type ResultInspection } from '../../src/measure/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const RESULT_SERVER = fileURLToPath(new URL('../servers/result-server.mjs', import.meta.url));
const PULLS_FILE = fileURLToPath(
  new URL('../fixtures/github-pulls-issues/pygithub/openmicroscopy_ome-documentation_pulls_state-closed.body.json', import.meta.url),
);
/** Short graces: the result server exits at stdin end, so these only bound a failure. */
const FAST = { exitGraceMs: 500, termGraceMs: 500 };

let scratch = '';

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpctx-inspect-'));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function inspect(tool: string, env: Record<string, string> = {}, extra: Partial<InspectResultOptions> = {}): Promise<ResultInspection> {
  return inspectResult({
    tool,
    timeoutMs: 20_000,
    transport: FAST,
    ...extra,
    launch: { command: process.execPath, args: [RESULT_SERVER], env: markedEnv(env) },
  });
}

async function failure(promise: Promise<unknown>): Promise<McpctxError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(McpctxError);
  return error as McpctxError;
}

describe('inspectResult', () => {
  it('analyses the real recording served with a wrapped structured copy', async () => {
    const inspection = await inspect('get_result', { RESULT_FILE: PULLS_FILE, RESULT_STRUCTURED: 'wrapped:pull_requests' });
    expect(Object.keys(inspection)).toEqual(['tool', 'isError', 'content', 'payload', 'fields', 'estimate', 'suggestion', 'notes', 'tokenizer']);
    expect(inspection).toMatchObject({ tool: 'get_result', isError: false, notes: [] });
    expect(inspection.content).toMatchObject({
      textTokens: 113_801,
      structuredDuplicatesText: true,
      duplicateWrapperKey: 'pull_requests',
    });
    expect(inspection.fields.slice(0, 2).map((field) => [field.path, field.copy])).toEqual([
      ['head', true],
      ['base', true],
    ]);
    expect(inspection.suggestion.tokens).toBe(5_587);
    expect(inspection.tokenizer).toMatchObject({ name: 'gpt-tokenizer', encoding: 'o200k_base' });
  });

  it('sends the arguments as given and counts the text the server returned', async () => {
    const args = { zeta: 1, alpha: { nested: ['x', 'y'] }, text: 'Grüße' };
    const inspection = await inspect('echo_arguments', {}, { arguments: args });
    const wire = JSON.stringify(args); // key order kept end to end
    expect(inspection.content.blocks).toEqual([{ index: 0, type: 'text', tokens: countTokens(wire), bytes: Buffer.byteLength(wire), json: true }]);
    expect(inspection.content).toMatchObject({ structuredDuplicatesText: true, duplicateWrapperKey: null });
    expect(inspection.payload).toMatchObject({ shape: 'object', records: 1 });
  });

  it('analyses and reports a result with isError: true', async () => {
    const inspection = await inspect('get_result', { RESULT_FILE: PULLS_FILE, RESULT_IS_ERROR: '1' });
    expect(inspection.isError).toBe(true);
    expect(inspection.content.structuredTokens).toBeNull();
    expect(inspection.fields[0]?.path).toBe('head');
  });

  it('fails with the server words on a JSON-RPC error reply', async () => {
    const error = await failure(inspect('fail'));
    expect(error.code).toBe('RPC_ERROR');
    expect(error.message).toBe('tools/call fail failed: Internal error: the backend is down (code -32603)');
    expect(error.data).toMatchObject({ rpcCode: -32603, step: 'tools/call', tool: 'fail' });
  });

  it('names the tools the server has when the tool is unknown', async () => {
    const error = await failure(inspect('get_results'));
    expect(error.code).toBe('RPC_ERROR');
    expect(error.message).toMatch(/^the server has no tool "get_results"; its tools: get_result, echo_arguments, echo_env, fail\. /);
    expect(error.message).toContain('Unknown tool: get_results (code -32602)');
    expect(error.data).toMatchObject({ availableTools: ['get_result', 'echo_arguments', 'echo_env', 'fail'] });
  });

  it('refuses a result over the frame limit (a 100+ MB text) without hanging', async () => {
    // 250 copies of the 424 KB recording in one text block, streamed: about 112 MB on one line.
    const error = await failure(inspect('get_result', { RESULT_FILE: PULLS_FILE, RESULT_REPEAT: '250' }));
    expect(error.code).toBe('FRAME_TOO_LARGE');
    expect(error.message).toMatch(/^tools\/call get_result: server sent more than 16777216 bytes .*narrow the call/);
  });

  it('refuses arguments that are not an object, before launching anything', async () => {
    const error = await failure(inspect('echo_arguments', {}, { arguments: [1, 2] as unknown as Record<string, unknown> }));
    expect(error.code).toBe('USAGE');
  });

  it('redacts env values the server puts in its result or its error', async () => {
    const canary = `canary-${randomUUID()}`;
    const echoed = await inspect('echo_env', { CANARY_SECRET: canary }, { arguments: { name: 'CANARY_SECRET' } });
    expect(JSON.stringify(echoed)).not.toContain(canary);
    expect(echoed.notes).toContain('1 string(s) in the result held an env value and were redacted before counting');
    expect(echoed.content.textTokens).toBe(countTokens(JSON.stringify({ name: 'CANARY_SECRET', value: '[redacted:CANARY_SECRET]' })));

    const missing = join(scratch, canary);
    const error = await failure(inspect('get_result', { RESULT_FILE: missing }));
    expect(error.message).toContain('[redacted:RESULT_FILE]');
    expect(error.message + JSON.stringify(error.data)).not.toContain(canary);
  });

  it('reports a server that cannot start', async () => {
    const script = join(scratch, 'crash.mjs');
    await writeFile(script, "process.stderr.write('fatal: no config\\n'); process.exit(4);\n");
    const error = await failure(
      inspectResult({ tool: 'x', timeoutMs: 20_000, transport: FAST, launch: { command: process.execPath, args: [script], env: markedEnv() } }),
    );
    expect(error.message).toMatch(/^the server failed to initialize: /);
    expect(error.message).toContain('fatal: no config');
  });

  it('leaves no process behind', async () => {
    expect(await waitForNoMarkedProcesses()).toEqual([]);
  });
});
