// Plain-fetch helpers for driving the HTTP front the way a client would.
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
