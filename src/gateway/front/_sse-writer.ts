import type { ServerResponse } from 'node:http';

export interface SseStreamOptions {
  /** Interval of `: keep-alive` comments, which also reveal a vanished client. */
  keepAliveMs: number;
  /** Bytes the socket may hold unread by the client before the stream is dropped. */
  maxBufferedBytes: number;
  /** How long the client may leave the stream unread (no drain) before it is dropped. */
  stallMs: number;
  /**
   * Called once when the stream ends by itself: the client went away (`stalled` false), or it
   * stopped reading and a bound dropped it (`stalled` true). Not called for `end()`.
   */
  onGone: (reason: string, stalled: boolean) => void;
  /**
   * Hold the headers back this long, so that an answer ready by then leaves with them in one write
   * (a POST's stream, whose answer usually comes within a millisecond: headers, event and end were
   * three writes, each waking the client). Undefined: the headers go at once (a GET's stream).
   */
  headersDelayMs?: number;
}

/**
 * One server-sent-events response. Writes never block the caller: what the client does not read
 * piles up in the socket until a bound (bytes or stall time) drops the stream.
 */
export class SseStream {
  private finished = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private headersTimer: NodeJS.Timeout | undefined;
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly response: ServerResponse,
    headers: Record<string, string>,
    private readonly options: SseStreamOptions,
  ) {
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      ...headers,
    });
    if (options.headersDelayMs === undefined) response.flushHeaders();
    else {
      this.headersTimer = setTimeout(() => this.flushHeaders(), options.headersDelayMs);
      this.headersTimer.unref();
    }
    response.on('close', () => this.gone('the client closed the stream', false));
    response.on('drain', () => this.clearStall());
    this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), options.keepAliveMs);
    this.keepAlive.unref();
  }

  get open(): boolean {
    return !this.finished;
  }

  /** Writes one JSON-RPC message as a `message` event; false when the stream is gone. */
  send(jsonText: string): boolean {
    return this.write(`event: message\ndata: ${jsonText}\n\n`);
  }

  /** Ends the stream normally (its last response was written, or the session closed). */
  end(): void {
    if (this.finished) return;
    this.stop();
    this.response.end();
  }

  /** `send` then `end`, in one write (with the headers too, if they were held back). */
  sendLast(jsonText: string): boolean {
    if (this.finished) return false;
    const chunk = `event: message\ndata: ${jsonText}\n\n`;
    // One that could pass the buffer bound (3 bytes per UTF-16 unit at most) goes the way that checks it.
    if (this.response.writableLength + 3 * chunk.length > this.options.maxBufferedBytes) {
      if (!this.send(jsonText)) return false;
      this.end();
      return true;
    }
    this.stop();
    this.response.end(chunk);
    return true;
  }

  private flushHeaders(): void {
    this.headersTimer = undefined;
    if (!this.finished && !this.response.headersSent) this.response.flushHeaders();
  }

  private write(chunk: string): boolean {
    if (this.finished) return false;
    const accepted = this.response.write(chunk);
    if (this.response.writableLength > this.options.maxBufferedBytes) {
      this.drop(`the client left ${this.response.writableLength} bytes unread; the limit is ${this.options.maxBufferedBytes}`);
      return false;
    }
    if (!accepted && this.stallTimer === undefined) {
      this.stallTimer = setTimeout(
        () => this.drop(`the client read nothing for ${this.options.stallMs} ms`),
        this.options.stallMs,
      );
      this.stallTimer.unref();
    }
    return true;
  }

  private drop(reason: string): void {
    if (this.finished) return;
    this.gone(reason, true);
    this.response.destroy();
  }

  private gone(reason: string, stalled: boolean): void {
    if (this.finished) return;
    this.stop();
    this.options.onGone(reason, stalled);
  }

  private stop(): void {
    this.finished = true;
    clearInterval(this.keepAlive);
    clearTimeout(this.headersTimer);
    this.clearStall();
  }

  private clearStall(): void {
    if (this.stallTimer !== undefined) clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
  }
}
