// Runs the pinned @modelcontextprotocol/conformance CLI (0.1.9) against a server URL and returns
// each server scenario's verdict with its reasons. The CLI writes results/server-<scenario>-<time>/
// checks.json under its cwd, so every run gets its own temp dir, removed afterwards. All scenarios
// run in one CLI process (`--suite all`, about 2 s here); a per-scenario watchdog follows the CLI's
// "=== Running scenario: X ===" lines, and a scenario that overstays is marked timed out, the CLI
// killed, and the rest run one CLI process each. Every process is started with markedEnv and in its
// own process group, so a kill takes everything it started.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { markedEnv } from './processes.js';

export const PROJECT_ROOT: string = fileURLToPath(new URL('../../', import.meta.url));
export const CONFORMANCE_CLI: string = join(PROJECT_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
export const CONFORMANCE_SERVER: string = join(PROJECT_ROOT, 'test/servers/conformance-server.mjs');

/** One check as the CLI writes it to checks.json (fields we read; the file has more). */
export interface ConformanceCheck {
  id: string;
  name: string;
  description: string;
  status: string; // SUCCESS | FAILURE | WARNING | INFO
  errorMessage?: string;
}

export interface ScenarioResult {
  scenario: string;
  /** No FAILURE check, checks were written, and the scenario finished within its timeout (as the CLI's ✓). */
  passed: boolean;
  timedOut: boolean;
  /** Why it failed: each FAILURE check as "name: message", or what went wrong running it. */
  failures: string[];
  /** WARNING checks as "name: message" (the CLI's summary does not fail a scenario on these). */
  warnings: string[];
  checks: ConformanceCheck[];
}

export interface ConformanceRun {
  url: string;
  /** In the order the scenarios were asked for. */
  results: ScenarioResult[];
  elapsedMs: number;
}

export interface ConformanceOptions {
  /** Default: every server scenario (`conformance list --server`). */
  scenarios?: readonly string[];
  /** Per scenario; default 30 s (the SSE scenarios wait up to 10 s + 5 s on their own). */
  scenarioTimeoutMs?: number;
  /** The whole run; default 300 s. Scenarios not reached in time are marked timed out. */
  overallTimeoutMs?: number;
}

const OUTPUT_TAIL_CHARS = 16 * 1024;
const KILL_GRACE_MS = 2_000;
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
const SCENARIO_START = /=== Running scenario: (\S+) ===/;

/** Server scenario names, from the pinned CLI's `list --server`. */
export async function listServerScenarios(timeoutMs = 15_000): Promise<string[]> {
  const run = await runCli(['list', '--server'], process.cwd(), timeoutMs);
  if (run.exitCode !== 0) throw new Error(`conformance list failed (exit ${run.exitCode}): ${run.stderr}`);
  return run.stdout
    .split('\n')
    .map((line) => /^\s+- (\S+)$/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

/** Runs the scenarios against `url` and returns one result per scenario (never throws for a failing one). */
export async function runConformance(url: string, options: ConformanceOptions = {}): Promise<ConformanceRun> {
  const started = performance.now();
  const scenarioTimeoutMs = options.scenarioTimeoutMs ?? 30_000;
  const deadline = started + (options.overallTimeoutMs ?? 300_000);
  const all = await listServerScenarios();
  const wanted = options.scenarios ?? all;
  const unknown = wanted.filter((name) => !all.includes(name));
  if (unknown.length > 0) throw new Error(`unknown conformance scenario(s): ${unknown.join(', ')}; known: ${all.join(', ')}`);

  const cwd = await mkdtemp(join(tmpdir(), 'mcpctx-conformance-'));
  const results = new Map<string, ScenarioResult>();
  try {
    let remaining = [...wanted];
    // One process for the whole suite when the whole suite is asked for (the CLI has no subset flag).
    if (wanted.length === all.length && wanted.every((name, i) => name === all[i])) {
      const suite = await runCli(['server', '--url', url, '--suite', 'all'], cwd, deadline - performance.now(), scenarioTimeoutMs);
      for (const result of await collect(cwd, suite)) results.set(result.scenario, result);
      if (suite.stuck !== undefined) results.set(suite.stuck.scenario, timedOut(suite.stuck.scenario, suite.stuck.reason));
      remaining = wanted.filter((name) => !results.has(name));
      if (!suite.killed) {
        // The suite ended on its own: a scenario it never reported on failed to run at all.
        for (const name of remaining) results.set(name, unrun(name, `the CLI wrote no checks.json (exit ${suite.exitCode}): ${tail(suite.stderr)}`));
        remaining = [];
      }
    }
    for (const name of remaining) {
      const left = deadline - performance.now();
      if (left <= 0) {
        results.set(name, unrun(name, 'not run: the overall conformance timeout passed first', true));
        continue;
      }
      const limit = Math.min(left, scenarioTimeoutMs);
      const single = await runCli(['server', '--url', url, '--scenario', name], cwd, limit);
      const found = (await collect(cwd, single)).find((r) => r.scenario === name);
      const reason = limit < scenarioTimeoutMs ? 'the overall conformance timeout passed while it ran' : `timed out after ${limit} ms`;
      results.set(name, found ?? (single.killed ? timedOut(name, reason) : unrun(name, `the CLI wrote no checks.json (exit ${single.exitCode}): ${tail(single.stderr)}`)));
    }
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
  return { url, results: wanted.map((name) => results.get(name) ?? unrun(name, 'no result')), elapsedMs: Math.round(performance.now() - started) };
}

/** "scenario: reason; ..." for every scenario that did not pass: the line a failing test prints. */
export function describeFailures(run: ConformanceRun): string {
  return run.results
    .filter((r) => !r.passed)
    .map((r) => `${r.scenario}: ${r.failures.join('; ')}`)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------

interface CliRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Killed for the overall or per-scenario timeout. */
  killed: boolean;
  /** The scenario running when it was killed, and which timeout killed it. */
  stuck?: { scenario: string; reason: string };
}

function runCli(args: string[], cwd: string, timeoutMs: number, scenarioTimeoutMs?: number): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CONFORMANCE_CLI, ...args], {
      cwd,
      env: markedEnv({ PATH: process.env.PATH ?? '', NO_COLOR: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: a kill reaches anything it started
    });
    const run: CliRun = { exitCode: null, stdout: '', stderr: '', killed: false };
    let current: string | undefined;
    let scenarioTimer: NodeJS.Timeout | undefined;
    const kill = (reason: string): void => {
      if (run.killed) return;
      run.killed = true;
      if (current !== undefined) run.stuck = { scenario: current, reason };
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS).unref();
    };
    const overall = setTimeout(() => kill(`the overall conformance timeout passed while it ran`), Math.max(0, timeoutMs));
    let partialLine = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      run.stdout = (run.stdout + chunk).slice(-OUTPUT_TAIL_CHARS);
      if (scenarioTimeoutMs === undefined) return;
      const lines = (partialLine + chunk).split('\n');
      partialLine = (lines.pop() ?? '').slice(-OUTPUT_TAIL_CHARS);
      for (const line of lines) {
        const started = SCENARIO_START.exec(line)?.[1];
        if (started === undefined) continue;
        current = started;
        clearTimeout(scenarioTimer);
        scenarioTimer = setTimeout(() => kill(`timed out after ${scenarioTimeoutMs} ms`), scenarioTimeoutMs);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (run.stderr = (run.stderr + chunk).slice(-OUTPUT_TAIL_CHARS)));
    child.once('error', (err) => {
      clearTimeout(overall);
      clearTimeout(scenarioTimer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(overall);
      clearTimeout(scenarioTimer);
      run.exitCode = code;
      resolve(run);
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Reads every results/server-<scenario>-<time>/checks.json the CLI wrote, then removes them. */
async function collect(cwd: string, run: CliRun): Promise<ScenarioResult[]> {
  const dir = join(cwd, 'results');
  const entries = await readdir(dir).catch(() => [] as string[]);
  const results: ScenarioResult[] = [];
  for (const entry of entries) {
    const scenario = RESULT_DIR.exec(entry)?.[1];
    if (scenario === undefined) continue;
    let checks: ConformanceCheck[];
    try {
      checks = JSON.parse(await readFile(join(dir, entry, 'checks.json'), 'utf8')) as ConformanceCheck[];
    } catch (err) {
      // Killed while writing, or never written.
      results.push(unrun(scenario, `unreadable checks.json (${(err as Error).message}); CLI stderr: ${tail(run.stderr)}`));
      continue;
    }
    const label = (c: ConformanceCheck): string => `${c.name}: ${c.errorMessage ?? c.description}`;
    const failures = checks.filter((c) => c.status === 'FAILURE').map(label);
    const warnings = checks.filter((c) => c.status === 'WARNING').map(label);
    results.push({ scenario, passed: failures.length === 0, timedOut: false, failures, warnings, checks });
  }
  await rm(dir, { recursive: true, force: true });
  return results;
}

function timedOut(scenario: string, reason: string): ScenarioResult {
  return { ...unrun(scenario, `${reason} (the CLI was killed)`), timedOut: true };
}

function unrun(scenario: string, reason: string, isTimeout = false): ScenarioResult {
  return { scenario, passed: false, timedOut: isTimeout, failures: [reason], warnings: [], checks: [] };
}

function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 500 ? `...${trimmed.slice(-500)}` : trimmed || '(empty)';
}

// ---------------------------------------------------------------------------------------------
// Starting a server that announces its URL on stderr.

export interface ListeningProcess {
  url: string;
  pid: number;
  /** stderr so far (bounded), for failure messages. */
  stderr(): string;
  /** SIGTERM to the process group, SIGKILL after a grace period; resolves when it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts `command args` with markedEnv in its own process group and waits (bounded) for a stderr
 * line matching `announce` (its first group is the URL). Rejects, after killing it, if the process
 * exits or stays silent past `timeoutMs`.
 */
export async function startListening(command: string, args: readonly string[], announce: RegExp, timeoutMs = 20_000, env: Record<string, string> = {}): Promise<ListeningProcess> {
  const child = spawn(command, args, {
    cwd: PROJECT_ROOT,
    env: markedEnv({ PATH: process.env.PATH ?? '', ...env }),
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = async (): Promise<void> => {
    killGroup(child, 'SIGTERM');
    const grace = setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS);
    await exited;
    clearTimeout(grace);
    // The group may hold children that outlive the leader (an upstream); make sure they go too.
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // none left
      }
    }
  };
  const url = await new Promise<string>((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')}: ${why}; stderr: ${tail(stderr)}`));
    };
    const timer = setTimeout(() => fail(`no line matching ${announce} within ${timeoutMs} ms`), timeoutMs);
    child.once('error', (err) => fail(err.message));
    child.once('exit', (code, signal) => fail(`exited (${code ?? signal}) before announcing its URL`));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-OUTPUT_TAIL_CHARS);
      const found = announce.exec(stderr)?.[1];
      if (found !== undefined) {
        clearTimeout(timer);
        resolve(found);
      }
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { url, pid: child.pid ?? -1, stderr: () => stderr, stop };
}
