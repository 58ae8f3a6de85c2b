import type { ServerResponse } from 'node:http';
import { type SseStream } from './_sse-writer.js';

/** A client request's id as a map key: `1` and `"1"` are different requests. */
export function requestKey(id: string | number): string {
  return JSON.stringify(id);
}

/** The requests of one POST, and the response that answers them (an SSE stream or one JSON body). */
export interface Exchange {
  /**
   * Delivers a message that belongs to one of this POST's requests. `answers` is the key of the
   * request it answers (a response), else undefined. False when this exchange cannot carry it.
   */
  deliver(jsonText: string, answers: string | undefined): boolean;
  /** Whether the client is still there to receive. */
  readonly open: boolean;
  /** Ends the exchange, answering every unanswered request with an error naming `reason`. */
  abort(reason: string): void;
}

function sessionEndedError(id: string | number, reason: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: `The gateway session ended: ${reason}` } });
}

/** The answers go on the POST's own SSE stream, which ends after the last response. */
export class SseExchange implements Exchange {
  private readonly unanswered: Map<string, string | number>;

  constructor(
    private readonly stream: SseStream,
    requestIds: ReadonlyArray<string | number>,
    private readonly onDone: () => void,
  ) {
    this.unanswered = new Map(requestIds.map((id) => [requestKey(id), id]));
  }

  get open(): boolean {
    return this.stream.open;
  }

  deliver(jsonText: string, answers: string | undefined): boolean {
    const last = answers !== undefined && this.unanswered.size === 1 && this.unanswered.has(answers);
    if (!last) {
      if (!this.stream.send(jsonText)) return false;
      if (answers !== undefined) this.unanswered.delete(answers);
      return true;
    }
    // The last answer and the end of the stream leave in one write.
    if (!this.stream.sendLast(jsonText)) return false;
    this.unanswered.delete(answers);
    this.onDone();
    return true;
  }

  abort(reason: string): void {
    for (const id of this.unanswered.values()) this.stream.send(sessionEndedError(id, reason));
    this.unanswered.clear();
    this.stream.end();
  }
}

/** The answers are gathered into one `application/json` body (an array for a batch). */
export class JsonExchange implements Exchange {
  private readonly unanswered: Map<string, string | number>;
  private readonly answers: string[] = [];
  private finished = false;

  constructor(
    private readonly response: ServerResponse,
    requestIds: ReadonlyArray<string | number>,
    private readonly batch: boolean,
    private readonly headers: Record<string, string>,
    private readonly onDone: () => void,
  ) {
    this.unanswered = new Map(requestIds.map((id) => [requestKey(id), id]));
    response.on('close', () => {
      this.finished = true;
    });
  }

  get open(): boolean {
    return !this.finished;
  }

  deliver(jsonText: string, answers: string | undefined): boolean {
    // Only responses fit in a JSON body; the relay routes the rest elsewhere.
    if (this.finished || answers === undefined || !this.unanswered.delete(answers)) return false;
    this.answers.push(jsonText);
    if (this.unanswered.size === 0) this.finish();
    return true;
  }

  abort(reason: string): void {
    if (this.finished) return;
    for (const id of this.unanswered.values()) this.answers.push(sessionEndedError(id, reason));
    this.unanswered.clear();
    this.finish();
  }

  private finish(): void {
    this.finished = true;
    const body = this.batch ? `[${this.answers.join(',')}]` : (this.answers[0] ?? '');
    this.response.writeHead(200, { 'content-type': 'application/json', ...this.headers });
    this.response.end(body);
    this.onDone();
  }
}
