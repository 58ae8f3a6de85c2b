// Runs build_context in a worker thread (_build-worker.ts), so a build over a large store does not
// block the tools that answer on the main thread. The worker starts on the first build with a copy
// of the records; every ingested batch is sent after it. close() terminates it.
import { Worker } from 'node:worker_threads';
import { McpctxError, type McpctxErrorCode } from '../../errors/index.js';
import type { ContextResult, OptimizerOptions, SessionRecords } from '../_types.js';

export interface WorkerStart {
  records: SessionRecords;
  optimizer?: OptimizerOptions;
}

export type BuildRequest = { type: 'ingest'; records: SessionRecords } | { type: 'build'; id: number; task: string; tokenBudget?: number; session?: string };

export type BuildReply =
  | { id: number; result: ContextResult }
  | { id: number; error: { name: string; message: string; code?: string; data?: unknown; stack?: string } };

/**
 * Built, the worker is its .js file. Under vitest or tsx the server runs from its TypeScript
 * source, and so must the worker: Node 20 loads a worker's entry before `--import tsx` in its
 * execArgv takes effect, so a small script registers tsx (a devDependency) and then imports it.
 */
function newWorker(workerData: WorkerStart): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./_build-worker.js', import.meta.url), { workerData });
  const entry = new URL('./_build-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const script = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(script, { eval: true, workerData });
}

let liveWorkers = 0;

/** build_context workers of this process not yet exited: 0 once every server is closed. */
export function liveBuildWorkers(): number {
  return liveWorkers;
}

export class ContextBuilder {
  readonly #records: () => SessionRecords;
  readonly #optimizer: OptimizerOptions | undefined;
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (result: ContextResult) => void; reject: (error: Error) => void }>();
  #closed = false;

  /** `records` gives the records held when the worker starts; later batches come through `ingested`. */
  constructor(records: () => SessionRecords, optimizer?: OptimizerOptions) {
    this.#records = records;
    this.#optimizer = optimizer;
  }

  /** Whether a worker is running (for tests: none is left after close). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** A batch the store accepted: the worker's copy gets it before any later build. */
  ingested(records: SessionRecords): void {
    this.#worker?.postMessage({ type: 'ingest', records } satisfies BuildRequest);
  }

  build(task: string, tokenBudget: number | undefined, session?: string): Promise<ContextResult> {
    if (this.#closed) return Promise.reject(new McpctxError('IO', 'the server is closing; build_context was not run'));
    const worker = this.#worker ?? this.#start();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ type: 'build', id, task, ...(tokenBudget === undefined ? {} : { tokenBudget }), ...(session === undefined ? {} : { session }) } satisfies BuildRequest);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    this.#failAll(new McpctxError('IO', 'the server closed before build_context finished'));
    if (worker !== undefined) await worker.terminate();
  }

  #start(): Worker {
    const start: WorkerStart = this.#optimizer === undefined ? { records: this.#records() } : { records: this.#records(), optimizer: this.#optimizer };
    const worker = newWorker(start);
    liveWorkers++;
    // A server that was never closed must not keep its process alive because of the worker.
    worker.unref();
    worker.on('message', (reply: BuildReply) => {
      const waiting = this.#pending.get(reply.id);
      if (waiting === undefined) return;
      this.#pending.delete(reply.id);
      if ('result' in reply) waiting.resolve(reply.result);
      else waiting.reject(rebuiltError(reply.error));
    });
    worker.on('error', (error) => {
      // The worker is gone (out of memory, a crash): the builds it held fail; the next build starts a new one.
      if (this.#worker === worker) this.#worker = undefined;
      this.#failAll(error);
    });
    worker.on('exit', () => {
      liveWorkers--;
      if (this.#worker === worker) this.#worker = undefined;
      this.#failAll(new Error('the build_context worker exited'));
    });
    this.#worker = worker;
    return worker;
  }

  #failAll(error: Error): void {
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const entry of waiting) entry.reject(error);
  }
}

/** The library's typed refusals cross the thread as plain data; they come back as McpctxErrors. */
function rebuiltError(error: { name: string; message: string; code?: string; data?: unknown; stack?: string }): Error {
  if (error.name === 'McpctxError' && error.code !== undefined) {
    return new McpctxError(error.code as McpctxErrorCode, error.message, (error.data ?? {}) as Record<string, unknown>);
  }
  const rebuilt = new Error(error.message);
  if (error.stack !== undefined) rebuilt.stack = error.stack;
  return rebuilt;
}
