import { performance } from 'node:perf_hooks';
import { McpctxError } from '../../errors/index.js';
import { type FrontConnection, type FrontSendOptions, type JsonRpcMessage } from './_front.js';
import { type Exchange, requestKey } from './_http-exchange.js';
import { type SseStream } from './_sse-writer.js';

export interface SessionLimits {
  /** How long a session with no open stream and no request in flight may stay silent before it ends. */
  sessionIdleMs: number;
  /** Unrelated messages held while no GET stream is open; the oldest are dropped beyond either bound. */
  maxQueuedMessages: number;
  maxQueuedBytes: number;
}

/** Counts what could not be delivered, for the front's diagnostics. */
export interface DropCounter {
  dropped: number;
}

interface Queued {
  text: string;
  bytes: number;
}

function isResponse(message: JsonRpcMessage): boolean {
  return !('method' in message) && ('result' in message || 'error' in message);
}

function isId(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}

/**
 * One streamable-HTTP session as the relay sees it: it routes what the relay sends to the POST
 * that asked, to the GET stream, or to a bounded queue until a GET stream opens.
 */
export class HttpSession implements FrontConnection {
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: (reason: string) => void;

  private readonly pending = new Map<string, Exchange>();
  private getStream: SseStream | undefined;
  private queue: Queued[] = [];
  private queuedBytes = 0;
  private closed = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private initializeKey: string | undefined;
  private lastActive = performance.now();

  /**
   * @param client who opened it, for the per-client limit: the remote address (every local
   *   process shares one on loopback).
   * @param principal the credential it proved (see FrontConnection.principal).
   */
  constructor(
    readonly id: string,
    readonly client: string,
    readonly principal: string | undefined,
    private readonly limits: SessionLimits,
    private readonly drops: DropCounter,
    private readonly onEnded: (session: HttpSession) => void,
  ) {
    this.armIdleTimer();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get hasGetStream(): boolean {
    return this.getStream?.open === true;
  }

  /** Client requests still waiting for their answers. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Whether any of these request ids is still waiting for its answer (a client reusing an id). */
  awaitsAny(ids: ReadonlyArray<string | number>): boolean {
    return ids.some((id) => this.pending.has(requestKey(id)));
  }

  /** Any client activity (a request naming the session, an answer or a stream that ended) restarts the idle clock. */
  touch(): void {
    if (this.closed) return;
    this.lastActive = performance.now();
    this.armIdleTimer();
  }

  /** Whether the client has let it go: no stream open, no request in flight. */
  get abandoned(): boolean {
    return !this.hasGetStream && ![...this.pending.values()].some((exchange) => exchange.open);
  }

  /** Milliseconds since the client last did anything in this session. */
  get idleMs(): number {
    return performance.now() - this.lastActive;
  }

  /** A session whose initialize is answered with an error never started: it ends then and frees its slot. */
  endIfRefused(initializeId: string | number | null): void {
    if (initializeId !== null) this.initializeKey = requestKey(initializeId);
  }

  /** Registers the requests of one POST before the relay sees them (it may answer synchronously). */
  expect(ids: ReadonlyArray<string | number>, exchange: Exchange): void {
    for (const id of ids) this.pending.set(requestKey(id), exchange);
  }

  /** The POST's exchange finished: its requests are answered. */
  settled(ids: ReadonlyArray<string | number>, exchange: Exchange): void {
    for (const id of ids) {
      const key = requestKey(id);
      if (this.pending.get(key) === exchange) this.pending.delete(key);
    }
    this.touch();
  }

  /** Hands client messages to the relay, in order. */
  receive(messages: readonly JsonRpcMessage[]): void {
    for (const message of messages) this.onmessage?.(message);
  }

  attachGetStream(stream: SseStream): void {
    this.getStream = stream;
    const queued = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    for (const item of queued) stream.send(item.text);
  }

  detachGetStream(stream: SseStream): void {
    if (this.getStream === stream) this.getStream = undefined;
    this.touch();
  }

  async send(message: JsonRpcMessage, options: FrontSendOptions = {}): Promise<void> {
    if (this.closed) {
      throw new McpctxError('TRANSPORT_CLOSED', `the HTTP client session ${this.id} has ended`, { sessionId: this.id });
    }
    const text = JSON.stringify(message);
    if (isResponse(message)) {
      // A response goes only to the POST that asked; spec: never on the GET stream.
      const key = isId(message.id) ? requestKey(message.id) : undefined;
      const exchange = key === undefined ? undefined : this.pending.get(key);
      if (key !== undefined) this.pending.delete(key);
      if (exchange === undefined || !exchange.deliver(text, key)) this.drops.dropped += 1;
      if (key !== undefined && key === this.initializeKey) {
        this.initializeKey = undefined;
        if ('error' in message) await this.close('the initialize request was refused');
      }
      return;
    }
    const related = options.relatedRequestId === undefined ? undefined : this.pending.get(requestKey(options.relatedRequestId));
    if (related !== undefined && related.deliver(text, undefined)) return;
    if (this.getStream?.send(text) === true) return;
    // A notification about a request whose answer comes as JSON is only worth its moment.
    if (related !== undefined && !('id' in message)) {
      this.drops.dropped += 1;
      return;
    }
    this.enqueue(text);
  }

  async close(reason = 'the gateway closed the session'): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    for (const exchange of new Set(this.pending.values())) exchange.abort(reason);
    this.pending.clear();
    this.getStream?.end();
    this.getStream = undefined;
    this.queue = [];
    this.queuedBytes = 0;
    this.onEnded(this);
    this.onclose?.(reason);
  }

  private enqueue(text: string): void {
    const bytes = Buffer.byteLength(text);
    this.queue.push({ text, bytes });
    this.queuedBytes += bytes;
    while (this.queue.length > this.limits.maxQueuedMessages || (this.queuedBytes > this.limits.maxQueuedBytes && this.queue.length > 0)) {
      const oldest = this.queue.shift();
      if (oldest === undefined) break;
      this.queuedBytes -= oldest.bytes;
      this.drops.dropped += 1;
    }
  }

  private armIdleTimer(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.onIdle(), this.limits.sessionIdleMs);
    this.idleTimer.unref();
  }

  // A session with a stream open or a request in flight is in use, however long it is quiet.
  private onIdle(): void {
    if (this.abandoned) void this.close(`idle for ${this.limits.sessionIdleMs} ms with no stream open`);
    else this.armIdleTimer();
  }
}
