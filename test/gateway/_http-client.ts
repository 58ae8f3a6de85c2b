// Plain-fetch helpers for driving the HTTP front the way a client would (and node:http for what fetch will not send).
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';

export const ACCEPT_BOTH = 'application/json, text/event-stream';

export interface PostOptions {
  session?: string;
  accept?: string;
  headers?: Record<string, string>;
}

export function post(url: string, body: unknown, options: PostOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.accept ?? 'application/json',
    ...(options.session === undefined ? {} : { 'mcp-session-id': options.session }),
    ...options.headers,
  };
  return fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

export function initializeRequest(id: number | string = 0): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '0' } },
  };
}

/** Starts a session; returns its id. */
export async function openSession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await post(url, initializeRequest(), { headers });
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}: ${await response.text()}`);
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (id === null) throw new Error('no Mcp-Session-Id');
  return id;
}

/** The `data:` payloads of a finished SSE body, as raw text. */
export function sseData(body: string): string[] {
  return body
    .split('\n\n')
    .flatMap((event) => event.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length)));
}

/** Reads SSE events from an open stream one at a time, each wait bounded. */
export class SseReader {
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(response: Response) {
    if (response.body === null) throw new Error('no body');
    this.reader = response.body.getReader();
  }

  /** The next message's raw JSON text; undefined when the stream ended. */
  async next(timeoutMs = 10_000): Promise<string | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const data = this.take();
      if (data !== undefined) return data;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no SSE event in time');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no SSE event in time')), left);
      });
      const chunk = await Promise.race([this.reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (chunk.done) return undefined;
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }

  private take(): string | undefined {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end === -1) return undefined;
      const event = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data = event.split('\n').find((line) => line.startsWith('data: '));
      if (data !== undefined) return data.slice('data: '.length);
    }
  }
}

export interface RawPostOptions {
  /** Headers as sent, Host included (fetch always sets Host from the URL; this does not when one is given). */
  headers?: Record<string, string>;
  /** Send no Host header at all. */
  noHost?: boolean;
  /** The client's source address (any 127.x.x.x reaches a front bound to 127.0.0.1): another "client" on loopback. */
  localAddress?: string;
}

/** A POST through node:http, for what fetch will not send: a foreign Host, no Host, another source address. Bounded at 10 s. */
export function rawPost(url: string, body: unknown, options: RawPostOptions = {}): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const target = new URL(url);
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        setHost: options.noHost !== true && options.headers?.host === undefined,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
        timeout: 10_000,
      },
      (response) => {
        let received = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (received += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: received }));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer within 10 s')));
    request.on('error', reject);
    request.end(text);
  });
}
