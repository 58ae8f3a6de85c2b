// The gateway in the test's own process: `startGateway` with a stdio front on two PassThrough
// streams, its upstreams real stdio child processes of the test servers (marked, so the leak
// check still sees them). For the gateway's logic (rules, trust, shaping): no CLI process to
// spawn and no gateway code to load per test. What needs the gateway's own process (exit codes,
// signals, leaks of its process group, the CLI's flags) stays on `_gateway-process.ts`.
import { PassThrough } from 'node:stream';
import { loadGatewayConfig } from '../../src/gateway/config/index.js';
import { startGateway, type RunningGateway } from '../../src/gateway/index.js';
import { markedEnv } from '../support/processes.js';
import { type Answer, CANNED_ANSWERS, type Message, type WireClient } from '../support/wire-client.js';
import { INITIALIZE_PARAMS } from './_raw-stdio.js';
import { ConditionWaiters } from '../support/condition-waiters.js';

const DEFAULT_TIMEOUT_MS = 30_000;

export interface InProcessOptions {
  /** The gateway config file, as `--config FILE`. */
  readonly config: string;
  /** The receipts file, as `--receipts FILE`. */
  readonly receipts?: string;
  /** Answers the gateway's requests to the client (elicitation, sampling, roots); default none: the test answers them itself. */
  readonly answer?: Answer;
  /** More variables of the gateway's environment (what `${NAME}` in the config reads), beside the test mark and PATH. */
  readonly env?: Record<string, string>;
}

/** A client on the gateway's stdio front: every message it receives recorded as parsed, in order. */
export class InProcessGateway implements WireClient {
  readonly received: Message[] = [];
  private readonly input = new PassThrough();
  private readonly output = new PassThrough();
  private readonly conditions = new ConditionWaiters();
  private running: RunningGateway | undefined;
  private stderrText = '';
  private nextId = 1;
  private closing: Promise<void> | undefined;

  private constructor(private readonly answer: Answer | undefined) {
    let buffered = '';
    this.output.setEncoding('utf8');
    this.output.on('data', (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim() !== '') this.deliver(JSON.parse(line) as Message);
      }
    });
  }

  /** Starts the gateway as `mcpctx gateway --config FILE [--receipts FILE]` would, in this process. */
  static async start(options: InProcessOptions): Promise<InProcessGateway> {
    const client = new InProcessGateway(options.answer);
    client.running = await startGateway({
      config: await loadGatewayConfig(options.config),
      front: { kind: 'stdio', input: client.input, output: client.output },
      // What the CLI's process would have: the test mark and PATH (the gateway passes only named variables on).
      env: markedEnv({ PATH: process.env.PATH ?? '', ...options.env }),
      ...(options.receipts === undefined ? {} : { receiptsFile: options.receipts }),
      log: (line) => {
        client.stderrText = (client.stderrText + `mcpctx gateway: ${line}\n`).slice(-20_000);
        client.conditions.notify();
      },
    });
    return client;
  }

  /** What the gateway logged (its stderr, had it been a process). */
  stderr(): string {
    return this.stderrText;
  }

  /** Sends a request (a fresh numeric id, or the one given) and waits for the response with that id. */
  async request(method: string, params?: Message, options: number | { id?: string | number; timeoutMs?: number } = {}): Promise<Message> {
    const { id = this.nextId++, timeoutMs = DEFAULT_TIMEOUT_MS } = typeof options === 'number' ? { timeoutMs: options } : options;
    const message: Message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    const responses = (): Message[] => this.received.filter((one) => one.method === undefined && one.id === id);
    const seen = responses().length;
    await this.send(message);
    await this.waitFor(() => responses().length > seen, timeoutMs, `a response to ${method} (id ${JSON.stringify(id)})`);
    return responses()[seen] as Message;
  }

  async initialize(params: Message = INITIALIZE_PARAMS): Promise<Message> {
    const response = await this.request('initialize', params);
    await this.notify('notifications/initialized');
    return response;
  }

  send(message: Message): Promise<void> {
    return new Promise((resolve) => {
      if (!this.input.writable) {
        resolve();
        return;
      }
      this.input.write(`${JSON.stringify(message)}\n`, () => resolve());
    });
  }

  notify(method: string, params?: Message): Promise<void> {
    return this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  waitFor(probe: (received: readonly Message[]) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS, what = 'the condition'): Promise<void> {
    return this.conditions.waitFor(
      () => probe(this.received),
      timeoutMs,
      () => `${what} not met within ${timeoutMs} ms; received ${this.received.length} messages; stderr: ${this.stderrText.slice(-2000)}`,
    );
  }

  /** Ends the client's input, as a stdio client that goes away: the session ends and its upstreams with it. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.input.end();
      const running = this.running;
      if (running === undefined) return;
      await running.done;
      await running.close();
    })();
    return this.closing;
  }

  private deliver(message: Message): void {
    this.received.push(message);
    this.conditions.notify();
    if (this.answer !== undefined && message.id !== undefined && typeof message.method === 'string') {
      const answer = this.answer;
      void Promise.resolve(answer(message)).then((reply) => this.send({ jsonrpc: '2.0', id: message.id, ...reply }));
    }
  }

}

/** As `gatewayOverStdio`: the gateway's requests to the client get the canned answers unless `answer` is given. */
export function inProcessGateway(options: InProcessOptions): Promise<InProcessGateway> {
  return InProcessGateway.start({ answer: CANNED_ANSWERS, ...options });
}

/** Runs `run` against a fresh in-process gateway, closed (its upstreams ended) whatever happens. */
export async function withInProcessGateway<T>(options: InProcessOptions, run: (gateway: InProcessGateway) => Promise<T>): Promise<T> {
  const gateway = await InProcessGateway.start(options);
  try {
    return await run(gateway);
  } finally {
    await gateway.close();
  }
}
