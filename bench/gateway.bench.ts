// mcpctx gateway against no gateway and against mcp-proxy, side by side in one process: the
// latency a relay adds to a small call (stdio and streamable HTTP), and the time the gateway's
// ResultShaper takes on a ~650 KB result against JSON.parse + one countTokens of it.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { TOKENIZER } from '../src/tokens/index.js';
import {
  CAP_TOKENS,
  PAGE_TOKENS,
  PASS_CAP_TOKENS,
  PULLS_PATH,
  SHAPE_RUNS,
  SHAPE_WARMUP_RUNS,
  SUMMARY_PROJECTION,
  type ShapeCase,
  measureShaping,
  shapeData,
} from './_gateway-shaping.js';
import {
  type Path,
  GATEWAY_CLI,
  PROTOCOL_VERSION,
  schedTimesOf,
  type SchedTimes,
  directStdio,
  endMarkedProcesses,
  gatewayHttp,
  gatewayStdio,
  mcpProxyHttp,
  pipeRelayStdio,
} from './_gateway-wire.js';
import { type BenchContext, type BenchReport, type Progress, median, percentile, round } from './_harness.js';

const WARMUP_CALLS = 200;
const CALLS = 2_000;
/** The steady-state pass: this many calls in a row per path (caches and JIT hot), blocks rotated. */
const BLOCK_CALLS = 100;
const CALL_TIMEOUT_MS = 10_000;
/** The percentiles of each path's calls kept in the results file. */
const DISTRIBUTION = [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999];
const GOALS = { addedMsStdio: 0.3, httpRatioToMcpProxy: 1, shapeRatio: 3 };

/** The paths, in the order they are opened (and rotated from). */
const OPENERS = { direct: directStdio, pipeRelay: pipeRelayStdio, gatewayStdio, gatewayHttp, mcpProxy: mcpProxyHttp } as const;
type PathName = keyof typeof OPENERS;
const PATH_NAMES = Object.keys(OPENERS) as PathName[];
/** The stdio paths, measured again in blocks. */
const STDIO_NAMES: PathName[] = ['direct', 'pipeRelay', 'gatewayStdio'];

// ---- statistics ----

/** The median over rounds of a per-round combination of two paths' samples. */
function pairedMedian(a: readonly number[], b: readonly number[], combine: (x: number, y: number) => number): number {
  return median(a.map((value, index) => combine(value, b[index] ?? Number.NaN)));
}

const ms = (value: number, digits = 3): number => round(value, digits);
const times = (value: number): string => `${round(value, 2)}x`;
const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');
type ShapedCase = Exclude<ShapeCase, 'baseline'>;

// ---- 1-4: small calls, interleaved ----

interface Measured {
  label: string;
  samplesMs: number[];
  /** The first echo result as JSON text, to compare with the direct one. */
  firstResult: string;
  /** Per measured call, what the scheduler accounted to the process the client talks to (ms). */
  perCall: SchedTimes | undefined;
}

function echoedText(result: unknown): unknown {
  return (result as { content?: Array<{ text?: unknown }> } | undefined)?.content?.[0]?.text;
}

/**
 * One round gives every path `block` calls in a row, sequentially, one call in flight in the
 * whole process; the order of the paths rotates every round so that none always goes first (or
 * right after the same one). With `block` 1 every call of a path finds it idle since the other
 * paths' calls (as calls spaced in time do); with a larger block its caches and JIT stay hot.
 */
async function measureLatency(paths: Record<PathName, Path>, names: readonly PathName[], block: number, progress: Progress): Promise<Record<PathName, Measured>> {
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<PathName, number[]>;
  const firstResults = {} as Record<PathName, string>;
  const schedAtStart = {} as Record<PathName, SchedTimes | undefined>;
  const rounds = (WARMUP_CALLS + CALLS) / block;
  for (let round = 0; round < rounds; round += 1) {
    if ((round * block) % 500 === 0) progress(`calls (${block} in a row): ${round * block}/${WARMUP_CALLS + CALLS}`);
    const measuring = round * block >= WARMUP_CALLS;
    if (round * block === WARMUP_CALLS) for (const name of names) schedAtStart[name] = schedTimesOf(paths[name].pid);
    for (let step = 0; step < names.length; step += 1) {
      const name = names[(round + step) % names.length] as PathName;
      const path = paths[name];
      for (let call = 0; call < block; call += 1) {
        const text = `call ${round * block + call}`;
        const started = performance.now();
        const result = await path.call('echo', { text }, CALL_TIMEOUT_MS);
        const elapsed = performance.now() - started;
        if (echoedText(result) !== text) throw new Error(`${path.label}: ${text} echoed ${JSON.stringify(result).slice(0, 200)}`);
        if (round === 0 && call === 0) firstResults[name] = JSON.stringify(result);
        if (measuring) samples[name].push(elapsed);
      }
    }
  }
  const measured = {} as Record<PathName, Measured>;
  for (const name of names) {
    const start = schedAtStart[name];
    const end = schedTimesOf(paths[name].pid);
    measured[name] = {
      label: paths[name].label,
      samplesMs: samples[name],
      firstResult: firstResults[name],
      perCall: start === undefined || end === undefined ? undefined : { cpuMs: (end.cpuMs - start.cpuMs) / CALLS, runQueueMs: (end.runQueueMs - start.runQueueMs) / CALLS },
    };
  }
  return measured;
}

async function closeAll(paths: readonly Path[]): Promise<void> {
  await Promise.all(paths.map((path) => path.close().catch(() => undefined)));
}

/** Opens every path, measures, and ends every process of the run, whatever happens. */
async function latencyRun(progress: Progress): Promise<{ interleaved: Record<PathName, Measured>; blocks: Record<PathName, Measured> }> {
  const mark = `bench-gateway-${randomUUID()}`;
  const opened: Path[] = [];
  let interleaved: Record<PathName, Measured>;
  let blocks: Record<PathName, Measured>;
  let survivors: Awaited<ReturnType<typeof endMarkedProcesses>>;
  try {
    const paths = {} as Record<PathName, Path>;
    for (const name of PATH_NAMES) {
      progress(`starting ${name}`);
      paths[name] = await OPENERS[name](mark);
      opened.push(paths[name]);
    }
    interleaved = await measureLatency(paths, PATH_NAMES, 1, progress);
    blocks = await measureLatency(paths, STDIO_NAMES, BLOCK_CALLS, progress);
  } finally {
    await closeAll(opened);
    survivors = await endMarkedProcesses(mark);
  }
  if (survivors.length > 0) throw new Error(`processes outlived the benchmark (killed now): ${survivors.map((p) => `${p.pid} ${p.cmdline}`).join('; ')}`);
  return { interleaved, blocks };
}

// ---- the run ----

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  if (!existsSync(GATEWAY_CLI)) throw new Error('dist/cli/main.js is missing: run `npm run build` first (the gateway is started as the CLI)');
  const { interleaved: measured, blocks } = await latencyRun(progress);
  const { direct, pipeRelay, gatewayStdio: viaStdio, gatewayHttp: viaHttp, mcpProxy } = measured;
  const medianOf = (entry: Measured): number => median(entry.samplesMs);
  const p90Of = (entry: Measured): number => percentile(entry.samplesMs, 0.9);
  const added = {
    medianMs: medianOf(viaStdio) - medianOf(direct),
    p90Ms: p90Of(viaStdio) - p90Of(direct),
    pairedMedianMs: pairedMedian(viaStdio.samplesMs, direct.samplesMs, (x, y) => x - y),
  };
  const floor = { medianMs: medianOf(pipeRelay) - medianOf(direct), pairedMedianMs: pairedMedian(pipeRelay.samplesMs, direct.samplesMs, (x, y) => x - y) };
  const steady = {
    addedMedianMs: medianOf(blocks.gatewayStdio) - medianOf(blocks.direct),
    floorMedianMs: medianOf(blocks.pipeRelay) - medianOf(blocks.direct),
  };
  const http = {
    ratio: medianOf(viaHttp) / medianOf(mcpProxy),
    p90Ratio: p90Of(viaHttp) / p90Of(mcpProxy),
    pairedRatio: pairedMedian(viaHttp.samplesMs, mcpProxy.samplesMs, (x, y) => x / y),
  };

  progress('shaping');
  const data = shapeData();
  const shaping = measureShaping(data, progress);
  const shapeCases = ['offload', 'paged', 'passed'] as const;
  const shapeRatio = Object.fromEntries(shapeCases.map((name) => [name, shaping.medianMs[name] / shaping.medianMs.baseline])) as Record<ShapedCase, number>;
  const shapePaired = Object.fromEntries(
    shapeCases.map((name) => [name, pairedMedian(shaping.samplesMs[name], shaping.samplesMs.baseline, (x, y) => x / y)]),
  ) as Record<ShapedCase, number>;

  const goals = {
    added: added.medianMs <= GOALS.addedMsStdio,
    http: http.ratio <= GOALS.httpRatioToMcpProxy,
    shape: Math.max(...Object.values(shapeRatio)) <= GOALS.shapeRatio,
  };
  const sameAsDirect = (entry: Measured): string => (entry.firstResult === direct.firstResult ? 'same' : 'differs');
  const cpu = (entry: Measured): string => (entry.perCall === undefined ? '-' : `${ms(entry.perCall.cpuMs)} / ${ms(entry.perCall.runQueueMs)}`);
  const dataLabel = `${data.records} PRs, ${data.wireBytes.toLocaleString('en-US')} bytes`;
  const p90Shape = (name: ShapeCase): number => ms(percentile(shaping.samplesMs[name], 0.9), 1);
  const shapeRow = (name: ShapedCase, what: string): Array<string | number> => [
    `ResultShaper.shape, ${what} (${shaping[name].action})`,
    ms(shaping.medianMs[name], 1),
    p90Shape(name),
    `${times(shapeRatio[name])} (paired ${times(shapePaired[name])})`,
    '-',
    met(shapeRatio[name] <= GOALS.shapeRatio),
  ];

  const rows: Array<Array<string | number>> = [
    ...PATH_NAMES.map((name): Array<string | number> => {
      const entry = measured[name];
      const vs = name === 'direct' ? '-' : `+${ms(medianOf(entry) - medianOf(direct))} ms`;
      return [`echo: ${entry.label}`, ms(medianOf(entry)), ms(p90Of(entry)), vs, cpu(entry), `result ${sameAsDirect(entry)}`];
    }),
    ['added by the gateway over stdio (median of paired differences)', ms(added.pairedMedianMs), ms(added.p90Ms), `goal <= ${GOALS.addedMsStdio} ms`, '-', met(goals.added)],
    ['added by a bare pipe relay over stdio (the floor)', ms(floor.pairedMedianMs), '-', `+${ms(floor.medianMs)} ms`, '-', '-'],
    ...STDIO_NAMES.map((name): Array<string | number> => {
      const entry = blocks[name];
      const vs = name === 'direct' ? '-' : `+${ms(medianOf(entry) - medianOf(blocks.direct))} ms`;
      return [`echo, ${BLOCK_CALLS} in a row: ${entry.label}`, ms(medianOf(entry)), ms(p90Of(entry)), vs, cpu(entry), name === 'gatewayStdio' ? `(${met(steady.addedMedianMs <= GOALS.addedMsStdio)})` : '-'];
    }),
    ['gateway HTTP / mcp-proxy HTTP', times(http.ratio), times(http.p90Ratio), `paired ${times(http.pairedRatio)}; goal <= 1x`, '-', met(goals.http)],
    [`JSON.parse + countTokens of the result (${dataLabel})`, ms(shaping.medianMs.baseline, 1), p90Shape('baseline'), '1x', '-', '-'],
    shapeRow('offload', `capTokens ${CAP_TOKENS.toLocaleString('en-US')} only`),
    shapeRow('paged', `project + pageTokens ${PAGE_TOKENS.toLocaleString('en-US')}`),
    shapeRow('passed', `capTokens ${PASS_CAP_TOKENS.toLocaleString('en-US')} (above the result)`),
  ];

  const pathFigure = (name: PathName, from = measured) => {
    const entry = from[name];
    return {
      path: name,
      label: entry.label,
      medianMs: ms(medianOf(entry)),
      p90Ms: ms(p90Of(entry)),
      // 2,000 samples per path: the file keeps their distribution, not each one.
      distributionMs: {
        min: ms(Math.min(...entry.samplesMs)),
        ...Object.fromEntries(DISTRIBUTION.map((fraction) => [`p${round(fraction * 100, 1)}`, ms(percentile(entry.samplesMs, fraction))])),
        max: ms(Math.max(...entry.samplesMs)),
      },
      cpuMsPerCall: entry.perCall === undefined ? null : ms(entry.perCall.cpuMs),
      runQueueMsPerCall: entry.perCall === undefined ? null : ms(entry.perCall.runQueueMs),
      resultSameAsDirect: entry.firstResult === direct.firstResult,
    };
  };
  const shapeSamples = (name: ShapeCase) => shaping.samplesMs[name].map((value) => ms(value, 2));
  const caseFigure = (name: ShapedCase, rules: unknown) => ({
    rules,
    action: shaping[name].action,
    upstreamTokens: shaping[name].upstreamTokens,
    deliveredTokens: shaping[name].deliveredTokens,
  });

  return {
    title:
      `mcpctx gateway vs direct vs mcp-proxy: ${CALLS.toLocaleString('en-US')} small calls per path (interleaved, one in flight), ` +
      `and ResultShaper.shape on a ${dataLabel} result vs JSON.parse + one countTokens`,
    table: { columns: ['case', 'median ms (or ratio)', 'p90 ms (or ratio)', 'vs', 'CPU / run-queue ms per call', 'goal'], rows },
    figures: {
      tokenizer: TOKENIZER,
      latency: {
        tool: 'echo of test/servers/relay-server.mjs ({ text: "call N" })',
        protocolVersion: PROTOCOL_VERSION,
        warmupCalls: WARMUP_CALLS,
        calls: CALLS,
        order: 'one call per path per round, the order rotated every round; one request in flight in the whole process',
        clients: {
          stdio: 'RawClient over BoundedStdioTransport (src/mcp)',
          http: 'RawHttpClient (bench/_gateway-wire.ts): node:http, one keep-alive socket, Accept JSON or SSE, Mcp-Session-Id',
        },
        commands: {
          direct: 'node test/servers/relay-server.mjs',
          pipeRelay: 'node bench/_pipe-relay.mjs -- node test/servers/relay-server.mjs (copies bytes, parses nothing: the floor of a Node relay)',
          gatewayStdio: 'node dist/cli/main.js gateway -- node test/servers/relay-server.mjs',
          gatewayHttp: 'node dist/cli/main.js gateway --http 127.0.0.1:0 -- node test/servers/relay-server.mjs',
          mcpProxy: 'node node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs --host 127.0.0.1 --port <free> --server stream -- node test/servers/relay-server.mjs (mcp-proxy 6.7.19, its other defaults)',
        },
        perCall:
          'cpuMs: time on a CPU of the process the client talks to (all its threads; not the processes behind it), runQueueMs: time it was ready but waited for a CPU; ' +
          'from /proc/<pid>/task/*/schedstat over the measured calls, divided by the calls',
        paths: PATH_NAMES.map((name) => pathFigure(name)),
        addedByGatewayStdio: { medianMs: ms(added.medianMs), p90Ms: ms(added.p90Ms), medianOfPairedDifferencesMs: ms(added.pairedMedianMs) },
        addedByPipeRelay: { medianMs: ms(floor.medianMs), medianOfPairedDifferencesMs: ms(floor.pairedMedianMs) },
        inBlocks: {
          order: `the stdio paths again, ${BLOCK_CALLS} calls in a row per path, the order of the paths rotated every block; ${WARMUP_CALLS} warm-up calls each`,
          paths: STDIO_NAMES.map((name) => pathFigure(name, blocks)),
          addedByGatewayStdioMedianMs: ms(steady.addedMedianMs),
          addedByPipeRelayMedianMs: ms(steady.floorMedianMs),
        },
        gatewayHttpOverMcpProxy: { ratioOfMedians: round(http.ratio, 3), ratioOfP90: round(http.p90Ratio, 3), medianOfPairedRatios: round(http.pairedRatio, 3) },
      },
      shaping: {
        data: {
          path: PULLS_PATH,
          records: data.records,
          result: 'the `before` result of the first N pull requests: { content: [{ type: "text", text: JSON of the records }], structuredContent: { pull_requests: records } }',
          wireBytes: data.wireBytes,
          textBytes: data.textBytes,
          wireTokens: shaping.wireTokens,
        },
        baseline: 'JSON.parse(wire text) + countTokens(wire text)',
        cases: {
          offload: caseFigure('offload', `none; capTokens ${CAP_TOKENS}, offload on`),
          paged: caseFigure('paged', { project: SUMMARY_PROJECTION, pageTokens: PAGE_TOKENS, capTokens: CAP_TOKENS }),
          passed: caseFigure('passed', `none; capTokens ${PASS_CAP_TOKENS}, above the result: measured, checked against the cap, sent as is`),
        },
        timing: 'each shape gets its own JSON.parse copy and a fresh memory store (fixed key), made outside the timed region; gpt-tokenizer keeps its merge cache across runs, for both sides',
        warmupRuns: SHAPE_WARMUP_RUNS,
        runs: SHAPE_RUNS,
        medianMs: Object.fromEntries((['baseline', ...shapeCases] as const).map((name) => [name, ms(shaping.medianMs[name], 2)])),
        samplesMs: Object.fromEntries((['baseline', ...shapeCases] as const).map((name) => [name, shapeSamples(name)])),
        ratioOfMedians: Object.fromEntries(shapeCases.map((name) => [name, round(shapeRatio[name], 2)])),
        medianOfPairedRatios: Object.fromEntries(shapeCases.map((name) => [name, round(shapePaired[name], 2)])),
      },
      goals: {
        addedMsAtMedianOverStdio: { goal: `<= ${GOALS.addedMsStdio}`, value: ms(added.medianMs), met: goals.added },
        gatewayHttpNotSlowerThanMcpProxy: { goal: '<= 1x', value: round(http.ratio, 3), met: goals.http },
        shapingWithin3x: { goal: `<= ${GOALS.shapeRatio}x (every case)`, value: round(Math.max(...Object.values(shapeRatio)), 2), met: goals.shape },
      },
    },
    notes: [
      `Added latency over stdio: ${ms(added.medianMs)} ms at the median (${ms(medianOf(viaStdio))} vs ${ms(medianOf(direct))} ms direct), ` +
        `${ms(added.p90Ms)} ms at p90, median of paired differences ${ms(added.pairedMedianMs)} ms; goal <= ${GOALS.addedMsStdio} ms: ${met(goals.added)}. ` +
        `A bare Node pipe relay adds ${ms(floor.medianMs)} ms (paired ${ms(floor.pairedMedianMs)} ms) on the same run. ` +
        `With ${BLOCK_CALLS} calls in a row per path the gateway adds ${ms(steady.addedMedianMs)} ms and the pipe relay ${ms(steady.floorMedianMs)} ms.`,
      `CPU / run-queue wait per call of the process the client talks to: ${PATH_NAMES.map((name) => `${measured[name].label} ${cpu(measured[name])} ms`).join(', ')}.`,
      `Over HTTP: the gateway ${ms(medianOf(viaHttp))} ms vs mcp-proxy ${ms(medianOf(mcpProxy))} ms at the median, ${times(http.ratio)} (paired ${times(http.pairedRatio)}); ` +
        `goal not slower: ${met(goals.http)}.`,
      `Shaping ${dataLabel} (${shaping.wireTokens.toLocaleString('en-US')} tokens as wire JSON): offload ${times(shapeRatio.offload)}, ` +
        `project + pageTokens ${times(shapeRatio.paged)}, passed under a higher cap ${times(shapeRatio.passed)} the time of JSON.parse + one countTokens; ` +
        `goal <= ${GOALS.shapeRatio}x: ${met(goals.shape)}.`,
      `Results as relayed: ${PATH_NAMES.map((name) => `${measured[name].label} ${sameAsDirect(measured[name])}`).join(', ')} (the first echo result, as JSON text, against the direct one).`,
    ],
  };
}
