// Acceptance tests of the bounded stdio transport and the raw JSON-RPC client against every mode
// of the scripted server (test/servers/README.md): each ends in the right result or error, within
// its deadline, and leaves no process behind.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import {
  BoundedStdioTransport,
  DEFAULT_MAX_FRAME_BYTES,
  Deadline,
  RawClient,
  initialize,
  listAllTools,
  type ExitStatus,
  type LaunchSpec,
  type RawClientOptions,
  type StdioTransportOptions,
} from '../../src/mcp/index.js';
import { SCRIPTED_SERVER, isPidAlive, markedEnv, pollUntil, waitForNoMarkedProcesses } from '../support/processes.js';

const MiB = 1024 * 1024;
/** Short graces for servers that do not exit on stdin end by themselves. */
const FAST: StdioTransportOptions = { exitGraceMs: 300, termGraceMs: 300 };
/** A budget for operations that should succeed: generous, so a loaded machine does not fail them. */
const GENEROUS_MS = 15_000;
/** Budget of the tests that are about a deadline firing. */
const BUDGET_MS = 1_000;
/**
 * How late a fired deadline may be observed. Generous on purpose: on a loaded 2-core machine the
 * event loop can lag by seconds, and every case below would otherwise wait far longer (forever,
 * or the 20 s a trickled reply takes), so any figure under this still proves the deadline fired.
 */
const LATE_TIMER_MS = 5_000;
/** Per-test timeout (vitest) of an ordinary case. */
const TEST_MS = 20_000;

const TOOLS_LIST_LINE_PREFIX = '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"broken_text","description":"before ';

interface Tool {
  name: string;
  description?: string;
}

interface Session {
  transport: BoundedStdioTransport;
  client: RawClient;
}

interface SessionOptions {
  transport?: StdioTransportOptions;
  client?: RawClientOptions;
  env?: Record<string, string>;
}

function launch(mode: string, env: Record<string, string> = {}): LaunchSpec {
  return { command: process.execPath, args: [SCRIPTED_SERVER, mode], env: markedEnv(env) };
}

/**
 * Starts the server in `mode`, runs `body`, and always shuts the server down; then checks the
 * server process is gone. Returns what `body` returned and the exit status `shutdown()` gave.
 */
async function withServer<T>(
  mode: string,
  options: SessionOptions,
  body: (session: Session) => Promise<T>,
): Promise<{ value: T; exit: ExitStatus; pid: number }> {
  const transport = new BoundedStdioTransport(launch(mode, options.env), options.transport);
  const client = new RawClient(transport, options.client);
  let value: T;
  let exit: ExitStatus;
  try {
    await client.start();
    value = await body({ transport, client });
  } finally {
    exit = await transport.shutdown();
  }
  const pid = transport.pid;
  if (pid === undefined) throw new Error('the transport has no pid after a successful start');
  expect(isPidAlive(pid)).toBe(false);
  return { value, exit, pid };
}

/** The McpctxError `promise` rejects with (anything else fails the test). */
async function rejectionOf(promise: Promise<unknown>): Promise<McpctxError> {
  const outcome = await promise.then(
    () => new Error('expected a rejection, but the promise resolved'),
    (error: unknown) => error,
  );
  if (!(outcome instanceof McpctxError)) throw outcome instanceof Error ? outcome : new Error(String(outcome));
  return outcome;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

function names(tools: readonly unknown[]): string[] {
  return tools.map((tool) => (tool as Tool).name);
}

async function handshake(client: RawClient, budgetMs = GENEROUS_MS, capabilities: Record<string, unknown> = {}) {
  return initialize(client, { deadline: new Deadline(budgetMs, 'test'), capabilities });
}


describe('scripted server over BoundedStdioTransport + RawClient', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(5_000)).toEqual([]);
  });

  it('normal: 3 tools in server order; the server exits 0 at stdin end', async () => {
    const { value, exit } = await withServer('normal', {}, async ({ client, transport }) => {
      const outcome = await handshake(client);
      const pages = await listAllTools(client, { deadline: new Deadline(GENEROUS_MS) });
      expect(transport.nonJsonLines).toEqual({ count: 0 });
      expect(client.strayResponses).toEqual({ count: 0 });
      return { outcome, pages };
    });
    expect(value.outcome.requestedProtocolVersion).toBe('2025-11-25');
    expect(value.outcome.negotiatedProtocolVersion).toBe('2025-11-25');
    expect(value.outcome.serverInfo).toEqual({ name: 'scripted-server', version: '1.0.0' });
    expect(value.pages.pageCount).toBe(1);
    expect(names(value.pages.tools)).toEqual(['get_weather', 'search_docs', 'echo']);
    expect(exit).toEqual({ code: 0, signal: null });
  }, TEST_MS);

  it('pages3: 7 tools over 3 pages in server order; nextCursor null ends paging', async () => {
    const { value } = await withServer('pages3', {}, async ({ client }) => {
      await handshake(client);
      return listAllTools(client, { deadline: new Deadline(GENEROUS_MS) });
    });
    expect(value.pageCount).toBe(3);
    expect(names(value.tools)).toEqual([
      'get_weather',
      'search_docs',
      'echo',
      'list_issues',
      'get_issue',
      'close_issue',
      'get_file',
    ]);
  }, TEST_MS);

  it('cursor-loop: CURSOR_LOOP on the repeated cursor', async () => {
    const { value: error } = await withServer('cursor-loop', {}, async ({ client }) => {
      await handshake(client);
      return rejectionOf(listAllTools(client, { deadline: new Deadline(GENEROUS_MS) }));
    });
    expect(error.code).toBe('CURSOR_LOOP');
    expect(error.data).toMatchObject({ cursor: 'a', page: 3 });
  }, TEST_MS);

  it('old-version: the older version the server answered is recorded, not replaced', async () => {
    const { value } = await withServer('old-version', {}, async ({ client }) => {
      const outcome = await handshake(client);
      const pages = await listAllTools(client, { deadline: new Deadline(GENEROUS_MS) });
      return { outcome, pages };
    });
    expect(value.outcome.requestedProtocolVersion).toBe('2025-11-25');
    expect(value.outcome.negotiatedProtocolVersion).toBe('2024-11-05');
    expect(value.pages.tools).toHaveLength(3);
  }, TEST_MS);

  it('version-refusal: RPC_ERROR -32602 carrying the supported versions', async () => {
    const { value: error } = await withServer('version-refusal', {}, async ({ client }) => rejectionOf(handshake(client)));
    expect(error.code).toBe('RPC_ERROR');
    expect(error.data).toMatchObject({ method: 'initialize', rpcCode: -32602 });
    expect(error.data.rpcData).toEqual({ supported: ['2024-11-05'], requested: '2025-11-25' });
    expect(error.message).toContain('Unsupported protocol version');
  }, TEST_MS);

  it('oversized-frame: FRAME_TOO_LARGE at the default 16 MiB limit, well before the deadline', async () => {
    const budgetMs = 10_000;
    const { value } = await withServer('oversized-frame', { transport: FAST }, async ({ client, transport }) => {
      await handshake(client);
      const { value: error, ms } = await timed(() => rejectionOf(listAllTools(client, { deadline: new Deadline(budgetMs) })));
      return { error, ms, failure: transport.failure };
    });
    expect(value.error.code).toBe('FRAME_TOO_LARGE');
    expect(value.error.data.limitBytes).toBe(DEFAULT_MAX_FRAME_BYTES);
    expect(DEFAULT_MAX_FRAME_BYTES).toBe(16 * MiB);
    expect(value.error.data.receivedBytes).toBeGreaterThan(16 * MiB);
    expect(value.failure).toBe(value.error);
    expect(value.ms).toBeLessThan(budgetMs / 2);
  }, TEST_MS);

  it('endless-line: FRAME_TOO_LARGE (line not ended) at 16 MiB, long before the 64 MiB the server would send', async () => {
    const { value } = await withServer('endless-line', { transport: FAST }, async ({ client }) => {
      await handshake(client);
      const { value: error, ms } = await timed(() => rejectionOf(listAllTools(client, { deadline: new Deadline(GENEROUS_MS) })));
      return { error, ms };
    });
    expect(value.error.code).toBe('FRAME_TOO_LARGE');
    expect(value.error.data.lineEnded).toBe(false);
    expect(value.error.data.limitBytes).toBe(16 * MiB);
    const received = value.error.data.receivedBytes as number;
    expect(received).toBeGreaterThan(16 * MiB);
    expect(received).toBeLessThan(17 * MiB); // refused as the line grew, not after 64 MiB
    expect(value.ms).toBeLessThan(GENEROUS_MS);
  }, TEST_MS);

  it('endless-line with maxFrameBytes 1 MiB: FRAME_TOO_LARGE just past 1 MiB', async () => {
    const { value: error } = await withServer(
      'endless-line',
      { transport: { ...FAST, maxFrameBytes: MiB } },
      async ({ client }) => {
        await handshake(client);
        return rejectionOf(listAllTools(client, { deadline: new Deadline(GENEROUS_MS) }));
      },
    );
    expect(error.code).toBe('FRAME_TOO_LARGE');
    expect(error.data).toMatchObject({ limitBytes: MiB, lineEnded: false });
    expect(error.data.receivedBytes as number).toBeGreaterThan(MiB);
    expect(error.data.receivedBytes as number).toBeLessThan(2 * MiB);
  }, TEST_MS);

  it('stdout-log: the non-JSON line is counted and kept, then the server works normally', async () => {
    const { value } = await withServer('stdout-log', {}, async ({ client, transport }) => {
      await handshake(client);
      const pages = await listAllTools(client, { deadline: new Deadline(GENEROUS_MS) });
      return { pages, nonJson: transport.nonJsonLines };
    });
    expect(value.pages.tools).toHaveLength(3);
    expect(value.nonJson).toEqual({ count: 1, first: 'scripted-server listening on stdio (log line)' });
  }, TEST_MS);

  it('invalid-utf8: INVALID_FRAME pointing at the bad bytes, not a silent replacement', async () => {
    const { value: error } = await withServer('invalid-utf8', {}, async ({ client }) => {
      await handshake(client);
      return rejectionOf(listAllTools(client, { deadline: new Deadline(GENEROUS_MS) }));
    });
    expect(error.code).toBe('INVALID_FRAME');
    const badAt = Buffer.byteLength(TOOLS_LIST_LINE_PREFIX);
    expect(error.data.offset as number).toBeGreaterThanOrEqual(badAt);
    expect(error.data.offset as number).toBeLessThanOrEqual(badAt + 3);
  }, TEST_MS);


  it('stderr-flood: 1 MiB of stderr is drained into an 8 KB tail; results are normal', async () => {
    const { value } = await withServer('stderr-flood', {}, async ({ client, transport }) => {
      await handshake(client);
      const pages = await listAllTools(client, { deadline: new Deadline(GENEROUS_MS) });
      return { pages, tail: transport.stderrTail, bytes: transport.stderrBytes };
    });
    expect(value.pages.tools).toHaveLength(3);
    expect(Buffer.byteLength(value.tail, 'utf8')).toBeLessThanOrEqual(8 * 1024);
    expect(value.tail.length).toBeGreaterThan(0);
    expect(value.tail.trimEnd().endsWith('stderr-flood-end-marker')).toBe(true);
    expect(value.bytes).toBeGreaterThanOrEqual(MiB);
  }, TEST_MS);

  it('notification-flood: TOO_MANY_NOTIFICATIONS (bound 64) long before the 1,000th', async () => {
    const budgetMs = 10_000;
    const { value } = await withServer('notification-flood', {}, async ({ client }) => {
      const { value: error, ms } = await timed(() => rejectionOf(handshake(client, budgetMs)));
      return { error, ms };
    });
    expect(value.error.code).toBe('TOO_MANY_NOTIFICATIONS');
    expect(value.error.data).toMatchObject({ limit: 64, method: 'initialize' });
    expect(value.ms).toBeLessThan(budgetMs / 2);
  }, TEST_MS);

  it('early-exit: TRANSPORT_CLOSED; exit code 3 and the fatal message in the stderr tail', async () => {
    const { value, exit } = await withServer('early-exit', {}, async ({ client, transport }) => {
      const error = await rejectionOf(handshake(client));
      return { error, transport };
    });
    expect(value.error.code).toBe('TRANSPORT_CLOSED');
    expect(exit).toEqual({ code: 3, signal: null });
    expect(value.transport.exit).toEqual({ code: 3, signal: null });
    expect(value.transport.stderrTail).toContain('fatal: could not read config file /etc/scripted/config.toml');
  }, TEST_MS);

  it('auth-missing: exits 1 naming the missing variable on stderr', async () => {
    const { value: transport, exit } = await withServer('auth-missing', {}, async ({ client, transport }) => {
      expect((await rejectionOf(handshake(client))).code).toBe('TRANSPORT_CLOSED');
      return transport;
    });
    expect(exit).toEqual({ code: 1, signal: null });
    expect(transport.stderrTail).toContain('GITHUB_PERSONAL_ACCESS_TOKEN environment variable is not set');
  }, TEST_MS);

  it('auth-error-reply: tools/list fails with RPC_ERROR -32001', async () => {
    const { value: error } = await withServer('auth-error-reply', {}, async ({ client }) => {
      await handshake(client);
      return rejectionOf(listAllTools(client, { deadline: new Deadline(GENEROUS_MS) }));
    });
    expect(error.code).toBe('RPC_ERROR');
    expect(error.data).toMatchObject({ method: 'tools/list', rpcCode: -32001 });
    expect(error.data.rpcMessage).toContain('Unauthorized');
  }, TEST_MS);

  it('dynamic: two launches differ, one launch is self-consistent', async () => {
    const listTwice = async () =>
      (
        await withServer('dynamic', {}, async ({ client }) => {
          await handshake(client);
          const deadline = new Deadline(GENEROUS_MS);
          const first = await listAllTools(client, { deadline });
          const second = await listAllTools(client, { deadline });
          return [first.tools, second.tools];
        })
      ).value;
    const [runA, runB] = [await listTwice(), await listTwice()];
    expect(runA[1]).toEqual(runA[0]);
    expect(runB[1]).toEqual(runB[0]);
    expect(runA[0]).not.toEqual(runB[0]);
    expect(names(runA[0] ?? [])).toEqual(['get_weather', 'search_docs', 'echo']);
  }, TEST_MS);

  describe('many-tools', () => {
    it('all 5,000 tools over 50 pages, in order', async () => {
      const { value } = await withServer('many-tools', {}, async ({ client }) => {
        await handshake(client);
        return listAllTools(client, { deadline: new Deadline(GENEROUS_MS) });
      });
      expect(value.pageCount).toBe(50);
      expect(names(value.tools)).toEqual(Array.from({ length: 5000 }, (_, i) => `tool_${String(i).padStart(5, '0')}`));
    }, TEST_MS);

    it('maxTools 4000: TOO_MANY_TOOLS', async () => {
      const { value: error } = await withServer('many-tools', {}, async ({ client }) => {
        await handshake(client);
        return rejectionOf(listAllTools(client, { deadline: new Deadline(GENEROUS_MS), maxTools: 4000 }));
      });
      expect(error.code).toBe('TOO_MANY_TOOLS');
      expect(error.data).toMatchObject({ limit: 4000 });
    }, TEST_MS);

    it('maxPages 10: TOO_MANY_PAGES', async () => {
      const { value: error } = await withServer('many-tools', {}, async ({ client }) => {
        await handshake(client);
        return rejectionOf(listAllTools(client, { deadline: new Deadline(GENEROUS_MS), maxPages: 10 }));
      });
      expect(error.code).toBe('TOO_MANY_PAGES');
      expect(error.data).toMatchObject({ limit: 10 });
    }, TEST_MS);
  });

  describe('client-requests', () => {
    async function clientReplies(rootsDeclared: boolean): Promise<Record<string, unknown>> {
      const { value } = await withServer('client-requests', { client: { rootsDeclared } }, async ({ client }) => {
        // The server waits up to 5 s for the replies: answered at once, initialize is quick.
        const { ms } = await timed(() => handshake(client, GENEROUS_MS, rootsDeclared ? { roots: {} } : {}));
        expect(ms).toBeLessThan(4_000);
        const pages = await listAllTools(client, { deadline: new Deadline(GENEROUS_MS) });
        const tool = pages.tools.find((candidate) => (candidate as Tool).name === 'client_replies') as Tool | undefined;
        return JSON.parse(tool?.description ?? 'null') as Record<string, unknown>;
      });
      return value;
    }

    it('roots declared: ping {}, roots/list {roots: []}, sampling -32601', async () => {
      const replies = await clientReplies(true);
      expect(replies).not.toHaveProperty('missing');
      expect(replies['srv-ping']).toEqual({ jsonrpc: '2.0', id: 'srv-ping', result: {} });
      expect(replies['srv-roots']).toEqual({ jsonrpc: '2.0', id: 'srv-roots', result: { roots: [] } });
      expect(replies['srv-sampling']).toMatchObject({ id: 'srv-sampling', error: { code: -32601 } });
    }, TEST_MS);

    it('roots not declared: roots/list -32601', async () => {
      const replies = await clientReplies(false);
      expect(replies).not.toHaveProperty('missing');
      expect(replies['srv-ping']).toMatchObject({ result: {} });
      expect(replies['srv-roots']).toMatchObject({ id: 'srv-roots', error: { code: -32601 } });
      expect(replies['srv-sampling']).toMatchObject({ error: { code: -32601 } });
    }, TEST_MS);
  });

  it('echo-env: the launch env reaches the server, and the stderr tail carries only its name', async () => {
    const canary = `canary-${randomUUID()}`;
    const { value } = await withServer('echo-env', { env: { CANARY_SECRET: canary } }, async ({ client, transport }) => {
      await handshake(client);
      await listAllTools(client, { deadline: new Deadline(GENEROUS_MS) });
      return transport.stderrTail;
    });
    // The marker stands where the server wrote the value: proof it arrived, without the value.
    expect(value).toContain('the secret is [redacted:CANARY_SECRET]');
    expect(value).not.toContain(canary);
  }, TEST_MS);

  it('echo-env-exit: exits 1 after printing the env value', async () => {
    const canary = `canary-${randomUUID()}`;
    const { value: transport, exit } = await withServer(
      'echo-env-exit',
      { env: { CANARY_SECRET: canary } },
      async ({ client, transport }) => {
        expect((await rejectionOf(handshake(client))).code).toBe('TRANSPORT_CLOSED');
        return transport;
      },
    );
    expect(exit).toEqual({ code: 1, signal: null });
    expect(transport.stderrTail).toContain('the secret is [redacted:CANARY_SECRET]');
    expect(transport.stderrTail).not.toContain(canary);
  }, TEST_MS);

  it('slow-start: answers ~300 ms late, normally', async () => {
    const { value } = await withServer('slow-start', {}, async ({ client }) => {
      const { ms } = await timed(() => handshake(client));
      const pages = await listAllTools(client, { deadline: new Deadline(GENEROUS_MS) });
      return { ms, pages };
    });
    expect(value.ms).toBeGreaterThanOrEqual(250);
    expect(value.pages.tools).toHaveLength(3);
  }, TEST_MS);

  it('the SDK Client works over BoundedStdioTransport', async () => {
    const transport = new BoundedStdioTransport(launch('normal'));
    const client = new Client({ name: 'test', version: '1' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['get_weather', 'search_docs', 'echo']);
      await client.close();
      expect(transport.exit).toEqual({ code: 0, signal: null });
    } finally {
      await transport.shutdown();
    }
    expect(isPidAlive(transport.pid ?? -1)).toBe(false);
  }, TEST_MS);

  it('SPAWN_FAILED for a command that does not exist; shutdown still settles', async () => {
    const transport = new BoundedStdioTransport(
      { command: '/nonexistent/mcpctx-no-such-server', env: markedEnv() },
      FAST,
    );
    try {
      const error = await rejectionOf(transport.start());
      expect(error.code).toBe('SPAWN_FAILED');
      expect(error.message).toContain('could not start');
      expect(error.data.errno).toBe('ENOENT');
    } finally {
      // A transport that never started a process must still close (and not wait forever).
      const closed = await Promise.race([
        transport.shutdown().then(() => 'closed'),
        new Promise((resolve) => setTimeout(() => resolve('still waiting after 3 s'), 3_000)),
      ]);
      expect(closed).toBe('closed');
    }
  }, 10_000);

  // Cases that mostly wait (for a deadline, a grace period, a process group) run side by side.
  describe.concurrent('waiting: deadlines, graces and process groups', () => {
    for (const { mode, firstId } of [
      { mode: 'wrong-id', firstId: 1001 as unknown },
      { mode: 'id-true', firstId: true as unknown },
      { mode: 'id-string', firstId: '1' as unknown },
    ]) {
      it(`${mode}: request 1 is left unanswered: DEADLINE within budget, stray reply id ${JSON.stringify(firstId)}`, async () => {
        const { value } = await withServer(mode, {}, async ({ client }) => {
          const { value: error, ms } = await timed(() => rejectionOf(handshake(client, BUDGET_MS)));
          return { error, ms, stray: client.strayResponses };
        });
        expect(value.error.code).toBe('DEADLINE');
        expect(value.error.data).toMatchObject({ budgetMs: BUDGET_MS, waitingFor: 'a response to initialize' });
        expect(value.ms).toBeGreaterThanOrEqual(BUDGET_MS - 5);
        expect(value.ms).toBeLessThanOrEqual(BUDGET_MS + LATE_TIMER_MS);
        expect(value.stray.count).toBeGreaterThanOrEqual(1);
        expect(value.stray.firstId).toStrictEqual(firstId);
      }, TEST_MS);
    }

    it('hang: DEADLINE within budget; shutdown ends the server with SIGTERM', async () => {
      const { value, exit } = await withServer('hang', { transport: FAST }, async ({ client }) =>
        timed(() => rejectionOf(handshake(client, BUDGET_MS))),
      );
      expect(value.value.code).toBe('DEADLINE');
      expect(value.ms).toBeGreaterThanOrEqual(BUDGET_MS - 5);
      expect(value.ms).toBeLessThanOrEqual(BUDGET_MS + LATE_TIMER_MS);
      expect(exit).toEqual({ code: null, signal: 'SIGTERM' });
    }, TEST_MS);

    it('trickle: the shared 1,500 ms deadline fires mid-frame (not after the 20 s the reply takes)', async () => {
      const budgetMs = 1_500;
      const { value } = await withServer('trickle', { transport: FAST }, async ({ client }) =>
        timed(() => rejectionOf(handshake(client, budgetMs))),
      );
      expect(value.value.code).toBe('DEADLINE');
      expect(value.value.data.budgetMs).toBe(budgetMs);
      expect(value.ms).toBeGreaterThanOrEqual(budgetMs - 5);
      expect(value.ms).toBeLessThanOrEqual(budgetMs + LATE_TIMER_MS); // the whole reply takes 20 s
    }, TEST_MS);

    it('trickle: a deadline shared by two requests is not renewed by the second', async () => {
      const budgetMs = 1_500;
      const { value } = await withServer('trickle', { transport: FAST }, async ({ client }) => {
        const deadline = new Deadline(budgetMs, 'shared');
        const settledAt = (promise: Promise<McpctxError>): Promise<{ error: McpctxError; at: number }> =>
          promise.then((error) => ({ error, at: performance.now() }));
        const first = settledAt(rejectionOf(client.request('ping', undefined, deadline)));
        await new Promise((resolve) => setTimeout(resolve, 700));
        const second = settledAt(rejectionOf(client.request('ping', undefined, deadline)));
        return Promise.all([first, second]);
      });
      expect(value.map(({ error }) => error.code)).toEqual(['DEADLINE', 'DEADLINE']);
      // Both timers are due at the same instant; a renewed deadline would end the second 700 ms later.
      expect(Math.abs((value[1]?.at ?? 0) - (value[0]?.at ?? 0))).toBeLessThan(500);
    }, TEST_MS);
    it('grandchild: shutdown kills the sleep the server left in its process group', async () => {
      const { value: sleepPid } = await withServer('grandchild', {}, async ({ client, transport }) => {
        await handshake(client); // stdin is read only after the grandchild is started and logged
        expect(await pollUntil(() => /grandchild pid \d+/.test(transport.stderrTail), 10_000)).toBe(true);
        const pid = Number(/grandchild pid (\d+)/.exec(transport.stderrTail)?.[1]);
        expect(isPidAlive(pid)).toBe(true);
        return pid;
      });
      expect(await pollUntil(() => !isPidAlive(sleepPid), 10_000)).toBe(true);
    }, TEST_MS);

    it('ignore-sigterm: shutdown with the default graces escalates to SIGKILL', async () => {
      const { value, exit } = await withServer('ignore-sigterm', {}, async ({ client }) => {
        await handshake(client);
        return listAllTools(client, { deadline: new Deadline(GENEROUS_MS) });
      });
      expect(value.tools).toHaveLength(3);
      expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
    }, TEST_MS);

    it('shutdown is idempotent: every call resolves to the same status', async () => {
      const transport = new BoundedStdioTransport(launch('ignore-sigterm'), FAST);
      try {
        const client = new RawClient(transport);
        await client.start();
        // Only a server that has answered has installed its SIGTERM handler; on a loaded machine
        // a SIGTERM sent before that would kill it and the test would not be about escalation.
        await handshake(client);
        const [a, b] = await Promise.all([transport.shutdown(), transport.shutdown()]);
        expect(a).toEqual({ code: null, signal: 'SIGKILL' });
        expect(b).toBe(a);
        expect(await transport.shutdown()).toBe(a);
      } finally {
        await transport.shutdown();
      }
      expect(isPidAlive(transport.pid ?? -1)).toBe(false);
    }, TEST_MS);
  });

  it('leaves no marked process behind', async () => {
    expect(await waitForNoMarkedProcesses(5_000)).toEqual([]);
  }, 10_000);
});
