// Start-up of the built CLI (dist/cli/main.js) as users run it, each against a named peer in the same
// run, interleaved, as whole processes (spawn to exit, or spawn to the initialize answer):
// - `mcpctx --version` and `mcpctx --help` against `node -e 0` (goal: at most 3x);
// - `mcpctx measure --runs 1 -- node server-memory` against server-memory's own start to its
//   initialize answer (goal: at most 150 ms more), plus the default two captures against two starts;
// - the gateway in front of one stdio upstream answering initialize, against the upstream alone
//   (goal: at most 1.3x), for server-everything and server-memory; beside it the floor of any
//   Node relay, a process that only pipes bytes (bench/_pipe-relay.mjs), so the cost of the
//   extra process itself is seen apart from the gateway's.
// The reference servers are devDependencies run from node_modules: no network.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchContext, type BenchReport, PROJECT_ROOT, median, round } from './_harness.js';

const SAMPLES = 11;
const WARM_UP = 2;
/** No sample may take longer; a hung process fails the benchmark instead of stalling it. */
const SAMPLE_TIMEOUT_MS = 60_000;
const CLI = join(PROJECT_ROOT, 'dist', 'cli', 'main.js');
const PIPE_RELAY = join(PROJECT_ROOT, 'bench', '_pipe-relay.mjs');

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcpctx-bench', version: '0.1.0' } },
})}\n`;

interface Timed {
  name: string;
  /** One sample in milliseconds. */
  sample: () => Promise<number>;
}

function serverScript(packageName: string): string {
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'node_modules', packageName, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (bin === undefined) throw new Error(`${packageName} has no bin`);
  return join(PROJECT_ROOT, 'node_modules', packageName, bin);
}

/** Spawn to exit; fails unless the process exits 0. */
function untilExit(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), SAMPLE_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const elapsed = performance.now() - started;
      if (code === 0) resolve(elapsed);
      else reject(new Error(`node ${args.join(' ')} ended with ${code ?? signal}: ${stderr.slice(-500)}`));
    });
  });
}

/**
 * Spawn to the first line holding the answer to `initialize` (id 1); then stdin is closed and the
 * process is waited for (not timed), so no sample leaves anything running into the next.
 */
function untilInitialized(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env });
    let answeredAt: number | undefined;
    let buffered = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), SAMPLE_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      if (answeredAt === undefined && buffered.split('\n').some((line) => line.includes('"id":1') && line.includes('"result"'))) {
        answeredAt = performance.now() - started;
        child.stdin.end();
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (answeredAt !== undefined) resolve(answeredAt);
      else reject(new Error(`node ${args.join(' ')} ended (${code ?? signal}) without answering initialize`));
    });
    child.stdin.write(INITIALIZE);
  });
}

/** Warm-up rounds, then SAMPLES rounds with every contender once per round, in rotating order. */
async function interleaved(contenders: readonly Timed[], progress: (message: string) => void): Promise<Map<string, number[]>> {
  const samples = new Map(contenders.map((contender) => [contender.name, [] as number[]]));
  for (let round = 0; round < WARM_UP + SAMPLES; round += 1) {
    progress(`round ${round + 1}/${WARM_UP + SAMPLES}${round < WARM_UP ? ' (warm-up)' : ''}`);
    for (let turn = 0; turn < contenders.length; turn += 1) {
      const contender = contenders[(round + turn) % contenders.length] as Timed;
      const ms = await contender.sample();
      if (round >= WARM_UP) samples.get(contender.name)?.push(round2(ms));
    }
  }
  return samples;
}

function round2(ms: number): number {
  return round(ms, 1);
}

function medianOf(samples: Map<string, number[]>, name: string): number {
  return median(samples.get(name) ?? []);
}

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const scratch = mkdtempSync(join(tmpdir(), 'mcpctx-startup-bench-'));
  const env = { ...process.env, MEMORY_FILE_PATH: join(scratch, 'memory.json') };
  const memory = serverScript('@modelcontextprotocol/server-memory');
  const everything = serverScript('@modelcontextprotocol/server-everything');
  try {
    progress('--version and --help against node -e 0');
    const cli = await interleaved(
      [
        { name: 'node -e 0', sample: () => untilExit(['-e', '0'], env) },
        { name: 'mcpctx --version', sample: () => untilExit([CLI, '--version'], env) },
        { name: 'mcpctx --help', sample: () => untilExit([CLI, '--help'], env) },
      ],
      progress,
    );

    progress('measure against the server start');
    const measure = await interleaved(
      [
        { name: 'server-memory start to initialize', sample: () => untilInitialized([memory], env) },
        { name: 'mcpctx measure --runs 1', sample: () => untilExit([CLI, 'measure', '--runs', '1', '--', process.execPath, memory], env) },
        { name: 'mcpctx measure (2 captures)', sample: () => untilExit([CLI, 'measure', '--', process.execPath, memory], env) },
      ],
      progress,
    );

    progress('gateway initialize against the upstream alone');
    const gateway = await interleaved(
      [
        { name: 'server-everything alone', sample: () => untilInitialized([everything], env) },
        { name: 'gateway -- server-everything', sample: () => untilInitialized([CLI, 'gateway', '--', process.execPath, everything], env) },
        { name: 'pipe relay -- server-everything', sample: () => untilInitialized([PIPE_RELAY, '--', process.execPath, everything], env) },
        { name: 'server-memory alone', sample: () => untilInitialized([memory], env) },
        { name: 'gateway -- server-memory', sample: () => untilInitialized([CLI, 'gateway', '--', process.execPath, memory], env) },
      ],
      progress,
    );

    const node = medianOf(cli, 'node -e 0');
    const version = medianOf(cli, 'mcpctx --version');
    const help = medianOf(cli, 'mcpctx --help');
    const serverStart = medianOf(measure, 'server-memory start to initialize');
    const measureOne = medianOf(measure, 'mcpctx measure --runs 1');
    const measureTwo = medianOf(measure, 'mcpctx measure (2 captures)');
    const everythingAlone = medianOf(gateway, 'server-everything alone');
    const everythingGateway = medianOf(gateway, 'gateway -- server-everything');
    const everythingRelay = medianOf(gateway, 'pipe relay -- server-everything');
    const memoryAlone = medianOf(gateway, 'server-memory alone');
    const memoryGateway = medianOf(gateway, 'gateway -- server-memory');

    const goals = {
      versionRatio: { value: round(version / node), goal: '<= 3', met: version / node <= 3 },
      helpRatio: { value: round(help / node), goal: '<= 3', met: help / node <= 3 },
      measureExtraMs: { value: round(measureOne - serverStart, 0), goal: '<= 150', met: measureOne - serverStart <= 150 },
      gatewayRatio: { value: round(everythingGateway / everythingAlone), goal: '<= 1.3', met: everythingGateway / everythingAlone <= 1.3 },
    };
    const ms = (value: number): number => round(value, 0);
    return {
      title: 'start-up of the built CLI, whole processes, against node -e 0, the server alone and the upstream alone',
      table: {
        columns: ['what', 'ours (median ms)', 'peer', 'peer (median ms)', 'ours vs peer', 'goal'],
        rows: [
          ['mcpctx --version', ms(version), 'node -e 0', ms(node), `${round(version / node)}x`, '<= 3x'],
          ['mcpctx --help', ms(help), 'node -e 0', ms(node), `${round(help / node)}x`, '<= 3x'],
          ['mcpctx measure --runs 1 (server-memory)', ms(measureOne), 'server start to initialize', ms(serverStart), `+${ms(measureOne - serverStart)} ms`, '<= +150 ms'],
          ['mcpctx measure, 2 captures (default)', ms(measureTwo), '2 x server start to initialize', ms(2 * serverStart), `+${ms(measureTwo - 2 * serverStart)} ms`, '-'],
          ['gateway initialize (server-everything)', ms(everythingGateway), 'server-everything alone', ms(everythingAlone), `${round(everythingGateway / everythingAlone)}x`, '<= 1.3x'],
          ['pipe relay initialize (server-everything)', ms(everythingRelay), 'server-everything alone', ms(everythingAlone), `${round(everythingRelay / everythingAlone)}x`, 'floor'],
          ['gateway initialize (server-memory)', ms(memoryGateway), 'server-memory alone', ms(memoryAlone), `${round(memoryGateway / memoryAlone)}x`, '-'],
        ],
      },
      figures: {
        samples: SAMPLES,
        warmUp: WARM_UP,
        goals,
        cli: Object.fromEntries(cli),
        measure: Object.fromEntries(measure),
        gateway: Object.fromEntries(gateway),
      },
      notes: [
        `${SAMPLES} interleaved rounds after ${WARM_UP} warm-up rounds; every figure is a whole process from spawn (to exit, or to the initialize answer).`,
        `goals met: ${Object.entries(goals)
          .map(([name, goal]) => `${name} ${goal.value} (${goal.goal}) ${goal.met ? 'yes' : 'NO'}`)
          .join('; ')}`,
        'measure loads the tokenizer (its rank table from dist/o200k_base.ranks.json) while the server starts and counts while it exits; the gateway starts a stdio upstream before it loads its own code, and loads the tokenizer while the upstream boots.',
      ],
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
