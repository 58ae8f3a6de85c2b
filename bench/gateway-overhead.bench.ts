// The latency `mcpctx gateway` adds to a small call as a real client sees it (issue 31, item 9):
// the official SDK client (@modelcontextprotocol/sdk 1.x, Client + StdioClientTransport /
// StreamableHTTPClientTransport) calling relay-server's `echo` directly, through a bare Node pipe
// relay, through the gateway over stdio and through the gateway's HTTP front, interleaved round by
// round in one run, so that all four see the same machine load.
//
// MCPCTX_BENCH_CPU_PROF=<dir> starts both gateway processes under `node --cpu-prof` and leaves
// their profiles in <dir> (written when they exit) for `--cpu-prof` readers (Chrome DevTools).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  GATEWAY_CLI,
  PIPE_RELAY,
  RELAY_SERVER,
  type SchedTimes,
  endMarkedProcesses,
  gatewayUpstream,
  launch,
  markEnv,
  schedTimesOf,
  until,
} from './_gateway-wire.js';
import { type BenchContext, type BenchReport, type Progress, median, percentile, round } from './_harness.js';

const WARMUP_ROUNDS = 200;
/** Measured calls per arm: with 2,000 the p99 rests on the 20 slowest, enough to repeat within a few tenths of a ms. */
const ROUNDS = 2_000;
const CALL_TIMEOUT_MS = 10_000;
const START_TIMEOUT_MS = 30_000;
const CLIENT_INFO = { name: 'mcpctx-bench-sdk', version: '0' };
/** Issue 31: the gateway over stdio adds at most 1.5x what a bare pipe relay adds, p99 at most 2 ms more; the HTTP front at most 1 ms. */
const GOALS = { stdioMedianToPipe: 1.5, stdioP99AddedMs: 2, httpMedianAddedMs: 1 };
const DISTRIBUTION = [0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999];
const PROFILE_DIR_VARIABLE = 'MCPCTX_BENCH_CPU_PROF';

/** One way the SDK client reaches the echo tool. */
interface Arm {
  readonly label: string;
  readonly client: Client;
  /** The process the client talks to, whose scheduler times are read. */
  readonly pid: () => number | undefined;
  close(): Promise<void>;
}

const ARM_NAMES = ['direct', 'pipeRelay', 'gatewayStdio', 'gatewayHttp'] as const;
type ArmName = (typeof ARM_NAMES)[number];

function nodeArgs(): string[] {
  const dir = process.env[PROFILE_DIR_VARIABLE];
  if (dir === undefined || dir === '') return [];
  mkdirSync(resolve(dir), { recursive: true });
  return ['--cpu-prof', '--cpu-prof-dir', resolve(dir)];
}

async function connected(label: string, transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  await client.connect(transport, { timeout: START_TIMEOUT_MS });
  // Every client lists before it calls; it also makes the SDK validate results against outputSchema.
  const { tools } = await client.listTools(undefined, { timeout: START_TIMEOUT_MS });
  if (!tools.some((tool) => tool.name === 'echo')) throw new Error(`${label}: no echo tool in ${tools.map((tool) => tool.name).join(', ')}`);
  return client;
}

async function stdioArm(label: string, args: readonly string[], mark: string): Promise<Arm> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [...args], env: markEnv(mark), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-2_000);
  });
  try {
    const client = await connected(label, transport);
    return { label, client, pid: () => transport.pid ?? undefined, close: () => client.close() };
  } catch (error) {
    await transport.close();
    throw new Error(`${label}: ${(error as Error).message}; stderr: ${stderr}`, { cause: error });
  }
}

async function gatewayHttpArm(mark: string): Promise<Arm> {
  const label = 'gateway (HTTP front)';
  const server = launch([...nodeArgs(), GATEWAY_CLI, 'gateway', '--http', '127.0.0.1:0', ...gatewayUpstream(mark)], mark);
  try {
    await server.start();
    const url = await until(() => /listening on (http:\/\/\S+)/.exec(server.stderrTail)?.[1], 'mcpctx gateway --http', server);
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = await connected(label, transport);
    return {
      label,
      client,
      pid: () => server.pid,
      close: async () => {
        // The SDK's close() sends no DELETE: end the session the way a tidy client would, then the process.
        await transport.terminateSession().catch(() => undefined);
        await client.close();
        // SIGTERM is the gateway's clean stop, so a CPU profile is written.
        await server.shutdown();
      },
    };
  } catch (error) {
    await server.shutdown();
    throw error;
  }
}

const OPENERS: Record<ArmName, (mark: string) => Promise<Arm>> = {
  direct: (mark) => stdioArm('direct (stdio)', [RELAY_SERVER], mark),
  pipeRelay: (mark) => stdioArm('bare Node pipe relay (stdio)', [PIPE_RELAY, '--', process.execPath, RELAY_SERVER], mark),
  gatewayStdio: (mark) => stdioArm('gateway (stdio)', [...nodeArgs(), GATEWAY_CLI, 'gateway', ...gatewayUpstream(mark)], mark),
  gatewayHttp: gatewayHttpArm,
};

interface Measured {
  label: string;
  samplesMs: number[];
  perCall: SchedTimes | undefined;
}

function echoedText(result: unknown): unknown {
  return (result as { content?: Array<{ text?: unknown }> } | undefined)?.content?.[0]?.text;
}

/** Every round calls each arm once, one call in flight in the whole process, the order rotated every round. */
async function measure(arms: Record<ArmName, Arm>, progress: Progress): Promise<Record<ArmName, Measured>> {
  const samples = Object.fromEntries(ARM_NAMES.map((name) => [name, [] as number[]])) as Record<ArmName, number[]>;
  const schedAtStart = {} as Record<ArmName, SchedTimes | undefined>;
  for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round += 1) {
    if (round % 500 === 0) progress(`round ${round}/${WARMUP_ROUNDS + ROUNDS}`);
    if (round === WARMUP_ROUNDS) for (const name of ARM_NAMES) schedAtStart[name] = schedTimesOf(arms[name].pid());
    for (let step = 0; step < ARM_NAMES.length; step += 1) {
      const name = ARM_NAMES[(round + step) % ARM_NAMES.length] as ArmName;
      const text = `call ${round}`;
      const started = performance.now();
      const result = await arms[name].client.callTool({ name: 'echo', arguments: { text } }, undefined, { timeout: CALL_TIMEOUT_MS });
      const elapsed = performance.now() - started;
      if (echoedText(result) !== text) throw new Error(`${arms[name].label}: ${text} echoed ${JSON.stringify(result).slice(0, 200)}`);
      if (round >= WARMUP_ROUNDS) samples[name].push(elapsed);
    }
  }
  const measured = {} as Record<ArmName, Measured>;
  for (const name of ARM_NAMES) {
    const start = schedAtStart[name];
    const end = schedTimesOf(arms[name].pid());
    measured[name] = {
      label: arms[name].label,
      samplesMs: samples[name],
      perCall: start === undefined || end === undefined ? undefined : { cpuMs: (end.cpuMs - start.cpuMs) / ROUNDS, runQueueMs: (end.runQueueMs - start.runQueueMs) / ROUNDS },
    };
  }
  return measured;
}

/** Opens every arm, measures, and ends every process of the run, whatever happens. */
async function measuredRun(progress: Progress): Promise<Record<ArmName, Measured>> {
  const mark = `bench-gateway-overhead-${randomUUID()}`;
  const opened: Arm[] = [];
  let measured: Record<ArmName, Measured>;
  let survivors: Awaited<ReturnType<typeof endMarkedProcesses>>;
  try {
    const arms = {} as Record<ArmName, Arm>;
    for (const name of ARM_NAMES) {
      progress(`starting ${name}`);
      arms[name] = await OPENERS[name](mark);
      opened.push(arms[name]);
    }
    measured = await measure(arms, progress);
  } finally {
    await Promise.all(opened.map((arm) => arm.close().catch(() => undefined)));
    survivors = await endMarkedProcesses(mark);
  }
  if (survivors.length > 0) throw new Error(`processes outlived the benchmark (killed now): ${survivors.map((p) => `${p.pid} ${p.cmdline}`).join('; ')}`);
  return measured;
}

const ms = (value: number): number => round(value, 3);
/** An added time with its sign: +0.12, -0.05. */
const signed = (value: number): string => `${value < 0 ? '-' : '+'}${Math.abs(ms(value))}`;
const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  if (!existsSync(GATEWAY_CLI)) throw new Error('dist/cli/main.js is missing: run `npm run build` first (the gateway is started as the CLI)');
  const measured = await measuredRun(progress);
  const direct = measured.direct;
  const added = (name: ArmName) => ({
    medianMs: median(measured[name].samplesMs) - median(direct.samplesMs),
    p99Ms: percentile(measured[name].samplesMs, 0.99) - percentile(direct.samplesMs, 0.99),
    // Each round's call minus the direct call of the same round: the load both met.
    pairedMedianMs: median(measured[name].samplesMs.map((value, index) => value - (direct.samplesMs[index] ?? Number.NaN))),
  });
  const addedBy = { pipeRelay: added('pipeRelay'), gatewayStdio: added('gatewayStdio'), gatewayHttp: added('gatewayHttp') };
  // A pipe relay that added nothing measurable (its median at or under direct's) gives no ratio: the goal is then missed.
  const stdioRatio = addedBy.pipeRelay.medianMs > 0 ? addedBy.gatewayStdio.medianMs / addedBy.pipeRelay.medianMs : null;
  const goals = {
    stdioMedian: { goal: `added median <= ${GOALS.stdioMedianToPipe}x the pipe relay's`, value: stdioRatio === null ? null : round(stdioRatio, 2), met: stdioRatio !== null && stdioRatio <= GOALS.stdioMedianToPipe },
    stdioP99: { goal: `added p99 <= ${GOALS.stdioP99AddedMs} ms`, value: ms(addedBy.gatewayStdio.p99Ms), met: addedBy.gatewayStdio.p99Ms <= GOALS.stdioP99AddedMs },
    httpMedian: { goal: `HTTP front added median <= ${GOALS.httpMedianAddedMs} ms`, value: ms(addedBy.gatewayHttp.medianMs), met: addedBy.gatewayHttp.medianMs <= GOALS.httpMedianAddedMs },
  };
  const ratioText = goals.stdioMedian.value === null ? 'no ratio (pipe relay +0)' : `${goals.stdioMedian.value}x`;
  const cpu = (entry: Measured): string => (entry.perCall === undefined ? '-' : `${ms(entry.perCall.cpuMs)} / ${ms(entry.perCall.runQueueMs)}`);

  const rows: Array<Array<string | number>> = ARM_NAMES.map((name) => {
    const entry = measured[name];
    const sums = name === 'direct' ? undefined : addedBy[name];
    return [
      `echo: ${entry.label}`,
      ms(median(entry.samplesMs)),
      ms(percentile(entry.samplesMs, 0.99)),
      sums === undefined ? '-' : `${signed(sums.medianMs)} (paired ${ms(sums.pairedMedianMs)})`,
      sums === undefined ? '-' : signed(sums.p99Ms),
      cpu(entry),
    ];
  });
  rows.push(
    [`goal: stdio ${goals.stdioMedian.goal}`, ratioText, '-', '-', '-', met(goals.stdioMedian.met)],
    [`goal: stdio ${goals.stdioP99.goal}`, '-', '-', '-', signed(goals.stdioP99.value), met(goals.stdioP99.met)],
    [`goal: ${goals.httpMedian.goal}`, '-', '-', signed(goals.httpMedian.value), '-', met(goals.httpMedian.met)],
  );

  return {
    title: `mcpctx gateway (stdio and HTTP front) vs a bare Node pipe relay vs direct, with the official SDK client: ${ROUNDS.toLocaleString('en-US')} interleaved echo calls per arm`,
    table: { columns: ['case', 'median ms (or ratio)', 'p99 ms', 'added median ms', 'added p99 ms', 'CPU / run-queue ms per call'], rows },
    figures: {
      client: '@modelcontextprotocol/sdk 1.x Client (StdioClientTransport, StreamableHTTPClientTransport)',
      server: 'test/servers/relay-server.mjs, tool echo',
      warmupRounds: WARMUP_ROUNDS,
      rounds: ROUNDS,
      arms: Object.fromEntries(
        ARM_NAMES.map((name) => {
          const entry = measured[name];
          return [
            name,
            {
              label: entry.label,
              medianMs: ms(median(entry.samplesMs)),
              p99Ms: ms(percentile(entry.samplesMs, 0.99)),
              distributionMs: Object.fromEntries(DISTRIBUTION.map((fraction) => [`p${round(fraction * 100, 1)}`, ms(percentile(entry.samplesMs, fraction))])),
              maxMs: ms(Math.max(...entry.samplesMs)),
              cpuMsPerCall: entry.perCall === undefined ? null : ms(entry.perCall.cpuMs),
              runQueueMsPerCall: entry.perCall === undefined ? null : ms(entry.perCall.runQueueMs),
            },
          ];
        }),
      ),
      addedMs: Object.fromEntries(
        Object.entries(addedBy).map(([name, sums]) => [name, { median: ms(sums.medianMs), p99: ms(sums.p99Ms), pairedMedian: ms(sums.pairedMedianMs) }]),
      ),
      goals,
    },
    notes: [
      `Added over stdio at the median: the gateway ${signed(addedBy.gatewayStdio.medianMs)} ms, a bare Node pipe relay ${signed(addedBy.pipeRelay.medianMs)} ms: ` +
        `${ratioText} (goal <= ${GOALS.stdioMedianToPipe}x): ${met(goals.stdioMedian.met)}.`,
      `Added over stdio at p99: ${signed(addedBy.gatewayStdio.p99Ms)} ms (goal <= ${GOALS.stdioP99AddedMs} ms): ${met(goals.stdioP99.met)}; the pipe relay ${signed(addedBy.pipeRelay.p99Ms)} ms.`,
      `The HTTP front added ${signed(addedBy.gatewayHttp.medianMs)} ms at the median over direct stdio (goal <= ${GOALS.httpMedianAddedMs} ms): ${met(goals.httpMedian.met)}; p99 ${signed(addedBy.gatewayHttp.p99Ms)} ms.`,
      `CPU / run-queue wait per call of the process the client talks to: ${ARM_NAMES.map((name) => `${measured[name].label} ${cpu(measured[name])} ms`).join(', ')}.`,
    ],
  };
}
