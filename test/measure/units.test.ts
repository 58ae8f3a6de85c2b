import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpctxError, isMcpctxError } from '../../src/errors/index.js';
import { bandFor, catalogCost, loadServersFile, safeSegment, verifyMeasurement } from '../../src/measure/index.js';
import { classifyFailure } from '../../src/measure/_status.js';
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

  it('with shouldStop: undefined once it says stop, the same cost when it never does', () => {
    let asked = 0;
    expect(catalogCost(tools, 'Use b_tool first.', { shouldStop: () => ++asked > 3 })).toBeUndefined();
    expect(asked).toBe(4);
    expect(catalogCost(tools, 'Use b_tool first.', { shouldStop: () => false })).toEqual(catalogCost(tools, 'Use b_tool first.'));
  });

  it('refuses a catalog nested deeper than MAX_JSON_DEPTH with NESTING_TOO_DEEP, not a RangeError', () => {
    const deep: unknown = JSON.parse('{"a":'.repeat(200_000) + '1' + '}'.repeat(200_000));
    const error = (() => {
      try {
        catalogCost([{ name: 'deep', inputSchema: deep }], null);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(isMcpctxError(error, 'NESTING_TOO_DEEP')).toBe(true);
    expect((error as Error).message).toContain('the tool catalog nests deeper than 512 levels');
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
    expect(report.differences.map((difference) => difference.field)).toEqual(['totalTokens', 'sessionStart.instructionsTokens', 'sessionStart.total']);
  });

  it('accepts a failure record that claims no figure, refuses one that does', () => {
    const failure = { methodology: 'mcpctx-catalog/v1', status: 'timeout', rawToolsCapture: null, totalTokens: null, toolCount: null, canonicalSha256: null, canonicalBytes: null };
    expect(verifyMeasurement(failure).ok).toBe(true);
    expect(verifyMeasurement({ ...failure, totalTokens: 12 }).ok).toBe(false);
  });

  it('fails a measured or dynamic record without its capture and figures (a failure edited to "measured")', () => {
    const timeout = { methodology: 'mcpctx-catalog/v1', status: 'timeout', rawToolsCapture: null, totalTokens: null, toolCount: null, canonicalSha256: null, canonicalBytes: null };
    for (const status of ['measured', 'dynamic']) {
      const report = verifyMeasurement({ ...timeout, status });
      expect(report.ok).toBe(false);
      expect(report.note).toContain(`status ${status} needs rawToolsCapture`);
    }
    expect(verifyMeasurement({ ...timeout, status: 'great' }).ok).toBe(false);
    expect(verifyMeasurement({ ...fresh(), status: 'timeout' }).ok).toBe(false);
  });

  it('names the tool and the field of a per-tool difference', () => {
    const two = [...capture, { name: 'search', description: 'Find things.', inputSchema: { type: 'object' } }];
    const record = { ...fresh(), rawToolsCapture: two, ...catalogCost(two, 'hi') };
    const perTool = record.perTool.map((tool) => (tool.name === 'search' ? { ...tool, descriptionTokens: tool.descriptionTokens + 1 } : tool));
    const report = verifyMeasurement({ ...record, perTool });
    expect(report.ok).toBe(false);
    expect(report.differences).toEqual([
      { field: 'perTool.descriptionTokens', tool: { index: 1, name: 'search' }, recorded: record.perTool[1]!.descriptionTokens + 1, recomputed: record.perTool[1]!.descriptionTokens },
    ]);
  });

  it('reports a record whose capture was redacted as not re-derivable, never as ok', () => {
    const report = verifyMeasurement({ ...fresh(), captureRedaction: { strings: 2, secrets: ['HINT'] } });
    expect(report).toMatchObject({ ok: false, rederivable: false });
    expect(report.note).toMatch(/^not re-derivable: 2 strings of the capture held a secret/);
  });

  it('reports a file nested too deep instead of throwing', () => {
    const deep: unknown = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000));
    const report = verifyMeasurement({ ...fresh(), rawToolsCapture: [deep] });
    expect(report.ok).toBe(false);
    expect(report.note).toContain('512 levels');
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
    const { servers: entries } = await loadServersFile(file);
    expect(entries[0]).toEqual({
      name: 'one',
      launch: { command: 'node', args: ['server.js', '3'], cwd: join(scratch, 'sub'), env: { PORT: '8080', DEBUG: 'true' } },
      // The launch folder is recorded relative to the file's folder.
      cwdBase: scratch,
    });
    expect(entries[1]).toMatchObject({ name: 'two', capabilities: ['roots'], runs: 1, launch: { cwd: scratch, args: [] } });
  });

  it('reads the mcpServers map of an MCP client config, JSON or YAML; a url entry is a remote server', async () => {
    const config = {
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/tmp/m.jsonl' } },
        linear: { url: 'https://mcp.linear.app/sse' },
        github: { command: 'docker', args: ['run', '-i', 'ghcr.io/github/github-mcp-server'], disabled: false, autoApprove: [] },
      },
    };
    const json = join(scratch, 'claude_desktop_config.json');
    await writeFile(json, JSON.stringify(config, null, 2));
    const yaml = join(scratch, 'mcp.yaml');
    await writeFile(yaml, 'mcpServers:\n  memory:\n    command: npx\n    args: [-y, "@modelcontextprotocol/server-memory"]\n    env: { MEMORY_FILE_PATH: /tmp/m.jsonl }\n  linear:\n    url: https://mcp.linear.app/sse\n  github:\n    command: docker\n    args: [run, -i, ghcr.io/github/github-mcp-server]\n');
    for (const file of [json, yaml]) {
      const { servers } = await loadServersFile(file);
      expect(servers.map((server) => server.name)).toEqual(['memory', 'linear', 'github']);
      expect(servers[0]).toEqual({
        name: 'memory',
        launch: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], cwd: scratch, env: { MEMORY_FILE_PATH: '/tmp/m.jsonl' } },
        cwdBase: scratch,
      });
      expect(servers[1]).toEqual({ name: 'linear', launch: { url: 'https://mcp.linear.app/sse' } });
    }
  });

  it('reads remote entries: headers name variables, type picks the transport (sse forced, http streamable, none detected)', async () => {
    const file = join(scratch, 'remote.json');
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          linear: { type: 'sse', url: 'https://mcp.linear.app/sse', headers: { Authorization: 'LINEAR_TOKEN' } },
          notion: { type: 'http', url: 'https://x.example/mcp' },
          cline: { transportType: 'streamable-http', url: 'https://y.example/mcp' },
          plain: { url: 'http://127.0.0.1:3000/mcp', timeoutMs: 5000 },
          saas: { url: 'https://z.example/mcp', auth: 'oauth' },
        },
      }),
    );
    const { servers } = await loadServersFile(file);
    expect(servers).toEqual([
      { name: 'linear', launch: { url: 'https://mcp.linear.app/sse', headers: { Authorization: 'LINEAR_TOKEN' }, transport: 'sse' } },
      { name: 'notion', launch: { url: 'https://x.example/mcp', transport: 'streamable-http' } },
      { name: 'cline', launch: { url: 'https://y.example/mcp', transport: 'streamable-http' } },
      { name: 'plain', launch: { url: 'http://127.0.0.1:3000/mcp' }, timeoutMs: 5000 },
      { name: 'saas', launch: { url: 'https://z.example/mcp', auth: 'oauth' } },
    ]);
  });

  it.each([
    ['a header value that is not a variable name, without quoting it', { url: 'https://x.example/mcp', headers: { Authorization: 'Bearer sk-secret-value-123' } }, 'headers.Authorization must be the NAME of the environment variable'],
    ['both command and url', { command: 'node', url: 'https://x.example/mcp' }, 'has both command and url'],
    ['env on a url entry', { url: 'https://x.example/mcp', env: { TOKEN: 'x' } }, 'which only a command takes'],
    ['headers on a command entry', { command: 'node', headers: { Authorization: 'TOKEN' } }, 'only a remote server (url) takes'],
    ['a url that is not http(s)', { url: 'ftp://x.example/mcp' }, 'must start with http:// or https://'],
    ['a url carrying a password', { url: 'https://me:hunter2-password@x.example/mcp' }, 'carries credentials'],
    ['type sse without a url', { type: 'sse' }, 'needs url'],
    ['an auth other than oauth or none', { url: 'https://x.example/mcp', auth: 'basic' }, 'auth must be oauth'],
    ['auth on a command entry', { command: 'node', auth: 'oauth' }, 'auth'],
  ])('refuses %s', async (_what, entry, message) => {
    const file = join(scratch, `bad-remote-${randomUUID()}.json`);
    await writeFile(file, JSON.stringify({ mcpServers: { bad: entry } }));
    const error = await loadServersFile(file).catch((caught: unknown) => caught);
    expect(isMcpctxError(error, 'INVALID_CONFIG')).toBe(true);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toMatch(/sk-secret|hunter2/);
  });

  it('says a missing file is a usage error', async () => {
    const error = await loadServersFile(join(scratch, 'no-such-servers.yaml')).catch((caught: unknown) => caught);
    expect(isMcpctxError(error, 'USAGE')).toBe(true);
  });

  it.each([
    ['{}', /non-empty list of servers/],
    ['{"mcpServers": {}}', /non-empty "mcpServers" map/],
    ['{"mcpServers": {"a": {"command": "node", "envFile": ".env"}}}', /server "a" has unknown key\(s\) envFile/],
    ['{"mcpServers": {"a": {"type": "websocket", "command": "node"}}}', /has type "websocket"/],
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
    timings: { startMs: 0, initializeMs: 0, listMs: 0, countMs: 0, closeMs: 0, totalMs: 0 },
    exit: { code: null, signal: 'SIGTERM' as const },
    endedOnItsOwn: false,
    failedStep: 'tools/list' as const,
  };
  const rpc = (message: string) => new McpctxError('RPC_ERROR', `tools/list failed: ${message}`, { rpcCode: -32602, rpcMessage: message });

  it('does not read lower-case identifiers or framing errors as a credentials problem', () => {
    expect(classifyFailure({ ...base, error: rpc('Invalid params: unknown argument sort_key') }, 1000).status).toBe('startup-failure');
    const frame = new McpctxError('FRAME_TOO_LARGE', 'too big', {});
    expect(classifyFailure({ ...base, error: frame, stderrTail: 'loaded config; cache_key=abc; api key loaded' }, 1000).status).toBe('protocol-limit');
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
