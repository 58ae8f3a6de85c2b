import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { McpctxError } from '../errors/index.js';
import { jsonText } from '../tokens/index.js';
import { Deadline } from './_deadline.js';
import { DEFAULT_MAX_FRAME_BYTES, FrameSplitter } from './_frames.js';
import { childEnvironment, passedEnvNames, type LaunchSpec } from './_launch.js';
import { registerLiveServer, unregisterLiveServer, type LiveServer } from './_live-servers.js';
import { signalGroup, waitForGroupGone } from './_process-group.js';
import { ProcessTree } from './_process-tree.js';
import { Redactor } from './_redact.js';
import { BoundedTail, lastBytesAsText } from './_tail.js';
import { isJsonRpcObject } from './_jsonrpc-message.js';

export interface StdioTransportOptions {
  /** Largest message accepted from the server, checked before parsing. Default 16 MiB. */
  maxFrameBytes?: number;
  /** How much of the server's stderr is kept (the end of it). Default 8 KB. */
  stderrTailBytes?: number;
  /** After stdin is ended, how long the server may take to exit before SIGTERM. Default 2,000 ms. */
  exitGraceMs?: number;
  /** After SIGTERM, how long before SIGKILL. Default 2,000 ms. */
  termGraceMs?: number;
  /**
   * Most bytes written to the server and not yet read by it. A write that would pass this waits
   * (within its deadline) for the server to read; a single message larger than this is still sent
   * once nothing else is waiting. Default 32 MiB.
   */
  maxUnreadBytes?: number;
  /** Budget of a write made through the SDK's `send()`, which carries no deadline. Default 30,000 ms. */
  sendTimeoutMs?: number;
  /**
   * Sees every JSON-RPC frame as it crossed the pipe, text exact without its newline: what was
   * written (before the write) and what was received (before it is handled). For receipts;
   * non-JSON-RPC lines are not frames and are not reported here.
   */
  onFrame?: (direction: 'sent' | 'received', text: string) => void;
}

/** A transport whose writes can be bounded by the caller's deadline, and that knows each received frame's size. */
export interface BoundedTransport {
  /**
   * Writes one message; resolves when the server's stdin has taken all of it. Rejects with
   * DEADLINE when the deadline passes first (the server stopped reading), with TRANSPORT_CLOSED
   * when the connection is or becomes closed.
   */
  sendWithin(message: JSONRPCMessage, deadline: Deadline): Promise<void>;
  /** UTF-8 bytes of the frame a message delivered through `onmessage` came in. */
  frameBytesOf(message: object): number | undefined;
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
export class BoundedStdioTransport implements Transport, BoundedTransport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;

  // Private: it holds env values, which must never leave the process.
  readonly #spec: LaunchSpec;
  private readonly maxFrameBytes: number;
  private readonly maxUnreadBytes: number;
  private readonly sendTimeoutMs: number;
  private readonly onFrame: StdioTransportOptions['onFrame'];
  private readonly exitGraceMs: number;
  private readonly termGraceMs: number;
  private readonly stderr: BoundedTail;
  private readonly stderrTailBytes: number;
  readonly #redactor: Redactor;
  private readonly noise: NonJsonLines = { count: 0 };
  private child: ChildProcessByStdio<Writable, Readable, Readable> | undefined;
  private exitStatus: ExitStatus | undefined;
  private exited: Promise<ExitStatus> | undefined;
  private closing: Promise<ExitStatus> | undefined;
  private closedNotified = false;
  private fatalError: McpctxError | undefined;
  private stdinGone: McpctxError | undefined;
  private stdinClosedByServer = false;
  private readonly stdinGoneWaiters = new Set<(error: McpctxError) => void>();
  private readonly frameBytes = new WeakMap<object, number>();
  private readonly tree = new ProcessTree();
  private liveServer: LiveServer | undefined;

  constructor(spec: LaunchSpec, options: StdioTransportOptions = {}) {
    this.#spec = spec;
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.maxUnreadBytes = options.maxUnreadBytes ?? 32 * 1024 * 1024;
    this.sendTimeoutMs = options.sendTimeoutMs ?? 30_000;
    this.onFrame = options.onFrame;
    this.exitGraceMs = options.exitGraceMs ?? 2_000;
    this.termGraceMs = options.termGraceMs ?? 2_000;
    this.stderrTailBytes = options.stderrTailBytes ?? 8 * 1024;
    this.#redactor = Redactor.forLaunch(spec);
    // Keep enough beyond the tail that a value written across its first byte is still seen whole.
    this.stderr = new BoundedTail(this.stderrTailBytes + this.#redactor.longestSecretBytes);
  }

  /**
   * The last bytes (8 KB by default) the server wrote to stderr, as UTF-8, with every env value
   * the server was given replaced by `[redacted:NAME]`: servers echo their configuration.
   */
  get stderrTail(): string {
    const scrubbed = this.#redactor.window(this.stderr.text(), { cutAtStart: this.stderr.cut });
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

  /**
   * True when the server stopped taking input (its stdin closed or failed, EPIPE) before shutdown
   * began: it went away on its own, even while its exit has not been reported yet.
   */
  get inputClosedByServer(): boolean {
    return this.stdinClosedByServer;
  }

  /** The framing error that ended the connection, if one did. */
  get failure(): McpctxError | undefined {
    return this.fatalError;
  }

  /** What was launched, without env values: the command and the names of the variables passed. */
  get launched(): { command: string; envNames: string[] } {
    return { command: this.#spec.command, envNames: passedEnvNames(this.#spec) };
  }

  frameBytesOf(message: object): number | undefined {
    return this.frameBytes.get(message);
  }

  async start(): Promise<void> {
    if (this.child) throw new McpctxError('USAGE', 'transport already started');
    const spec = this.#spec;
    const child = spawn(spec.command, [...(spec.args ?? [])], {
      cwd: spec.cwd,
      // The tag lets shutdown find what the server started even after it left the process group.
      env: { ...childEnvironment(spec), [this.tree.tag.name]: this.tree.tag.value },
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
          new McpctxError('SPAWN_FAILED', `could not start ${spec.command}: ${error.message}`, {
            command: spec.command,
            errno: (error as NodeJS.ErrnoException).code,
          }),
        );
      });
    });
    if (child.pid !== undefined) {
      this.tree.follow(child.pid);
      this.liveServer = { pgid: child.pid, tree: this.tree };
      registerLiveServer(this.liveServer);
    }

    // EPIPE when the server is gone: every waiting write fails at once, and later ones before they start.
    child.stdin.on('error', (error) => this.stdinEnded(`the server's stdin failed: ${error.message}`));
    child.stdin.on('close', () => this.stdinEnded("the server's stdin is closed"));
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    this.readStdout(child.stdout);
    void this.exited?.then(() => this.afterExit(child));
  }

  /** The SDK's `Transport.send`: a write bounded by `sendTimeoutMs` (the SDK passes no deadline). */
  send(message: JSONRPCMessage): Promise<void> {
    return this.sendWithin(message, new Deadline(this.sendTimeoutMs, 'a write to the server'));
  }

  async sendWithin(message: JSONRPCMessage, deadline: Deadline): Promise<void> {
    const stdin = this.openStdin();
    const line = serialize(message);
    const bytes = Buffer.byteLength(line, 'utf8');
    this.onFrame?.('sent', line.slice(0, -1));
    // Backpressure: while the server has not read what is already queued, wait for it to read.
    while (stdin.writableLength > 0 && stdin.writableLength + bytes > this.maxUnreadBytes) {
      await this.settleWithin(deadline, `the server to read ${stdin.writableLength} queued bytes from its stdin`, (done) => {
        stdin.once('drain', done);
        return () => stdin.removeListener('drain', done);
      });
      this.openStdin();
    }
    await this.settleWithin(deadline, 'the server to read a message from its stdin', (done, fail) => {
      stdin.write(line, (error) => (error ? fail(this.closedError(`cannot send: ${error.message}`)) : done()));
      return () => {};
    });
  }

  /** The server's stdin if messages can still be written to it; TRANSPORT_CLOSED otherwise. */
  private openStdin(): Writable {
    const child = this.child;
    if (!child || this.closing || this.exitStatus || this.fatalError || this.stdinGone || !child.stdin.writable) {
      throw this.stdinGone ?? this.closedError('cannot send: the server connection is closed');
    }
    return child.stdin;
  }

  /**
   * Waits for `start` to call `done`, within what is left of `deadline`, failing at once if stdin
   * closes meanwhile. `start` returns how to stop listening.
   */
  private settleWithin(
    deadline: Deadline,
    waitingFor: string,
    start: (done: () => void, fail: (error: McpctxError) => void) => () => void,
  ): Promise<void> {
    if (deadline.expired) return Promise.reject(deadline.error(waitingFor));
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      let stopListening = (): void => {};
      const finish = (error?: McpctxError): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.stdinGoneWaiters.delete(onGone);
        stopListening();
        if (error) reject(error);
        else resolve();
      };
      const onGone = (error: McpctxError): void => finish(error);
      const timer = setTimeout(() => finish(deadline.error(waitingFor)), deadline.remainingMs());
      this.stdinGoneWaiters.add(onGone);
      const stop = start(() => finish(), (error) => finish(error));
      if (settled) stop();
      else stopListening = stop;
    });
  }

  private stdinEnded(reason: string): void {
    if (this.stdinGone) return;
    if (!this.closing) this.stdinClosedByServer = true;
    this.stdinGone = this.closedError(`cannot send: ${reason}`);
    for (const waiter of [...this.stdinGoneWaiters]) waiter(this.stdinGone);
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
    // Seen now, while the server is alive: killing it would reparent what it started.
    this.tree.recordNow();
    // A server that has not read what we already wrote will not see end-of-input either: waiting
    // for it to exit by itself would only add the grace to every such shutdown.
    const stoppedReading = child.stdin.writableLength > 0;
    if (stoppedReading) child.stdin.destroy();
    else child.stdin.end();
    let status = await withinMs(this.exited, stoppedReading ? 0 : this.exitGraceMs);
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
    }
    // What left the group (setsid, a daemon's double fork) is found through /proc and ended too.
    await this.tree.endAll(Math.min(this.termGraceMs, 500));
    this.tree.release();
    if (this.liveServer) unregisterLiveServer(this.liveServer);
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
      this.noise.first ??= this.#redactor.window(this.#redactor.text(frame).slice(0, FIRST_LINE_KEEP_CHARS), { cutAtStart: false });
      return;
    }
    this.frameBytes.set(message as object, Buffer.byteLength(frame, 'utf8'));
    this.onFrame?.('received', frame);
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

  private closedError(message: string): McpctxError {
    return new McpctxError('TRANSPORT_CLOSED', message, { exit: this.exitStatus, stderrTail: this.stderrTail });
  }
}

function serialize(message: JSONRPCMessage): string {
  const text = jsonText(message, 'the message to send');
  if (text === undefined) throw new McpctxError('INVALID_ARGUMENT', 'cannot send a message with no JSON form');
  return `${text}\n`;
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
