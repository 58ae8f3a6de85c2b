import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { McpctxError } from '../errors/index.js';
import { DEFAULT_MAX_FRAME_BYTES, FrameSplitter } from './_frames.js';
import { childEnvironment, type LaunchSpec } from './_launch.js';
import { Redactor } from './_redact.js';
import { BoundedTail, lastBytesAsText } from './_tail.js';
import { killGroupOnExit, releaseGroupOnExit, signalGroup, waitForGroupGone } from './_process-group.js';

export interface StdioTransportOptions {
  /** Largest message accepted from the server, checked before parsing. Default 16 MiB. */
  maxFrameBytes?: number;
  /** How much of the server's stderr is kept (the end of it). Default 8 KB. */
  stderrTailBytes?: number;
  /** After stdin is ended, how long the server may take to exit before SIGTERM. Default 2,000 ms. */
  exitGraceMs?: number;
  /** After SIGTERM, how long before SIGKILL. Default 2,000 ms. */
  termGraceMs?: number;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Lines on stdout that were not JSON-RPC messages: counted, the first one kept. */
export interface NonJsonLines {
  count: number;
  first?: string;
}

const FIRST_LINE_KEEP_CHARS = 200;
// After the server exits, stdout may still hold its last messages; a grandchild holding the pipe
// open must not keep the connection looking alive, so the wait for end-of-stream is short.
const DRAIN_AFTER_EXIT_MS = 100;

/**
 * A stdio transport for servers we do not trust: the child runs in its own process group, every
 * frame is bounded before parsing, stderr is a bounded tail that is never read as protocol, and
 * `close()` ends the whole group. It implements the SDK's `Transport`, so the SDK `Client` and the
 * raw client both run over it. Messages are handed on exactly as `JSON.parse` read them.
 */
export class BoundedStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;

  readonly spec: LaunchSpec;
  private readonly maxFrameBytes: number;
  private readonly exitGraceMs: number;
  private readonly termGraceMs: number;
  private readonly stderr: BoundedTail;
  private readonly stderrTailBytes: number;
  private readonly redactor: Redactor;
  private readonly noise: NonJsonLines = { count: 0 };
  private child: ChildProcessByStdio<Writable, Readable, Readable> | undefined;
  private exitStatus: ExitStatus | undefined;
  private exited: Promise<ExitStatus> | undefined;
  private closing: Promise<ExitStatus> | undefined;
  private closedNotified = false;
  private fatalError: McpctxError | undefined;

  constructor(spec: LaunchSpec, options: StdioTransportOptions = {}) {
    this.spec = spec;
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.exitGraceMs = options.exitGraceMs ?? 2_000;
    this.termGraceMs = options.termGraceMs ?? 2_000;
    this.stderrTailBytes = options.stderrTailBytes ?? 8 * 1024;
    this.redactor = new Redactor(spec.env);
    // Keep enough beyond the tail that a value written across its first byte is still seen whole.
    this.stderr = new BoundedTail(this.stderrTailBytes + this.redactor.longestSecretBytes);
  }

  /**
   * The last bytes (8 KB by default) the server wrote to stderr, as UTF-8, with every env value
   * the server was given replaced by `[redacted:NAME]`: servers echo their configuration.
   */
  get stderrTail(): string {
    const scrubbed = this.redactor.window(this.stderr.text(), { cutAtStart: this.stderr.cut });
    return lastBytesAsText(Buffer.from(scrubbed, 'utf8'), this.stderrTailBytes);
  }

  get stderrBytes(): number {
    return this.stderr.totalBytes;
  }

  get nonJsonLines(): Readonly<NonJsonLines> {
    return { ...this.noise };
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the server process ended, once it has. */
  get exit(): ExitStatus | undefined {
    return this.exitStatus;
  }

  /** The framing error that ended the connection, if one did. */
  get failure(): McpctxError | undefined {
    return this.fatalError;
  }

  async start(): Promise<void> {
    if (this.child) throw new McpctxError('USAGE', 'transport already started');
    const child = spawn(this.spec.command, [...(this.spec.args ?? [])], {
      cwd: this.spec.cwd,
      env: childEnvironment(this.spec),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // its own process group, so close() can end grandchildren too
      windowsHide: true,
    });
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitStatus = { code, signal };
        resolve(this.exitStatus);
      });
      // A process that never started never exits: settle here so shutdown() cannot wait forever.
      child.once('error', () => {
        if (child.pid !== undefined) return;
        this.exitStatus = { code: null, signal: null };
        resolve(this.exitStatus);
      });
    });
    child.on('error', () => {
      // Reported through start() (spawn) or the exit status; never an uncaught 'error' event.
    });

    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        reject(
          new McpctxError('SPAWN_FAILED', `could not start ${this.spec.command}: ${error.message}`, {
            command: this.spec.command,
            errno: (error as NodeJS.ErrnoException).code,
          }),
        );
      });
    });
    if (child.pid !== undefined) killGroupOnExit(child.pid);

    child.stdin.on('error', () => {
      // EPIPE when the server is gone: reported through exit and onclose, not as a crash.
    });
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    this.readStdout(child.stdout);
    void this.exited?.then(() => this.afterExit(child));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child || this.closing || this.exitStatus || this.fatalError || !child.stdin.writable) {
      throw new McpctxError('TRANSPORT_CLOSED', 'cannot send: the server connection is closed', this.closedData());
    }
    const line = `${JSON.stringify(message)}\n`;
    await new Promise<void>((resolve, reject) => {
      child.stdin.write(line, (error) => {
        if (error) reject(new McpctxError('TRANSPORT_CLOSED', `cannot send: ${error.message}`, this.closedData()));
        else resolve();
      });
    });
  }

  /**
   * Ends stdin, waits for the server to exit, then SIGTERM and SIGKILL to its whole group.
   * Idempotent: every call resolves to the same exit status.
   */
  shutdown(): Promise<ExitStatus> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  /** The SDK's `Transport.close`: the same as `shutdown()`, without the status. */
  async close(): Promise<void> {
    await this.shutdown();
  }

  private async shutDown(): Promise<ExitStatus> {
    const child = this.child;
    if (!child || !this.exited) {
      this.notifyClosed();
      return { code: null, signal: null };
    }
    const pgid = child.pid;
    child.stdin.end();
    let status = await withinMs(this.exited, this.exitGraceMs);
    if (!status && pgid !== undefined) {
      signalGroup(pgid, 'SIGTERM');
      status = await withinMs(this.exited, this.termGraceMs);
      if (!status) signalGroup(pgid, 'SIGKILL');
    }
    // A process stuck in the kernel may not die even of SIGKILL; the wait is bounded all the same.
    const finalStatus = status ?? (await withinMs(this.exited, 2_000)) ?? { code: null, signal: 'SIGKILL' as const };
    if (pgid !== undefined) {
      // The server is gone; what it started may not be. Ask politely, then insist.
      if (!(await waitForGroupGone(pgid, 0))) {
        signalGroup(pgid, 'SIGTERM');
        if (!(await waitForGroupGone(pgid, Math.min(this.termGraceMs, 500)))) signalGroup(pgid, 'SIGKILL');
        await waitForGroupGone(pgid, 1_000);
      }
      releaseGroupOnExit(pgid);
    }
    child.stdout.destroy();
    child.stderr.destroy();
    this.notifyClosed();
    return finalStatus;
  }

  private readStdout(stdout: Readable): void {
    const splitter = new FrameSplitter(this.maxFrameBytes);
    stdout.on('data', (chunk: Buffer) => {
      if (this.fatalError) return;
      let frames: string[];
      try {
        frames = splitter.push(chunk);
      } catch (error) {
        this.fail(error as McpctxError);
        return;
      }
      for (const frame of frames) this.deliver(frame);
    });
    stdout.on('end', () => this.notifyClosed());
  }

  private deliver(frame: string): void {
    if (frame.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(frame);
    } catch {
      message = undefined;
    }
    if (!isJsonRpcObject(message)) {
      this.noise.count += 1;
      this.noise.first ??= this.redactor.window(this.redactor.text(frame).slice(0, FIRST_LINE_KEEP_CHARS), { cutAtStart: false });
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  /** A framing error ends the connection: after it, no later byte can be trusted as a frame. */
  private fail(error: McpctxError): void {
    this.fatalError = error;
    this.child?.stdout.destroy();
    this.onerror?.(error);
    this.notifyClosed();
  }

  private afterExit(child: ChildProcessByStdio<Writable, Readable, Readable>): void {
    if (child.stdout.readableEnded) {
      this.notifyClosed();
      return;
    }
    setTimeout(() => this.notifyClosed(), DRAIN_AFTER_EXIT_MS).unref();
  }

  private notifyClosed(): void {
    if (this.closedNotified) return;
    this.closedNotified = true;
    this.onclose?.();
  }

  private closedData(): Record<string, unknown> {
    return { exit: this.exitStatus, stderrTail: this.stderrTail };
  }
}

function isJsonRpcObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
}

async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
