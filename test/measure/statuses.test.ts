// Acceptance tests of measureServer over every mode of the scripted server: each ends in the
// status that names what happened, with a note that says why, within its budget, and with no
// process left behind.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { getEncoding } from 'js-tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import type { LaunchSpec } from '../../src/mcp/index.js';
import { measureServer, measurementJson, verifyMeasurement, type MeasureOptions, type Measurement, type RecordedStdioLaunch } from '../../src/measure/index.js';
import { countTokens, sha256Hex } from '../../src/tokens/index.js';
import { SCRIPTED_SERVER, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const tiktoken = getEncoding('o200k_base');
const tiktokenCount = (text: string): number => tiktoken.encode(text, [], []).length;

/** Short graces for servers that do not exit on stdin end by themselves. */
const FAST = { exitGraceMs: 300, termGraceMs: 300 };
/** Budget of the measurements that are about a deadline firing. */
const BUDGET_MS = 1_500;
/** Budget of measurements that should succeed: generous, so a loaded machine does not fail them. */
const GENEROUS_MS = 15_000;
/** Per-test timeout (vitest). */
const TEST_MS = 20_000;
const THREE = ['get_weather', 'search_docs', 'echo'];

interface Tool {
  name: string;
  description?: string;
}

type Extra = Omit<Partial<MeasureOptions>, 'launch'> & {
  env?: Record<string, string>;
  extraArgs?: string[];
  launchExtra?: Partial<LaunchSpec>;
};

/** measureServer on the scripted server in `mode`; fast shutdown graces unless `transport` says. */
async function measure(mode: string, extra: Extra = {}): Promise<{ m: Measurement; ms: number }> {
  const { env, extraArgs = [], launchExtra = {}, ...options } = extra;
  const started = performance.now();
  const m = await measureServer({
    name: mode,
    timeoutMs: GENEROUS_MS,
    transport: FAST,
    ...options,
    launch: { command: process.execPath, args: [SCRIPTED_SERVER, mode, ...extraArgs], env: markedEnv(env), ...launchExtra },
  });
  return { m, ms: performance.now() - started };
}

function stdioLaunch(m: Measurement): RecordedStdioLaunch {
  if (!('command' in m.launch)) throw new Error('expected a stdio launch');
  return m.launch;
}

function names(tools: readonly unknown[] | null): string[] {
  return (tools ?? []).map((tool) => (tool as Tool).name);
}

/**
 * The catalog the server sends, read without project code: one synchronous run of the server fed
 * initialize + tools/list, the tools/list reply parsed with JSON.parse.
 */
function toolsOnTheWire(mode: string, env: Record<string, string> = {}): unknown[] {
  return onTheWire(mode, env).tools;
}

/** The tools/list tools and the initialize result the server sends, read without project code. */
function onTheWire(mode: string, env: Record<string, string> = {}): { tools: unknown[]; initialize: Record<string, unknown> } {
  const input = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ]
    .map((message) => `${JSON.stringify(message)}\n`)
    .join('');
  const run = spawnSync(process.execPath, [SCRIPTED_SERVER, mode], {
    input,
    env: markedEnv({ PATH: process.env.PATH ?? '', ...env }),
    timeout: 10_000,
    killSignal: 'SIGKILL',
    encoding: 'utf8',
  });
  expect(run.status).toBe(0);
  const replies = run.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { id?: unknown; result?: Record<string, unknown> });
  const reply = (id: number): Record<string, unknown> => {
    const result = replies.find((message) => message.id === id)?.result;
    if (!result) throw new Error(`no reply ${id} from ${mode}: ${run.stdout.slice(0, 200)}`);
    return result;
  };
  return { tools: reply(2).tools as unknown[], initialize: reply(1) };
}

function clientReplies(m: Measurement): Record<string, unknown> {
  const tool = (m.rawToolsCapture ?? []).find((candidate) => (candidate as Tool).name === 'client_replies') as Tool | undefined;
  return JSON.parse(tool?.description ?? 'null') as Record<string, unknown>;
}

describe('measureServer statuses over the scripted server', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(5_000)).toEqual([]);
  });

  it('normal: measured, two runs agree, counts cross-checked with js-tiktoken', async () => {
    const { m } = await measure('normal');
    const wire = toolsOnTheWire('normal');
    expect(m.status).toBe('measured');
    expect(m.toolCount).toBe(3);
    expect(names(m.rawToolsCapture)).toEqual(THREE);
    expect(m.rawToolsCapture).toEqual(wire);
    // Key order kept: the capture serializes to the same bytes as the server's own tools.
    expect(JSON.stringify(m.rawToolsCapture)).toBe(JSON.stringify(wire));
    const text = JSON.stringify(wire);
    expect(m.totalTokens).toBe(countTokens(text));
    expect(m.totalTokens).toBe(tiktokenCount(text));
    expect(m.canonicalBytes).toBe(Buffer.byteLength(text, 'utf8'));
    expect(m.attempts).toHaveLength(2);
    expect(m.attempts.map((a) => a.outcome)).toEqual(['captured', 'captured']);
    expect(m.attempts[1]?.canonicalSha256).toBe(m.attempts[0]?.canonicalSha256);
    expect(m.attempts[1]?.totalTokens).toBe(m.totalTokens);
    expect(m.note).toMatch(/agree/);
    expect(m.negotiatedProtocolVersion).toBe('2025-11-25');
    expect(m.serverInstructions).toBe('Scripted test server. Call tools/list to see the catalog.');
    expect('stderrTail' in m).toBe(false);
  }, TEST_MS);

  it('pages3: measured, 7 tools over 3 pages in server order', async () => {
    const { m } = await measure('pages3');
    expect(m.status).toBe('measured');
    expect(m.toolCount).toBe(7);
    expect(m.attempts[0]?.pageCount).toBe(3);
    expect(names(m.rawToolsCapture)).toEqual([...THREE, 'list_issues', 'get_issue', 'close_issue', 'get_file']);
  }, TEST_MS);

  it('cursor-loop: not measured; the note names the loop', async () => {
    const { m } = await measure('cursor-loop');
    expect(m.status).toBe('startup-failure');
    expect(m.note).toMatch(/CURSOR_LOOP/);
    expect(m.note).toMatch(/loop/);
    expect(m.note).toContain('tools/list');
    expect(m.totalTokens).toBeNull();
    expect(m.rawToolsCapture).toBeNull();
    expect(m.attempts).toHaveLength(1);
    expect(m.attempts[0]?.error?.code).toBe('CURSOR_LOOP');
  }, TEST_MS);

  it('old-version: measured; the older negotiated version is recorded and noted', async () => {
    const { m } = await measure('old-version');
    expect(m.status).toBe('measured');
    expect(m.requestedProtocolVersion).toBe('2025-11-25');
    expect(m.negotiatedProtocolVersion).toBe('2024-11-05');
    expect(m.note).toContain('2024-11-05');
    expect(m.note).toContain('2025-11-25');
  }, TEST_MS);

  it('version-refusal: protocol-mismatch; no negotiatedProtocolVersion key at all', async () => {
    const { m } = await measure('version-refusal');
    expect(m.status).toBe('protocol-mismatch');
    expect('negotiatedProtocolVersion' in m).toBe(false);
    expect(m.requestedProtocolVersion).toBe('2025-11-25');
    expect(m.note).toContain('Unsupported protocol version');
    expect(m.totalTokens).toBeNull();
  }, TEST_MS);

  it('oversized-frame: a failure status whose note names FRAME_TOO_LARGE', async () => {
    const { m } = await measure('oversized-frame');
    expect(m.status).toBe('protocol-limit');
    expect(m.note).toContain('FRAME_TOO_LARGE');
    expect(m.attempts[0]?.error?.code).toBe('FRAME_TOO_LARGE');
  }, TEST_MS);

  it('endless-line (maxFrameBytes 1 MiB): a failure status whose note names FRAME_TOO_LARGE', async () => {
    const { m } = await measure('endless-line', { transport: { ...FAST, maxFrameBytes: 1024 * 1024 } });
    expect(m.status).toBe('protocol-limit');
    expect(m.note).toContain('FRAME_TOO_LARGE');
    expect(m.note).toContain('without ending the line');
  }, TEST_MS);

  it('stdout-log: measured; the note reports the non-JSON line and keeps it', async () => {
    const { m } = await measure('stdout-log');
    expect(m.status).toBe('measured');
    expect(m.toolCount).toBe(3);
    expect(m.note).toContain('stdout carried 1 non-JSON-RPC line, ignored');
    expect(m.note).toContain('scripted-server listening on stdio (log line)');
  }, TEST_MS);

  it('invalid-utf8: a failure status whose note names INVALID_FRAME', async () => {
    const { m } = await measure('invalid-utf8');
    expect(m.status).toBe('startup-failure');
    expect(m.note).toContain('INVALID_FRAME');
    expect(m.note).toContain('not valid UTF-8');
    expect(m.totalTokens).toBeNull();
  }, TEST_MS);

  it('stderr-flood: measured (stderr drained); no stderr recorded for a success', async () => {
    const { m } = await measure('stderr-flood');
    expect(m.status).toBe('measured');
    expect(m.toolCount).toBe(3);
    expect('stderrTail' in m).toBe(false);
  }, TEST_MS);

  it('notification-flood: a failure status whose note names TOO_MANY_NOTIFICATIONS', async () => {
    const { m, ms } = await measure('notification-flood');
    expect(m.status).toBe('protocol-limit');
    expect(m.note).toContain('TOO_MANY_NOTIFICATIONS');
    expect(ms).toBeLessThan(GENEROUS_MS / 2);
  }, TEST_MS);

  it('early-exit: startup-failure naming exit code 3, with the fatal message in stderrTail', async () => {
    const { m } = await measure('early-exit');
    expect(m.status).toBe('startup-failure');
    expect(m.note).toContain('exited with code 3');
    expect(m.stderrTail).toContain('fatal: could not read config file /etc/scripted/config.toml');
  }, TEST_MS);

  it('auth-missing: auth-required', async () => {
    const { m } = await measure('auth-missing');
    expect(m.status).toBe('auth-required');
    expect(m.note).toContain('GITHUB_PERSONAL_ACCESS_TOKEN');
    expect(m.stderrTail).toContain('GITHUB_PERSONAL_ACCESS_TOKEN environment variable is not set');
  }, TEST_MS);

  it('auth-error-reply: auth-required from the JSON-RPC error', async () => {
    const { m } = await measure('auth-error-reply');
    expect(m.status).toBe('auth-required');
    expect(m.note).toContain('Unauthorized');
    expect(m.attempts[0]?.error?.code).toBe('RPC_ERROR');
  }, TEST_MS);

  it('dynamic: status dynamic with runs 2; the note names both runs', async () => {
    const { m } = await measure('dynamic', { runs: 2 });
    expect(m.status).toBe('dynamic');
    expect(m.attempts).toHaveLength(2);
    expect(m.attempts[0]?.canonicalSha256).not.toBe(m.attempts[1]?.canonicalSha256);
    expect(m.note).toContain('run 1:');
    expect(m.note).toContain('run 2:');
    expect(m.totalTokens).toBe(m.attempts[0]?.totalTokens);
  }, TEST_MS);

  it('dynamic with runs 1: measured (one run is self-consistent)', async () => {
    const { m } = await measure('dynamic', { runs: 1 });
    expect(m.status).toBe('measured');
    expect(m.attempts).toHaveLength(1);
  }, TEST_MS);

  describe('many-tools', () => {
    it('measured: 5,000 tools over 50 pages', async () => {
      const { m } = await measure('many-tools', { runs: 1 });
      expect(m.status).toBe('measured');
      expect(m.toolCount).toBe(5000);
      expect(m.attempts[0]?.pageCount).toBe(50);
      expect(names(m.rawToolsCapture).slice(0, 2)).toEqual(['tool_00000', 'tool_00001']);
      expect(names(m.rawToolsCapture).at(-1)).toBe('tool_04999');
    }, TEST_MS);

    it('maxTools 4000: not measured; the note names TOO_MANY_TOOLS', async () => {
      const { m } = await measure('many-tools', { maxTools: 4000 });
      expect(m.status).toBe('protocol-limit');
      expect(m.note).toContain('TOO_MANY_TOOLS');
      expect(m.attempts[0]?.error?.code).toBe('TOO_MANY_TOOLS');
    }, TEST_MS);

    it('maxPages 10: not measured; the note names TOO_MANY_PAGES', async () => {
      const { m } = await measure('many-tools', { maxPages: 10 });
      expect(m.status).toBe('protocol-limit');
      expect(m.note).toContain('TOO_MANY_PAGES');
      expect(m.attempts[0]?.error?.code).toBe('TOO_MANY_PAGES');
    }, TEST_MS);
  });

  describe('client-requests', () => {
    it('roots declared: measured; ping {}, roots/list {roots: []}, sampling -32601', async () => {
      const { m } = await measure('client-requests', { capabilities: ['roots'], runs: 1 });
      expect(m.status).toBe('measured');
      expect(m.clientCapabilities).toEqual({ roots: {} });
      const replies = clientReplies(m);
      expect(replies).not.toHaveProperty('missing');
      expect(replies['srv-ping']).toEqual({ jsonrpc: '2.0', id: 'srv-ping', result: {} });
      expect(replies['srv-roots']).toEqual({ jsonrpc: '2.0', id: 'srv-roots', result: { roots: [] } });
      expect(replies['srv-sampling']).toMatchObject({ id: 'srv-sampling', error: { code: -32601 } });
      expect(m.timings.initializeMs).toBeLessThan(4_000); // answered at once, not the server's 5 s wait
    }, TEST_MS);

    it('roots not declared: measured; roots/list and sampling get -32601', async () => {
      const { m } = await measure('client-requests', { runs: 1 });
      expect(m.status).toBe('measured');
      expect(m.clientCapabilities).toEqual({});
      const replies = clientReplies(m);
      expect(replies).not.toHaveProperty('missing');
      expect(replies['srv-ping']).toMatchObject({ result: {} });
      expect(replies['srv-roots']).toMatchObject({ id: 'srv-roots', error: { code: -32601 } });
      expect(replies['srv-sampling']).toMatchObject({ id: 'srv-sampling', error: { code: -32601 } });
    }, TEST_MS);
  });

  describe('what a server sends never makes measureServer throw', () => {
    it('deep-schema: an inputSchema nested 200,000 levels is protocol-limit naming the nesting bound', async () => {
      const { m } = await measure('deep-schema', { runs: 1 });
      expect(m.status).toBe('protocol-limit');
      expect(m.note).toMatch(/nests deeper than 512 levels \(MAX_JSON_DEPTH\)/);
      expect(m.attempts[0]?.error?.code).toBe('NESTING_TOO_DEEP');
      expect(m.rawToolsCapture).toBeNull();
      expect(() => measurementJson(m)).not.toThrow();
    }, TEST_MS);

    it('deep-initialize: a serverInfo nested 200,000 levels is protocol-limit naming the bound, and is not recorded', async () => {
      const { m } = await measure('deep-initialize', { runs: 1 });
      expect(m.status).toBe('protocol-limit');
      expect(m.note).toMatch(/the response to initialize nests deeper than 512 levels \(MAX_JSON_DEPTH\)/);
      expect(m.serverInfo).toBeNull();
      expect(() => measurementJson(m)).not.toThrow();
    }, TEST_MS);
  });

  describe('secrets', () => {
    // The server echoes the value on stderr, and a measured run records no stderr at all.
    it('echo-env: measured; no stderr is recorded, so the echoed value is not; its name is', async () => {
      const canary = `canary-${randomUUID()}`;
      const { m } = await measure('echo-env', { env: { CANARY_SECRET: canary } });
      expect(m.status).toBe('measured');
      expect('stderrTail' in m).toBe(false);
      expect(JSON.stringify(m)).not.toContain(canary);
      expect(m.launch.envNames).toContain('CANARY_SECRET');
    }, TEST_MS);

    it('env-in-catalog: figures counted on the real bytes; the value redacted in the record, which says so', async () => {
      // A quote and a backslash: inside the description's JSON text the value appears escaped.
      const uuid = randomUUID();
      const canary = `s3cr3t"pa\\ss-${uuid}`;
      const { m } = await measure('env-in-catalog', { env: { CANARY_SECRET: canary }, runs: 1 });
      const wire = onTheWire('env-in-catalog', { CANARY_SECRET: canary });
      const real = JSON.stringify(wire.tools);
      expect(m.status).toBe('measured');
      expect(m.totalTokens).toBe(tiktokenCount(real));
      expect(m.canonicalSha256).toBe(sha256Hex(real));
      expect(m.canonicalBytes).toBe(Buffer.byteLength(real, 'utf8'));
      const lookup = (wire.tools as Tool[]).find((tool) => tool.name.startsWith('lookup_'));
      expect(m.perTool?.[3]).toMatchObject({ name: 'lookup_[redacted:CANARY_SECRET]', tokens: tiktokenCount(JSON.stringify(lookup)) });
      expect(m.sessionStart?.instructionsTokens).toBe(tiktokenCount(wire.initialize.instructions as string));
      expect(m.serverInstructions).toBe('Use the key [redacted:CANARY_SECRET] for everything.');
      // The name, the description (the value plain and JSON-escaped) and the instructions.
      expect(m.captureRedaction).toEqual({ strings: 3, secrets: ['CANARY_SECRET'] });
      const description = (m.rawToolsCapture?.[3] as Tool | undefined)?.description;
      expect(description).toBe('Looks things up with key [redacted:CANARY_SECRET]; config {"key":"[redacted:CANARY_SECRET]"}.');
      expect(m.note).toContain('redacted in this record');
      expect(measurementJson(m)).not.toContain(uuid);
      expect(verifyMeasurement(JSON.parse(measurementJson(m)))).toMatchObject({ ok: false, rederivable: false });
    }, TEST_MS);

    it('inheritEnv: a value the whole parent environment passes on is redacted like an --env value', async () => {
      const uuid = randomUUID();
      process.env.CANARY_SECRET = `inherited-${uuid}`;
      try {
        const { m } = await measure('env-in-catalog', { runs: 1, launchExtra: { inheritEnv: true } });
        expect(m.status).toBe('measured');
        expect(m.isolation.mode).toBe('inherited-env');
        expect(m.captureRedaction?.secrets).toContain('CANARY_SECRET');
        expect(measurementJson(m)).not.toContain(uuid);
      } finally {
        delete process.env.CANARY_SECRET;
      }
    }, TEST_MS);

    it('env-in-error: the note holds neither the value nor the colour codes and control characters', async () => {
      const uuid = randomUUID();
      const { m } = await measure('env-in-error', { env: { CANARY_SECRET: `key-${uuid}` }, runs: 1 });
      expect(m.status).toBe('startup-failure');
      expect(m.note).toContain('backend refused key [redacted:CANARY_SECRET] retry later');
      expect(m.attempts[0]?.error?.message).toContain('[redacted:CANARY_SECRET]');
      expect(measurementJson(m)).not.toContain(uuid);
      // eslint-disable-next-line no-control-regex -- control characters are what must be absent
      expect(m.note).not.toMatch(/[\u0000-\u001f\u007f]/);
    }, TEST_MS);

    it('ansi-exit: the stderr tail and the note are free of escape sequences and bidi overrides', async () => {
      const { m } = await measure('ansi-exit', { runs: 1 });
      expect(m.status).toBe('startup-failure');
      expect(m.stderrTail).toBe('fatal: config missing evil\n');
      // eslint-disable-next-line no-control-regex -- control characters are what must be absent
      expect(m.note).not.toMatch(/[\u0000-\u001f\u007f\u202a-\u202e]/);
    }, TEST_MS);

    it('args: credential-looking values are withheld unless recordArgs', async () => {
      const uuid = randomUUID().replace(/-/g, '');
      const args = ['--api-key', `key-${uuid}`, `--token=tok-${uuid}`, `DB_PASSWORD=pw-${uuid}`, `postgres://me:pg-${uuid}@db/x`, `ghp_${uuid}abcd`, '--verbose'];
      const { m } = await measure('normal', { runs: 1, extraArgs: args });
      expect(m.status).toBe('measured');
      const launch = stdioLaunch(m);
      expect(launch.args.slice(2)).toEqual(['--api-key', '[redacted]', '--token=[redacted]', 'DB_PASSWORD=[redacted]', 'postgres://me:[redacted]@db/x', '[redacted]', '--verbose']);
      expect(launch.argsRedacted).toBe(5);
      expect(measurementJson(m)).not.toContain(uuid);
      const recorded = await measure('normal', { runs: 1, extraArgs: args, recordArgs: true });
      expect(stdioLaunch(recorded.m).args.slice(2)).toEqual(args);
      expect(stdioLaunch(recorded.m).argsRedacted).toBe(0);
    }, TEST_MS);

    it('echo-env-exit: a failure whose recorded stderrTail is scrubbed of the env value', async () => {
      const canary = `canary-${randomUUID()}`;
      const { m } = await measure('echo-env-exit', { env: { CANARY_SECRET: canary } });
      expect(m.status).toBe('startup-failure');
      expect(m.note).toContain('exited with code 1');
      expect(m.stderrTail).toBeDefined();
      expect(m.stderrTail).toContain('the secret is [redacted:CANARY_SECRET]');
      expect(JSON.stringify(m)).not.toContain(canary);
      expect(m.launch.envNames).toContain('CANARY_SECRET');
    }, TEST_MS);
  });

  it('slow-to-count: counting that would overrun the budget ends as timeout at the counting step', async () => {
    // The catalog takes 4 to 5 s to count on a quiet machine of this kind (more when it is loaded,
    // as do the other steps); start, initialize and tools/list take a few hundred ms.
    const budget = 3_000;
    const { m, ms } = await measure('slow-to-count', { timeoutMs: budget, runs: 1 });
    expect(m.status).toBe('timeout');
    expect(m.attempts[0]?.error?.code).toBe('DEADLINE');
    expect(m.note).toContain(`counting the catalog's tokens did not finish within the ${budget} ms budget`);
    expect(ms).toBeLessThan(budget + 10_000); // the budget, a shutdown, and a loaded machine's slack
  }, 30_000);

  // Cases that mostly wait (for a deadline, a grace period, a process group) run side by side.
  describe.concurrent('waiting: deadlines, graces and process groups', () => {
    for (const { mode, firstId } of [
      { mode: 'wrong-id', firstId: '1001' },
      { mode: 'id-true', firstId: 'true' },
      { mode: 'id-string', firstId: '"1"' },
    ]) {
      it(`${mode}: timeout within the ${BUDGET_MS} ms budget, naming it and the stray id ${firstId}`, async () => {
        const { m, ms } = await measure(mode, { timeoutMs: BUDGET_MS });
        expect(m.status).toBe('timeout');
        expect(m.note).toContain(`${BUDGET_MS} ms`);
        expect(m.note).toContain('initialize');
        expect(m.note).toContain(`first id: ${firstId}`);
        expect(m.attempts).toHaveLength(1); // a failure ends the measurement: no second run
        expect(m.attempts[0]?.error?.code).toBe('DEADLINE');
        expect(ms).toBeGreaterThanOrEqual(BUDGET_MS - 5);
        expect(ms).toBeLessThan(BUDGET_MS + 1_500); // the budget, a shutdown, and slack
      }, TEST_MS);
    }

    it('deep-id: a stray response id nested 200,000 levels; a timeout whose note does not spell it out', async () => {
      const { m } = await measure('deep-id', { timeoutMs: BUDGET_MS });
      expect(m.status).toBe('timeout');
      expect(m.note).toContain('first id: (a value nested too deep to show)');
    }, TEST_MS);

    it('hang: timeout within budget', async () => {
      const { m, ms } = await measure('hang', { timeoutMs: BUDGET_MS });
      expect(m.status).toBe('timeout');
      expect(m.note).toContain(`${BUDGET_MS} ms`);
      expect(ms).toBeGreaterThanOrEqual(BUDGET_MS - 5);
      expect(ms).toBeLessThan(BUDGET_MS + 1_500);
    }, TEST_MS);

    it('trickle: timeout; the shared budget holds mid-frame', async () => {
      const { m, ms } = await measure('trickle', { timeoutMs: BUDGET_MS });
      expect(m.status).toBe('timeout');
      expect(m.note).toContain(`${BUDGET_MS} ms`);
      expect(ms).toBeLessThan(BUDGET_MS + 1_500);
    }, TEST_MS);

    it('grandchild: measured; the grandchild is gone (checked by the leak check below)', async () => {
      const { m } = await measure('grandchild');
      expect(m.status).toBe('measured');
      expect(m.toolCount).toBe(3);
    }, TEST_MS);

    it('ignore-sigterm: measured; the server is killed after the graces', async () => {
      const { m } = await measure('ignore-sigterm');
      expect(m.status).toBe('measured');
      expect(m.toolCount).toBe(3);
      expect(m.attempts).toHaveLength(2);
    }, TEST_MS);

    it('slow-start: measured', async () => {
      const { m } = await measure('slow-start');
      expect(m.status).toBe('measured');
      expect(m.toolCount).toBe(3);
    }, TEST_MS);
  });

  it('a command that does not exist: startup-failure, the note says it could not start', async () => {
    const started = performance.now();
    const m = await measureServer({
      name: 'missing',
      launch: { command: '/nonexistent/mcpctx-no-such-server', env: markedEnv() },
      timeoutMs: BUDGET_MS,
      transport: FAST,
    });
    expect(m.status).toBe('startup-failure');
    expect(m.note).toContain('could not start');
    expect(m.attempts[0]?.error?.code).toBe('SPAWN_FAILED');
    expect(performance.now() - started).toBeLessThan(BUDGET_MS);
  }, 10_000);

  it('leaves no marked process behind', async () => {
    expect(await waitForNoMarkedProcesses(5_000)).toEqual([]);
  }, 10_000);
});
