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
import { INSPECTION_STATUSES } from '../../src/measure/_inspect-result.js';
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

const TOOLS = ['get_result', 'echo_arguments', 'echo_env', 'fail', 'list_packages', 'mixed_content', 'tool_error', 'nested_result', 'nested_error', 'not_object', 'crash', 'hang'];

describe('inspectResult', () => {
  it('analyses the real recording served with a wrapped structured copy', async () => {
    const inspection = await inspect('get_result', { RESULT_FILE: PULLS_FILE, RESULT_STRUCTURED: 'wrapped:pull_requests' });
    expect(Object.keys(inspection)).toEqual([
      'tool',
      'status',
      'note',
      'details',
      'isError',
      'errorText',
      'content',
      'payload',
      'fields',
      'estimate',
      'suggestion',
      'notes',
      'redactions',
      'tokenizer',
    ]);
    expect(inspection).toMatchObject({ tool: 'get_result', status: 'analysed', isError: false, errorText: null, notes: [], redactions: 0 });
    expect(inspection.note).toBe(`analysed 1 content block and structuredContent: ${inspection.content?.totalTokens} tokens`);
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
    expect(inspection.content?.blocks).toEqual([{ index: 0, type: 'text', kind: 'text', tokens: countTokens(wire), bytes: Buffer.byteLength(wire), json: true }]);
    expect(inspection.content).toMatchObject({ structuredDuplicatesText: true, duplicateWrapperKey: null });
    expect(inspection.payload).toMatchObject({ shape: 'object', records: 1 });
  });

  it('counts embedded resources and resource links off the wire, images by bytes', async () => {
    const inspection = await inspect('mixed_content');
    expect(inspection.status).toBe('analysed');
    expect(inspection.content?.blocks.map((block) => [block.type, block.kind, block.tokens === null])).toEqual([
      ['text', 'text', false],
      ['resource', 'resource-text', false],
      ['resource_link', 'resource-link', false],
      ['image', 'image', true],
    ]);
    const link = { type: 'resource_link', uri: 'file:///repo/docs/guide.md', name: 'guide.md', description: 'The user guide', mimeType: 'text/markdown' };
    expect(inspection.content?.blocks[2]?.tokens).toBe(countTokens(JSON.stringify(link)));
    expect(inspection.content?.totalTokens).toBe(inspection.content?.blocks.reduce((sum, block) => sum + (block.tokens ?? 0), 0));
    expect(inspection.content?.binaryBytes).toBe(70);
  });

  it('reads a Python-SDK list result (261 JSON blocks) as one payload and finds the copy in structuredContent', async () => {
    const inspection = await inspect('list_packages');
    const content = inspection.content;
    if (content === null) throw new Error('no content');
    expect(content.blocks).toHaveLength(261);
    expect(content.textTokens).toBe(content.blocks.reduce((sum, block) => sum + (block.tokens ?? 0), 0));
    // Figures of the deterministic records, counted once with gpt-tokenizer directly.
    expect(content.textTokens).toBe(50_871);
    expect(content.blocks[0]?.tokens).toBe(195);
    expect(content.structuredTokens).toBe(37_043);
    expect(inspection.payload?.tokens).toBe(37_041);
    const blocks = Array.from({ length: 261 }, (_, index) => index);
    expect(inspection.payload).toMatchObject({ source: 'blocks', blocks, path: [], shape: 'records', records: 261 });
    expect(content).toMatchObject({
      structuredDuplicatesText: true,
      duplicateKind: 'wrapped-json',
      duplicateWrapperKey: 'result',
      duplicateOfBlocks: blocks,
      duplicateTokens: content.structuredTokens,
    });
    // The payload is the 261 records as compact JSON: structuredContent less its {"result": } wrapper.
    expect(inspection.payload?.bytes).toBe((content.structuredBytes ?? 0) - '{"result":}'.length);
    expect(inspection.fields.find((field) => field.path === 'name')?.records).toBe(261);
    expect(inspection.suggestion.tokens ?? Infinity).toBeLessThan(inspection.payload?.tokens ?? 0);
  });
});

describe('inspectResult: a status for whatever the server does', () => {
  it('names every status it can return', () => {
    expect(INSPECTION_STATUSES).toEqual(['analysed', 'tool-error', 'unknown-tool', 'rpc-error', 'timeout', 'startup-failure', 'server-exited', 'over-limit', 'protocol-error']);
  });

  it('tool-error: shows what the tool said, analysed, with env values scrubbed from the text only', async () => {
    const backend = `postgres://app:${randomUUID()}@db.internal:5432/app`;
    const inspection = await inspect('tool_error', { BACKEND_URL: backend }, { arguments: { env: 'BACKEND_URL' } });
    const said = `Error executing tool tool_error: the backend at ${backend} refused the query`;
    expect(inspection).toMatchObject({ status: 'tool-error', isError: true });
    expect(inspection.errorText).toBe('Error executing tool tool_error: the backend at [redacted:BACKEND_URL] refused the query');
    expect(inspection.note).toBe(`the tool answered with isError: true: ${JSON.stringify(inspection.errorText)}`);
    expect(inspection.details.availableTools).toEqual(TOOLS);
    // Counted on what the server sent, not on the redacted text.
    expect(inspection.content?.totalTokens).toBe(countTokens(said));
    expect(JSON.stringify(inspection)).not.toContain(backend);
    expect(inspection.redactions).toBe(2);
  });

  it('unknown-tool: a tool the catalog lacks, answered with isError as current SDKs do', async () => {
    const inspection = await inspect('get_results', { RESULT_UNKNOWN_TOOL: 'is-error' });
    expect(inspection).toMatchObject({ status: 'unknown-tool', isError: true, errorText: 'Unknown tool: get_results' });
    expect(inspection.details.availableTools).toEqual(TOOLS);
    expect(inspection.note).toBe(`the server has no tool "get_results"; its tools: ${TOOLS.join(', ')}. It answered with isError: "Unknown tool: get_results"`);
    expect(inspection.content?.totalTokens).toBe(countTokens('Unknown tool: get_results'));
  });

  it('unknown-tool: a tool the catalog lacks, answered with a JSON-RPC error', async () => {
    const inspection = await inspect('get_results');
    expect(inspection).toMatchObject({ status: 'unknown-tool', content: null, payload: null, estimate: null, fields: [] });
    expect(inspection.note).toBe(`the server has no tool "get_results"; its tools: ${TOOLS.join(', ')}. It answered: Unknown tool: get_results (code -32602)`);
    expect(inspection.details).toMatchObject({ step: 'tools/call', errorCode: 'RPC_ERROR', rpcCode: -32602, rpcMessage: 'Unknown tool: get_results', availableTools: TOOLS });
  });

  it('rpc-error: the server words on a JSON-RPC error reply to a tool it has', async () => {
    const inspection = await inspect('fail');
    expect(inspection).toMatchObject({ status: 'rpc-error', note: 'tools/call fail failed: Internal error: the backend is down (code -32603)' });
    expect(inspection.details).toMatchObject({ step: 'tools/call', rpcCode: -32603, availableTools: TOOLS, stderrTail: null });
  });

  it('over-limit: an error reply whose data nests 200,000 levels is refused and reported, not thrown', async () => {
    const inspection = await inspect('nested_error');
    expect(inspection).toMatchObject({
      status: 'over-limit',
      note: 'tools/call nested_error: the response to tools/call nests deeper than 512 levels (MAX_JSON_DEPTH); it is refused, not read',
      details: { limit: 'nesting-depth', errorCode: 'NESTING_TOO_DEEP' },
    });
  });

  it('over-limit: a result nested 200,000 levels deep', async () => {
    const inspection = await inspect('nested_result');
    expect(inspection).toMatchObject({
      status: 'over-limit',
      content: null,
      note: 'tools/call nested_result: the response to tools/call nests deeper than 512 levels (MAX_JSON_DEPTH); it is refused, not read',
    });
    expect(inspection.details.limit).toBe('nesting-depth');
  });

  it('over-limit: a result over the frame limit (a 100+ MB text) without hanging', async () => {
    // 250 copies of the 424 KB recording in one text block, streamed: about 112 MB on one line.
    const inspection = await inspect('get_result', { RESULT_FILE: PULLS_FILE, RESULT_REPEAT: '250' });
    expect(inspection).toMatchObject({ status: 'over-limit', details: { limit: 'frame-bytes', errorCode: 'FRAME_TOO_LARGE', step: 'tools/call' } });
    expect(inspection.note).toMatch(/^tools\/call get_result: server sent more than 16777216 bytes .*narrow the call/);
  });

  it('protocol-error: a result that is not an object', async () => {
    const inspection = await inspect('not_object');
    expect(inspection).toMatchObject({ status: 'protocol-error', note: 'the tools/call result is a string, not an object; it is not analysed' });
  });

  it('server-exited: the server dies during the call, its stderr kept', async () => {
    const inspection = await inspect('crash');
    expect(inspection.status).toBe('server-exited');
    expect(inspection.note).toMatch(/^the server exited with code 1 during tools\/call crash: /);
    expect(inspection.details).toMatchObject({ step: 'tools/call', serverExit: { code: 1, signal: null }, stderrTail: 'fatal: the handler crashed' });
  });

  it('timeout: no answer within the budget', async () => {
    const inspection = await inspect('hang', {}, { timeoutMs: 3_000 });
    expect(inspection.status).toBe('timeout');
    expect(inspection.note).toMatch(/^no answer to (start|initialize|tools\/call) within the 3000 ms budget shared by start, initialize and the call$/);
    expect(inspection.details.errorCode).toBe('DEADLINE');
  });

  it('startup-failure: a server that exits before initializing', async () => {
    const script = join(scratch, 'crash.mjs');
    await writeFile(script, "process.stderr.write('fatal: no config\\n'); process.exit(4);\n");
    const inspection = await inspectResult({ tool: 'x', timeoutMs: 20_000, transport: FAST, launch: { command: process.execPath, args: [script], env: markedEnv() } });
    expect(inspection.status).toBe('startup-failure');
    expect(inspection.note).toMatch(/^the server failed to initialize: /);
    expect(inspection.details).toMatchObject({ step: 'initialize', stderrTail: 'fatal: no config', serverExit: { code: 4 } });
  });

  it('startup-failure: a command that does not exist', async () => {
    const inspection = await inspectResult({ tool: 'x', timeoutMs: 20_000, transport: FAST, launch: { command: join(scratch, 'no-such-server'), args: [], env: markedEnv() } });
    expect(inspection).toMatchObject({ status: 'startup-failure', details: { step: 'start', errorCode: 'SPAWN_FAILED' } });
  });

  it('throws only for the caller\'s mistakes, as USAGE, before launching anything', async () => {
    for (const extra of [{ arguments: [1, 2] as unknown as Record<string, unknown> }, { timeoutMs: 0 }, { capabilities: ['telepathy'] }]) {
      const error = await failure(inspect('echo_arguments', {}, extra));
      expect(error.code).toBe('USAGE');
    }
    expect((await failure(inspect(''))).code).toBe('USAGE');
  });
});

describe('inspectResult: redaction never changes a figure', () => {
  it('counts the real bytes when an env value is also a field name, and redacts only what it prints', async () => {
    const plain = await inspect('list_packages');
    const hinted = await inspect('list_packages', { HINT: 'requires_python' });
    const figures = (inspection: ResultInspection): unknown => ({
      content: inspection.content,
      payload: { ...inspection.payload, path: [] },
      fieldTokens: inspection.fields.map((field) => [field.tokens, field.share, field.repeatedTokens, field.records]),
      suggestion: [inspection.suggestion.tokens, inspection.suggestion.share],
      estimate: inspection.estimate,
    });
    expect(figures(hinted)).toEqual(figures(plain));
    expect(hinted.fields.map((field) => field.path)).toEqual(plain.fields.map((field) => (field.path === 'requires_python' ? '[redacted:HINT]' : field.path)));
    expect(hinted.suggestion.spec).toContain('[redacted:HINT]');
    expect(JSON.stringify(hinted)).not.toContain('requires_python');
    expect(hinted.redactions).toBeGreaterThan(0);
    expect(hinted.notes).toContain(`${hinted.redactions} string(s) of this report held an env value and were redacted; every figure is counted on the server's real bytes`);
    expect(plain.redactions).toBe(0);
  });

  it('redacts env values the server puts in its result or its error, counting what it sent', async () => {
    const canary = `canary-${randomUUID()}`;
    const echoed = await inspect('echo_env', { CANARY_SECRET: canary }, { arguments: { name: 'CANARY_SECRET' } });
    expect(JSON.stringify(echoed)).not.toContain(canary);
    expect(echoed.content?.textTokens).toBe(countTokens(JSON.stringify({ name: 'CANARY_SECRET', value: canary })));

    const missing = join(scratch, canary);
    const inspection = await inspect('get_result', { RESULT_FILE: missing });
    expect(inspection.status).toBe('rpc-error');
    expect(inspection.note).toContain('[redacted:RESULT_FILE]');
    expect(JSON.stringify(inspection)).not.toContain(canary);
  });

  it('leaves no process behind', async () => {
    expect(await waitForNoMarkedProcesses()).toEqual([]);
  });
});
