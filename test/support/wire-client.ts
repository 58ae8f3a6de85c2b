// A test MCP client that speaks raw JSON-RPC over stdio or streamable HTTP and records every
// message it receives, exactly as parsed (key order kept): the means to compare what a client
// sees directly with what it sees through the gateway. Server requests are answered by `answer`.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { ConditionWaiters } from './condition-waiters.js';

export type Message = Record<string, unknown>;

export interface WireClient {
  /** Sends a request and resolves with the whole response message. */
  request(method: string, params?: Message, timeoutMs?: number): Promise<Message>;
  /** Sends a request without waiting (for cancellation tests); the response, if any, is recorded. */
  send(message: Message): Promise<void>;
  notify(method: string, params?: Message): Promise<void>;
  /** Everything received, in order. */
  readonly received: Message[];
  /** Waits until `probe` holds over what was received, or fails after timeoutMs. */
  waitFor(probe: (received: readonly Message[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
  /** stderr of a stdio process so far. */
  stderr(): string;
}

export type Answer = (request: Message) => Message | Promise<Message>;

/** Answers every server request with a fixed result per method. */
export const CANNED_ANSWERS: Answer = (request) => {
  switch (request.method) {
    case 'sampling/createMessage':
      return { result: { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'test-model', stopReason: 'endTurn', 'x-s': 1 } };
    case 'elicitation/create':
      return { result: { action: 'accept', content: { name: 'Ada' } } };
    case 'roots/list':
      return { result: { roots: [{ uri: 'file:///tmp/project', name: 'project' }] } };
    default:
      return { result: {} };
  }
};

const DEFAULT_TIMEOUT_MS = 30_000;

abstract class BaseClient implements WireClient {
  readonly received: Message[] = [];
  private readonly waiters = new Map<string, (message: Message) => void>();
  private readonly conditions = new ConditionWaiters();
  private nextId = 1;

  constructor(private readonly answer: Answer) {}

  protected abstract write(message: Message): Promise<void>;
  abstract close(): Promise<void>;
  stderr(): string {
    return '';
  }

  protected deliver(message: Message): void {
    this.received.push(message);
    this.conditions.notify();
    const isResponse = message.method === undefined && message.id !== undefined;
    if (isResponse) {
      const waiter = this.waiters.get(JSON.stringify(message.id));
      if (waiter) {
        this.waiters.delete(JSON.stringify(message.id));
        waiter(message);
      }
      return;
    }
    if (message.id !== undefined && typeof message.method === 'string') {
      void Promise.resolve(this.answer(message)).then((reply) => this.write({ jsonrpc: '2.0', id: message.id, ...reply }).catch(() => {}));
    }
  }

  async request(method: string, params?: Message, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Message> {
    const id = this.nextId++;
    const message: Message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    const response = new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(JSON.stringify(id));
        reject(new Error(`no response to ${method} (id ${id}) within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(JSON.stringify(id), (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
    await this.write(message);
    return response;
  }

  send(message: Message): Promise<void> {
    return this.write(message);
  }

  notify(method: string, params?: Message): Promise<void> {
    return this.write(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  waitFor(probe: (received: readonly Message[]) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
    return this.conditions.waitFor(() => probe(this.received), timeoutMs, () => `condition not met within ${timeoutMs} ms; received ${this.received.length} messages`);
  }
}

class StdioClient extends BaseClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private stderrText = '';
  private readonly exited: Promise<void>;

  constructor(command: string, args: readonly string[], env: Record<string, string>, answer: Answer) {
    super(answer);
    this.child = spawn(command, args, { env, stdio: 'pipe' });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    let buffered = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim() !== '') this.deliver(JSON.parse(line) as Message);
      }
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderrText = (this.stderrText + chunk).slice(-20_000);
    });
    this.child.stdin.on('error', () => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  override stderr(): string {
    return this.stderrText;
  }

  protected write(message: Message): Promise<void> {
    return new Promise((resolve, reject) => this.child.stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve())));
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

class HttpClient extends BaseClient {
  private sessionId: string | undefined;
  private readonly controller = new AbortController();
  private listening = false;

  constructor(
    private readonly url: string,
    answer: Answer,
    private readonly headers: Record<string, string>,
  ) {
    super(answer);
  }

  protected async write(message: Message): Promise<void> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
        ...this.headers,
      },
      body: JSON.stringify(message),
      signal: this.controller.signal,
    });
    this.sessionId ??= response.headers.get('mcp-session-id') ?? undefined;
    if (response.status === 202) return;
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) {
      void this.readEvents(response).then(() => this.listen());
      return;
    }
    const text = await response.text();
    if (text.trim() === '') return;
    const parsed = JSON.parse(text) as Message | Message[];
    for (const one of Array.isArray(parsed) ? parsed : [parsed]) this.deliver(one);
    this.listen();
  }

  /** After initialize: the GET stream for messages not tied to a request. */
  private listen(): void {
    if (this.listening || !this.sessionId) return;
    this.listening = true;
    void fetch(this.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': this.sessionId, ...this.headers },
      signal: this.controller.signal,
    })
      .then((response) => (response.ok ? this.readEvents(response) : undefined))
      .catch(() => {});
  }

  private async readEvents(response: Response): Promise<void> {
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
        for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n')) {
          const event = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = event
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).replace(/^ /, ''))
            .join('\n');
          if (data !== '') this.deliver(JSON.parse(data) as Message);
        }
      }
    } catch {
      // aborted on close
    }
  }

  async close(): Promise<void> {
    if (this.sessionId) {
      await fetch(this.url, { method: 'DELETE', headers: { 'mcp-session-id': this.sessionId, ...this.headers } }).catch(() => {});
    }
    this.controller.abort();
  }
}

export function stdioClient(command: string, args: readonly string[], env: Record<string, string>, answer: Answer = CANNED_ANSWERS): WireClient & { pid: number | undefined } {
  return new StdioClient(command, args, env, answer);
}

export function httpClient(url: string, answer: Answer = CANNED_ANSWERS, headers: Record<string, string> = {}): WireClient {
  return new HttpClient(url, answer, headers);
}
