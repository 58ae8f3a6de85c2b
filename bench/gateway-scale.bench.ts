// The team gateway (issue 39): 64 official SDK clients (1.x, streamable HTTP) in closed loops
// against 1 instance reached directly, and 1, 2 and 4 instances behind Debian's haproxy routing by
// Mcp-Session-Id, every instance with --state in one real redis-server. Each client makes seven
// small echo calls, then one read_result of a result it offloaded at the start (a handle an instance
// stored in Redis), and again. Reported: calls per second, the median and p99 latency, the p99
// added against one instance reached directly, and how the instances' CPU time was spread (on this
// 2-core machine the point is that nothing serializes across instances, not absolute throughput).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort, haproxyPath, startHaproxy, type Balancer } from '../test/support/haproxy.js';
import { redisServerPath, startRedisServer, type RedisServer } from '../test/support/redis-server.js';
import { GATEWAY_CLI, RELAY_SERVER, endMarkedProcesses, launch, markEnv, schedTimesOf, until } from './_gateway-wire.js';
import { type BenchContext, type BenchReport, type Progress, median, percentile, round } from './_harness.js';

const CLIENTS = 64;
const WARMUP_MS = 3_000;
const MEASURE_MS = 12_000;
const ROUNDS = 2;
const CALL_TIMEOUT_MS = 30_000;
const KEY_VARIABLE = 'MCPCTX_BENCH_GATEWAY_KEY';
const BIG_TEXT = Array.from({ length: 200 }, (_, index) => `line ${index}: the quick brown fox jumps over the lazy dog`).join('\n');
const ARMS = [
  { name: 'direct1', label: '1 instance, direct', instances: 1, balanced: false },
  { name: 'haproxy1', label: '1 instance behind haproxy', instances: 1, balanced: true },
  { name: 'haproxy2', label: '2 instances behind haproxy', instances: 2, balanced: true },
  { name: 'haproxy4', label: '4 instances behind haproxy', instances: 4, balanced: true },
] as const;
type ArmName = (typeof ARMS)[number]['name'];

interface ArmRun {
  callsPerSecond: number;
  calls: number;
  samplesMs: number[];
  /** CPU time each instance used during the measured window, ms. */
  instanceCpuMs: number[];
}

interface Session {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly handle: string;
}

function textOf(result: unknown): string {
  return ((result as { content?: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join('');
}

async function openSession(url: string): Promise<Session> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'mcpctx-bench-team', version: '0' }, { capabilities: {} });
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  const offloaded = await client.callTool({ name: 'echo', arguments: { text: BIG_TEXT } }, undefined, { timeout: CALL_TIMEOUT_MS });
  const handle = (JSON.parse(textOf(offloaded)) as { handle?: unknown }).handle;
  if (typeof handle !== 'string') throw new Error(`no handle in ${textOf(offloaded).slice(0, 200)}`);
  return { client, transport, handle };
}

async function runArm(arm: (typeof ARMS)[number], redis: RedisServer, mark: string, dir: string, progress: Progress): Promise<ArmRun> {
  const balancerPort = await freePort();
  const config = join(dir, 'gateway.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { relay: { command: process.execPath, args: [RELAY_SERVER, '--name', 'team'], env: markEnv(mark) } }, capTokens: 300, offload: true }));
  const servers = Array.from({ length: arm.instances }, () =>
    launch(
      [GATEWAY_CLI, 'gateway', '--config', config, '--http', '127.0.0.1:0', '--state', redis.url, '--key-env', KEY_VARIABLE, '--allow-host', `127.0.0.1:${balancerPort}`, '--max-sessions', String(CLIENTS * 2)],
      mark,
      { [KEY_VARIABLE]: 'bench-team-gateway-key-0123456789' },
    ),
  );
  let balancer: Balancer | undefined;
  const sessions: Session[] = [];
  try {
    const urls: string[] = [];
    for (const server of servers) {
      await server.start();
      urls.push(await until(() => /listening on (http:\/\/\S+)/.exec(server.stderrTail)?.[1], 'mcpctx gateway --http', server));
    }
    if (arm.balanced) balancer = await startHaproxy(urls.map((url) => Number(new URL(url).port)), { port: balancerPort, env: { ...markEnv(mark), PATH: process.env.PATH ?? '' } });
    const url = balancer?.url ?? (urls[0] as string);
    // Sessions open a few at a time: each starts its own upstream process on its instance.
    for (let opened = 0; opened < CLIENTS; opened += 8) {
      sessions.push(...(await Promise.all(Array.from({ length: Math.min(8, CLIENTS - opened) }, () => openSession(url)))));
    }
    progress(`${arm.label}: ${sessions.length} sessions open`);
    const samples: number[] = [];
    let measuring = false;
    let calls = 0;
    let stop = false;
    const loop = async (session: Session, index: number): Promise<void> => {
      for (let call = index; !stop; call += 1) {
        const started = performance.now();
        const result =
          call % 8 === 7
            ? await session.client.callTool({ name: 'read_result', arguments: { handle: session.handle, query: 'from' } }, undefined, { timeout: CALL_TIMEOUT_MS })
            : await session.client.callTool({ name: 'echo', arguments: { text: `c${index}-${call}` } }, undefined, { timeout: CALL_TIMEOUT_MS });
        const elapsed = performance.now() - started;
        const expected = call % 8 === 7 ? '"team"' : `c${index}-${call}`;
        if (textOf(result) !== expected) throw new Error(`${arm.label}: expected ${expected}, got ${JSON.stringify(result).slice(0, 300)}`);
        if (measuring) {
          samples.push(elapsed);
          calls += 1;
        }
      }
    };
    const loops = sessions.map((session, index) => loop(session, index));
    await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
    const cpuBefore = servers.map((server) => schedTimesOf(server.pid)?.cpuMs ?? 0);
    measuring = true;
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, MEASURE_MS));
    measuring = false;
    const elapsedMs = performance.now() - started;
    const cpuAfter = servers.map((server) => schedTimesOf(server.pid)?.cpuMs ?? 0);
    stop = true;
    await Promise.all(loops);
    return { callsPerSecond: (calls / elapsedMs) * 1000, calls, samplesMs: samples, instanceCpuMs: cpuAfter.map((after, index) => after - (cpuBefore[index] ?? 0)) };
  } finally {
    await Promise.allSettled(sessions.map(async (session) => {
      await session.transport.terminateSession().catch(() => undefined);
      await session.client.close();
    }));
    await balancer?.stop();
    await Promise.allSettled(servers.map((server) => server.shutdown()));
  }
}

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  if (redisServerPath() === undefined || haproxyPath() === undefined) {
    throw new Error('gateway-scale needs Debian\'s redis-server and haproxy: apt-get install redis-server haproxy');
  }
  const mark = `bench-team-${randomUUID()}`;
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-bench-team-'));
  const redis = await startRedisServer({ env: { ...markEnv(mark), PATH: process.env.PATH ?? '' } });
  const runs = new Map<ArmName, ArmRun[]>(ARMS.map((arm) => [arm.name, []]));
  let survivors: Awaited<ReturnType<typeof endMarkedProcesses>>;
  try {
    for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex += 1) {
      // Alternate the order: a later arm meets a warmer machine.
      const order = roundIndex % 2 === 0 ? ARMS : [...ARMS].reverse();
      for (const arm of order) {
        progress(`round ${roundIndex + 1}/${ROUNDS}: ${arm.label}`);
        runs.get(arm.name)?.push(await runArm(arm, redis, mark, dir, progress));
      }
    }
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
    survivors = await endMarkedProcesses(mark);
  }
  if (survivors.length > 0) throw new Error(`${survivors.length} process(es) outlived the benchmark: ${survivors.map((survivor) => survivor.cmdline).join('; ')}`);
  const summary = ARMS.map((arm) => {
    const armRuns = runs.get(arm.name) ?? [];
    const samples = armRuns.flatMap((one) => one.samplesMs);
    const cpu = armRuns.map((one) => one.instanceCpuMs);
    const instanceCpuPerCall = median(armRuns.map((one) => one.instanceCpuMs.reduce((sum, value) => sum + value, 0) / Math.max(1, one.calls)));
    const busiestShare = median(cpu.map((perInstance) => Math.max(...perInstance) / Math.max(1, perInstance.reduce((sum, value) => sum + value, 0))));
    return {
      arm: arm.name,
      label: arm.label,
      instances: arm.instances,
      callsPerSecond: armRuns.map((one) => round(one.callsPerSecond, 1)),
      medianCallsPerSecond: round(median(armRuns.map((one) => one.callsPerSecond)), 1),
      p50Ms: round(percentile(samples, 0.5)),
      p99Ms: round(percentile(samples, 0.99)),
      calls: samples.length,
      instanceCpuMs: cpu.map((perInstance) => perInstance.map((value) => Math.round(value))),
      busiestInstanceCpuShare: round(busiestShare, 3),
      instanceCpuMsPerCall: round(instanceCpuPerCall, 3),
    };
  });
  const base = summary[0];
  if (base === undefined) throw new Error('no baseline');
  return {
    title: `team gateway: ${CLIENTS} SDK clients, 1 instance direct vs 1, 2 and 4 instances behind haproxy, state in Redis (${ROUNDS} rounds x ${MEASURE_MS / 1000} s)`,
    table: {
      columns: ['arm', 'calls/s (median of rounds)', 'vs 1 direct', 'p50 ms', 'p99 ms', 'p99 added vs 1 direct (ms)', 'busiest instance CPU share', 'instances CPU ms per call'],
      rows: summary.map((row) => [row.label, row.medianCallsPerSecond, round(row.medianCallsPerSecond / base.medianCallsPerSecond, 2), row.p50Ms, row.p99Ms, round(row.p99Ms - base.p99Ms), row.busiestInstanceCpuShare, row.instanceCpuMsPerCall]),
    },
    figures: { clients: CLIENTS, warmupMs: WARMUP_MS, measureMs: MEASURE_MS, rounds: ROUNDS, mix: '7 echo calls, then 1 read_result of an offloaded handle (Redis)', arms: summary },
    notes: [
      'Every instance runs with --state redis:// (one redis-server) and the same --key-env; haproxy sticks each session to its instance by Mcp-Session-Id (test/support/haproxy.ts).',
      'busiest instance CPU share: the largest share of the instances\' CPU time one instance used in the measured window (1/N when the load is spread evenly over N instances).',
      'instances CPU ms per call: the CPU time of all instances together in the measured window, per call served (the gateways\' own cost; the upstreams, haproxy, Redis and the clients are not in it).',
      'On 2 cores the clients, haproxy, Redis, the instances and 64 upstream processes share the same CPUs: more instances cannot add throughput here; the figures show whether anything serializes across instances.',
    ],
  };
}
