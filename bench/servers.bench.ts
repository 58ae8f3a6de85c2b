// Start + initialize + tools/list + shutdown of the four pinned reference servers (devDependencies,
// run from node_modules, no network): our measureServer against the official SDK client
// (@modelcontextprotocol/client Client + StdioClientTransport), interleaved in one process.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { measureServer } from '../src/measure/index.js';
import { type BenchContext, type BenchReport, PROJECT_ROOT, median, round } from './_harness.js';

const RUNS = 5;
const TIMEOUT_MS = 30_000;

interface ServerSpec {
  name: string;
  package: string;
  args: string[];
  env: Record<string, string>;
}

interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

interface OursSample {
  wallMs: number;
  startMs: number;
  initializeMs: number;
  listMs: number;
  closeMs: number;
  tools: number;
  tokens: number;
}

interface SdkSample {
  wallMs: number;
  connectMs: number;
  listMs: number;
  closeMs: number;
  tools: number;
}

interface Manifest {
  version: string;
  bin?: string | Record<string, string>;
}

/** A package's package.json, read from the project's node_modules (some packages do not export it). */
function manifestOf(packageName: string): Manifest {
  return JSON.parse(readFileSync(`${PROJECT_ROOT}node_modules/${packageName}/package.json`, 'utf8')) as Manifest;
}

/** The script a package's `bin` points at. */
function binScript(packageName: string): string {
  const { bin } = manifestOf(packageName);
  const script = typeof bin === 'string' ? bin : Object.values(bin ?? {})[0];
  if (!script) throw new Error(`${packageName} has no bin in its package.json`);
  return join(PROJECT_ROOT, 'node_modules', packageName, script);
}

function packageVersion(packageName: string): string {
  return manifestOf(packageName).version;
}

function launchOf(spec: ServerSpec): Launch {
  return { command: process.execPath, args: [binScript(spec.package), ...spec.args], env: spec.env };
}

async function runOurs(spec: ServerSpec, launch: Launch): Promise<OursSample> {
  const started = performance.now();
  const measurement = await measureServer({ name: spec.name, launch, runs: 1, timeoutMs: TIMEOUT_MS });
  const wallMs = performance.now() - started;
  if (measurement.status !== 'measured' || measurement.toolCount === null || measurement.totalTokens === null) {
    throw new Error(`measureServer(${spec.name}) gave status ${measurement.status}: ${measurement.note}`);
  }
  return {
    wallMs,
    startMs: measurement.timings.startMs,
    initializeMs: measurement.timings.initializeMs,
    listMs: measurement.timings.listMs,
    closeMs: measurement.timings.closeMs,
    tools: measurement.toolCount,
    tokens: measurement.totalTokens,
  };
}

async function runSdk(launch: Launch): Promise<SdkSample> {
  const started = performance.now();
  const client = new Client({ name: 'mcpctx-bench', version: '0.1.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: launch.env, stderr: 'ignore' });
  let connectMs: number;
  let listMs: number;
  let tools = 0;
  try {
    await client.connect(transport);
    connectMs = performance.now() - started;
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor });
      tools += page.tools.length;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    listMs = performance.now() - started - connectMs;
  } finally {
    await client.close();
  }
  const wallMs = performance.now() - started;
  return { wallMs, connectMs, listMs, closeMs: wallMs - connectMs - listMs, tools };
}

function onlyValue(label: string, values: readonly number[]): number {
  const distinct = new Set(values);
  if (distinct.size !== 1) throw new Error(`${label} changed across runs: ${[...distinct].join(', ')}`);
  return values[0] as number;
}

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  const scratch = mkdtempSync(join(tmpdir(), 'mcpctx-bench-'));
  try {
    const filesystemRoot = mkdtempSync(join(scratch, 'fs-root-'));
    const specs: ServerSpec[] = [
      { name: 'everything', package: '@modelcontextprotocol/server-everything', args: ['stdio'], env: {} },
      { name: 'filesystem', package: '@modelcontextprotocol/server-filesystem', args: [filesystemRoot], env: {} },
      {
        name: 'memory',
        package: '@modelcontextprotocol/server-memory',
        args: [],
        env: { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') },
      },
      { name: 'sequential-thinking', package: '@modelcontextprotocol/server-sequential-thinking', args: [], env: {} },
    ];

    const rows: Array<Array<string | number>> = [];
    const servers: Record<string, unknown>[] = [];
    for (const spec of specs) {
      const launch = launchOf(spec);
      // One untimed launch of each first: fills the OS file cache for the server's modules.
      progress(`${spec.name}: warm-up`);
      await runOurs(spec, launch);
      await runSdk(launch);
      const ours: OursSample[] = [];
      const sdk: SdkSample[] = [];
      for (let round = 0; round < RUNS; round += 1) {
        progress(`${spec.name}: run ${round + 1}/${RUNS}`);
        // Alternate who goes first.
        if (round % 2 === 0) {
          ours.push(await runOurs(spec, launch));
          sdk.push(await runSdk(launch));
        } else {
          sdk.push(await runSdk(launch));
          ours.push(await runOurs(spec, launch));
        }
      }
      const oursWall = median(ours.map((sample) => sample.wallMs));
      const sdkWall = median(sdk.map((sample) => sample.wallMs));
      const tools = onlyValue(`${spec.name} tool count (ours)`, ours.map((sample) => sample.tools));
      const tokens = onlyValue(`${spec.name} tokens (ours)`, ours.map((sample) => sample.tokens));
      const sdkTools = onlyValue(`${spec.name} tool count (sdk)`, sdk.map((sample) => sample.tools));
      const ratio = sdkWall / oursWall;
      rows.push([
        spec.name,
        tools,
        tokens,
        round(oursWall, 1),
        round(median(ours.map((sample) => sample.initializeMs)), 1),
        round(median(ours.map((sample) => sample.listMs)), 1),
        round(sdkWall, 1),
        sdkTools,
        `${round(ratio, 2)}x`,
      ]);
      servers.push({
        name: spec.name,
        package: spec.package,
        version: packageVersion(spec.package),
        launch: { command: 'node', args: [binScript(spec.package).slice(PROJECT_ROOT.length), ...spec.args.map((arg) => (arg.startsWith(scratch) ? '<temp dir>' : arg))], envNames: Object.keys(spec.env) },
        tools,
        tokens,
        sdkTools,
        ours: {
          medianWallMs: round(oursWall, 2),
          medianStartMs: round(median(ours.map((sample) => sample.startMs)), 2),
          medianInitializeMs: round(median(ours.map((sample) => sample.initializeMs)), 2),
          medianListMs: round(median(ours.map((sample) => sample.listMs)), 2),
          medianCloseMs: round(median(ours.map((sample) => sample.closeMs)), 2),
          wallMs: ours.map((sample) => round(sample.wallMs, 2)),
        },
        sdk: {
          medianWallMs: round(sdkWall, 2),
          medianConnectMs: round(median(sdk.map((sample) => sample.connectMs)), 2),
          medianListMs: round(median(sdk.map((sample) => sample.listMs)), 2),
          medianCloseMs: round(median(sdk.map((sample) => sample.closeMs)), 2),
          wallMs: sdk.map((sample) => round(sample.wallMs, 2)),
        },
        ratioSdkOverOurs: round(ratio, 2),
      });
    }

    return {
      title: `start + initialize + tools/list + shutdown per pinned server: measureServer (ours, runs: 1) vs @modelcontextprotocol/client ${packageVersion('@modelcontextprotocol/client')} (connect + listTools + close), median of ${RUNS}, interleaved`,
      table: {
        columns: ['server', 'tools', 'tokens', 'ours ms', 'init ms', 'list ms', 'sdk ms', 'sdk tools', 'sdk / ours'],
        rows,
      },
      figures: { runs: RUNS, timeoutMs: TIMEOUT_MS, peer: '@modelcontextprotocol/client Client + StdioClientTransport', servers },
      notes: [
        'ours ms and sdk ms: wall time around the whole call, process spawn to process exit; init ms and list ms: measureServer timings of its capture.',
        'ours also computes the catalog cost (o200k tokens, per-tool split, sha256); the SDK client only lists.',
        'Both declare client capabilities {}. sdk tools can differ from tools if the SDK negotiates differently.',
      ],
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
