// The gateway CLI over stdio for hostile-input tests: raw bytes in (lines that are not JSON, huge
// lines, duplicate ids), every line out recorded as parsed, and the process's exit observable.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { SCRIPTED_SERVER, markedEnv } from '../support/processes.js';
import type { Message } from '../support/wire-client.js';
import { CLI, markEnvEntries, upstreamArgs } from './_gateway-process.js';
import { ConditionWaiters } from '../support/condition-waiters.js';

const DEFAULT_TIMEOUT_MS = 30_000;

export const INITIALIZE_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } };

/** A config entry launching the scripted server in `mode`, marked for leak checks. */
export function scriptedEntry(mode: string): Record<string, unknown> {
  return { command: process.execPath, args: [SCRIPTED_SERVER, mode], env: markEnvEntries() };
}

/** CLI arguments for the scripted server in `mode` as the one upstream. */
export function scriptedArgs(mode: string): string[] {
  return upstreamArgs(process.execPath, SCRIPTED_SERVER, mode);
}


export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class RawGateway {
  readonly received: Message[] = [];
  /** Lines on stdout that were not JSON (there should be none). */
  readonly noise: string[] = [];
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly conditions = new ConditionWaiters();
  private stderrText = '';
  private nextId = 1;

  constructor(args: readonly string[]) {
    this.child = spawn(process.execPath, [CLI, 'gateway', ...args], { env: markedEnv({ PATH: process.env.PATH ?? '' }), stdio: 'pipe' });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    let buffered = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim() === '') continue;
        try {
          this.received.push(JSON.parse(line) as Message);
        } catch {
          this.noise.push(line.slice(0, 200));
        }
        this.conditions.notify();
      }
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderrText = (this.stderrText + chunk).slice(-20_000);
    });
    // A gateway that ends the connection closes the pipe under a write in progress: that is the point.
    this.child.stdin.on('error', () => {});
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  stderr(): string {
    return this.stderrText;
  }

  /** Writes bytes as they are; resolves once the pipe took them (or failed: the gateway may have closed it). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (!this.child.stdin.writable) {
        resolve();
        return;
      }
      this.child.stdin.write(data, () => resolve());
    });
  }

  writeLine(text: string): Promise<void> {
    return this.write(`${text}\n`);
  }

  send(message: Message): Promise<void> {
    return this.writeLine(JSON.stringify(message));
  }

  /** Sends a request with a fresh numeric id (or the one given) and waits for the response with that id. */
  async request(method: string, params?: Message, options: { id?: string | number; timeoutMs?: number } = {}): Promise<Message> {
    const id = options.id ?? this.nextId++;
    const message: Message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    const seen = this.responsesTo(id).length;
    await this.send(message);
    return this.response(id, seen, options.timeoutMs);
  }

  async initialize(): Promise<Message> {
    const response = await this.request('initialize', INITIALIZE_PARAMS);
    await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return response;
  }

  /** Every response (no method) carrying `id`, in arrival order. */
  responsesTo(id: string | number | null): Message[] {
    return this.received.filter((message) => message.method === undefined && message.id === id);
  }

  /** Waits for the response to `id` after the first `skip` of them. */
  async response(id: string | number | null, skip = 0, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Message> {
    await this.waitFor(() => this.responsesTo(id).length > skip, timeoutMs, `a response to id ${JSON.stringify(id)}`);
    return this.responsesTo(id)[skip] as Message;
  }

  waitFor(probe: () => boolean, timeoutMs = DEFAULT_TIMEOUT_MS, what = 'the condition'): Promise<void> {
    return this.conditions.waitFor(probe, timeoutMs, () => `${what} not met within ${timeoutMs} ms; received ${this.received.length} messages; stderr: ${this.stderrText.slice(-2000)}`);
  }

  /** The exit, or undefined if the process is still running after timeoutMs. */
  async exitWithin(timeoutMs: number): Promise<Exit | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  endInput(): void {
    this.child.stdin.end();
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Ends stdin and waits for the exit; SIGKILL after 15 s so a broken gateway cannot hang the run. */
  async close(): Promise<Exit> {
    this.endInput();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Runs `run` against a fresh gateway, which is closed (and its processes ended) whatever happens. */
export async function withGateway<T>(args: readonly string[], run: (gateway: RawGateway) => Promise<T>): Promise<T> {
  const gateway = new RawGateway(args);
  try {
    return await run(gateway);
  } finally {
    await gateway.close();
  }
}
