import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpctxError, isMcpctxError } from '../../src/errors/index.js';
import { bandFor, catalogCost, classifyFailure, loadServersFile, safeSegment, verifyMeasurement } from '../../src/measure/index.js';
import { Redactor } from '../../src/mcp/index.js';
import { countTokens } from '../../src/tokens/index.js';

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpctx-units-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('bandFor', () => {
  it.each([
    [0, 'brightgreen'], [999, 'brightgreen'], [1000, 'green'], [4999, 'green'], [5000, 'yellow'],
    [14999, 'yellow'], [15000, 'orange'], [29999, 'orange'], [30000, 'red'], [180000, 'red'],
  ])('%i tokens is %s', (total, band) => {
    expect(bandFor(total)).toBe(band);
  });
});

describe('catalogCost', () => {
  const tools = [
    { name: 'b_tool', description: 'Does B.', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { x: { type: 'string' } } } },
    { name: 'a_tool', inputSchema: { type: 'object', properties: {} } },
  ];

  it('counts the whole, each tool, and its parts', () => {
    const cost = catalogCost(tools, 'Use b_tool first.');
    expect(cost.totalTokens).toBe(countTokens(JSON.stringify(tools)));
    expect(cost.toolCount).toBe(2);
    expect(cost.canonicalBytes).toBe(Buffer.byteLength(JSON.stringify(tools)));
    expect(cost.perTool[0]).toEqual({
      name: 'b_tool',
      tokens: countTokens(JSON.stringify(tools[0])),
      descriptionTokens: countTokens('Does B.'),
      inputSchemaTokens: countTokens('{"type":"object"}'),
      outputSchemaTokens: countTokens(JSON.stringify(tools[0]?.outputSchema)),
    });
    expect(cost.perTool[1]).not.toHaveProperty('outputSchemaTokens');
    expect(cost.perTool[1]?.descriptionTokens).toBe(0);
    expect(cost.sessionStart).toEqual({
      namesTokens: countTokens('["b_tool","a_tool"]'),
      instructionsTokens: countTokens('Use b_tool first.'),
      total: countTokens('["b_tool","a_tool"]') + countTokens('Use b_tool first.'),
    });
  });

  it('depends on key order, as the model sees it', () => {
    expect(catalogCost([{ name: 'x', description: 'y' }], null).canonicalSha256).not.toBe(
      catalogCost([{ description: 'y', name: 'x' }], null).canonicalSha256,
    );
  });
});

describe('verifyMeasurement', () => {
  const capture = [{ name: 'echo', description: 'Echo text back.', inputSchema: { type: 'object' } }];
  const fresh = () => ({ methodology: 'mcpctx-catalog/v1', name: 's', status: 'measured', rawToolsCapture: capture, serverInstructions: 'hi', ...catalogCost(capture, 'hi') });

  it('passes when every figure re-derives', () => {
    expect(verifyMeasurement(fresh())).toMatchObject({ ok: true, differences: [] });
  });

  it('lists each figure that does not', () => {
    const report = verifyMeasurement({ ...fresh(), totalTokens: 1, serverInstructions: 'changed instructions' });
    expect(report.ok).toBe(false);
    expect(report.differences.map((difference) => difference.field)).toEqual(['totalTokens', 'sessionStart']);
  });

  it('accepts a failure record that claims no figure, refuses one that does', () => {
    const failure = { methodology: 'mcpctx-catalog/v1', status: 'timeout', rawToolsCapture: null, totalTokens: null, toolCount: null, canonicalSha256: null, canonicalBytes: null };
    expect(verifyMeasurement(failure).ok).toBe(true);
    expect(verifyMeasurement({ ...failure, totalTokens: 12 }).ok).toBe(false);
  });

  it('refuses another methodology and non-objects', () => {
    expect(verifyMeasurement({ ...fresh(), methodology: 'other/v9' }).ok).toBe(false);
    expect(verifyMeasurement([1, 2]).ok).toBe(false);
  });
});

describe('loadServersFile', () => {
  it('reads entries, resolving cwd from the file and stringifying scalar env values', async () => {
    const file = join(scratch, 'servers.yaml');
    await writeFile(file, '- name: one\n  command: node\n  args: [server.js, 3]\n  env: { PORT: 8080, DEBUG: true }\n  cwd: sub\n- name: two\n  command: npx\n  capabilities: [roots]\n  runs: 1\n');
    const entries = await loadServersFile(file);
    expect(entries[0]).toEqual({ name: 'one', launch: { command: 'node', args: ['server.js', '3'], cwd: join(scratch, 'sub'), env: { PORT: '8080', DEBUG: 'true' } } });
    expect(entries[1]).toMatchObject({ name: 'two', capabilities: ['roots'], runs: 1, launch: { cwd: scratch, args: [] } });
  });

  it.each([
    ['{}', /non-empty YAML list/],
    ['- command: node', /entry 1 needs name/],
    ['- name: a\n  command: node\n- name: a\n  command: node', /collides/],
    ['- name: a\n  command: node\n  env: { "BAD NAME": x }', /not a valid variable name/],
    ['- name: a\n  command: node\n  runs: 0', /runs must be a positive integer/],
    ['- name: a\n  command: [node', /not valid YAML/],
  ])('refuses %j', async (text, message) => {
    const file = join(scratch, 'bad.yaml');
    await writeFile(file, text);
    const error = await loadServersFile(file).catch((caught: unknown) => caught);
    expect(isMcpctxError(error, 'INVALID_CONFIG')).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});

describe('redaction and names', () => {
  it('scrubs every passed value from text, longest first, and skips trivial ones', () => {
    const redactor = new Redactor({ TOKEN: 'abc123', LONG: 'abc123-extended', FLAG: '1' });
    expect(redactor.text('a abc123-extended b abc123 c 1')).toBe('a [redacted:LONG] b [redacted:TOKEN] c 1');
  });

  it('makes safe folder names', () => {
    expect(safeSegment('../../etc/passwd')).toBe('etc-passwd');
    expect(safeSegment('@scope/server x')).toBe('scope-server-x');
    expect(safeSegment('...')).toBe('server');
  });
});

describe('classifyFailure', () => {
  const base = {
    stderrTail: '',
    stderrBytes: 0,
    nonJsonLines: { count: 0 },
    strayResponses: { count: 0 },
    timings: { startMs: 0, initializeMs: 0, listMs: 0, closeMs: 0, totalMs: 0 },
    exit: { code: null, signal: 'SIGTERM' as const },
    endedOnItsOwn: false,
    failedStep: 'tools/list' as const,
  };
  const rpc = (message: string) => new McpctxError('RPC_ERROR', `tools/list failed: ${message}`, { rpcCode: -32602, rpcMessage: message });

  it('does not read lower-case identifiers or framing errors as a credentials problem', () => {
    expect(classifyFailure({ ...base, error: rpc('Invalid params: unknown argument sort_key') }, 1000).status).toBe('startup-failure');
    const frame = new McpctxError('FRAME_TOO_LARGE', 'too big', {});
    expect(classifyFailure({ ...base, error: frame, stderrTail: 'loaded config; cache_key=abc; api key loaded' }, 1000).status).toBe('startup-failure');
  });

  it('recognises a refusal for credentials, and a server that exits naming a missing key', () => {
    expect(classifyFailure({ ...base, error: rpc('Unauthorized: invalid API key') }, 1000).status).toBe('auth-required');
    const closed = new McpctxError('TRANSPORT_CLOSED', 'the server closed the connection', {});
    const exited = { ...base, error: closed, endedOnItsOwn: true, exit: { code: 1, signal: null } };
    expect(classifyFailure({ ...exited, stderrTail: 'Error: OPENAI_API_KEY is not set' }, 1000)).toMatchObject({ status: 'auth-required' });
    expect(classifyFailure({ ...exited, stderrTail: 'the secret is [redacted:CANARY_SECRET]' }, 1000)).toMatchObject({
      status: 'startup-failure',
      note: 'the server exited with code 1 during tools/list',
    });
  });

  it('names the budget of a timeout and the version a server refused', () => {
    expect(classifyFailure({ ...base, error: new McpctxError('DEADLINE', 'late', {}) }, 1500).note).toContain('1500 ms');
    expect(classifyFailure({ ...base, failedStep: 'initialize', error: rpc('Unsupported protocol version 2025-11-25') }, 1000).status).toBe('protocol-mismatch');
  });
});
