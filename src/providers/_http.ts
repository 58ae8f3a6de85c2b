/**
 * What the HTTP providers share: one call with retries under one deadline, the recording fetch
 * that keeps the exact bytes of each attempt for receipts (never its headers: the key rides in
 * them), the key scrubbed from everything recorded or reported, and the errors a call ends with.
 * A provider keeps only its request mapping and the assembly of its answer.
 */
import { inspect } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpctxError, type McpctxErrorData } from '../errors/index.js';
import { SseReader, redactUrl, redactUrlIn, type SseEvent } from '../mcp/index.js';
import { isPlainObject } from '../json/index.js';
import type { ExchangeTiming, RawExchange } from './_types.js';

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 3;
const BACKOFF_FIRST_MS = 500;
const BACKOFF_CAP_MS = 8_000;

/** 408, 409, 429 and every 5xx (Anthropic's 529 overloaded included). */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The wait before retry number `retry` (0 for the first): the server's `retry-after-ms`, then
 * `retry-after` (seconds or an HTTP date), else exponential backoff shrunk by up to a quarter at
 * random, so clients that failed together retry apart.
 */
function retryDelayMs(headers: Headers | undefined, retry: number): number {
  const afterMs = headers?.get('retry-after-ms');
  if (afterMs != null && afterMs.trim() !== '' && Number(afterMs) >= 0) return Number(afterMs);
  const after = headers?.get('retry-after');
  if (after != null && after.trim() !== '') {
    if (Number(after) >= 0) return Number(after) * 1000;
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  return Math.min(BACKOFF_CAP_MS, BACKOFF_FIRST_MS * 2 ** retry) * (1 - Math.random() * 0.25);
}

/** One attempt as the recording fetch saw it. The exchange is unscrubbed: it is read out through `scrub`. */
interface Attempt {
  exchange: RawExchange;
  /** The answer's headers, for retry-after only; never recorded. */
  headers: Headers | undefined;
  /** fetch itself failed: no HTTP answer came (refused, reset, closed before the status line). */
  unanswered: boolean;
  timing: ExchangeTiming;
}

/**
 * A fetch that hands each attempt to `onAttempt` as it starts, then fills in its status, headers
 * and the response body as the SDK reads it, so a stream is recorded whole, including when it breaks.
 */
function recordingFetch(base: typeof fetch, onAttempt: (attempt: Attempt) => void): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const attempt: Attempt = {
      exchange: { url, request: typeof init?.body === 'string' ? init.body : '', response: '', status: 0 },
      headers: undefined,
      unanswered: false,
      timing: { startedAt: new Date().toISOString(), firstByteAt: null, endedAt: null },
    };
    const exchange = attempt.exchange;
    onAttempt(attempt);
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      attempt.unanswered = true;
      throw error;
    }
    exchange.status = response.status;
    attempt.headers = response.headers;
    if (response.body === null) return response;
    const decoder = new TextDecoder();
    const recorded = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          attempt.timing.firstByteAt ??= new Date().toISOString();
          exchange.response += decoder.decode(chunk, { stream: true });
          controller.enqueue(chunk);
        },
        flush() {
          exchange.response += decoder.decode();
        },
      }),
    );
    return new Response(recorded, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * The events of a recorded event stream (the `response` of a streamed exchange), parsed by the
 * project's one event-stream reader (an event without `event:` is named "message"). An event
 * left unfinished at the end (no blank line after it) was never dispatched, as on the wire.
 * Text that is not an event stream yields no events; a line that cannot be read is PROVIDER_ERROR.
 */
export function recordedSseEvents(text: string): SseEvent[] {
  const bytes = Buffer.from(text, 'utf8');
  try {
    return new SseReader(bytes.length + 1).push(bytes);
  } catch (error) {
    throw new McpctxError('PROVIDER_ERROR', `the recorded event stream cannot be read: ${(error as Error).message}`, {}, { cause: error });
  }
}

// ---------------------------------------------------------------- one call: attempts, retries, deadline

/** Who is called and how; resolved once per provider. */
export interface HttpTarget {
  /** Names the API in messages: "Anthropic", or an OpenAI-compatible base URL. */
  readonly api: string;
  /** Retries after the first attempt (DEFAULT_MAX_RETRIES unless the caller says). */
  readonly maxRetries: number;
  readonly fetch: typeof fetch;
}

/** What one attempt gets: the SDK client is built on `fetch`, and stops at `signal`. */
export interface AttemptIo {
  /** The recording fetch: give it to the SDK client. */
  readonly fetch: typeof fetch;
  /** Aborted at the call's deadline, which covers every attempt and every wait. */
  readonly signal: AbortSignal;
  /** ms left before the deadline (the SDK's own timeout is set past it, so the deadline decides). */
  remainingMs(): number;
  /** The body of this attempt's answer as received so far, unscrubbed: for checks, never for output. */
  receivedText(): string;
}

/** One attempt as recorded: its bytes (key scrubbed) and when it happened. */
export interface RecordedAttempt {
  raw: RawExchange;
  timing: ExchangeTiming;
}

export interface HttpResult<T> {
  value: T;
  /** The last attempt, key scrubbed. */
  raw: RawExchange;
  attempts: number;
  /** When the last attempt (the one that answered) went out, its first byte came and it ended. */
  timing: ExchangeTiming;
  /** The attempts before it, in order, key scrubbed. */
  retried: RecordedAttempt[];
}

/**
 * `data` of the PROVIDER_ERROR a call ends with: `status` is the HTTP status of the last attempt
 * when it got an answer, and absent when none came; `attempts` counts HTTP requests made; `raw` is
 * the last attempt, key scrubbed, and `timing` when it went out; `retried` the attempts before it.
 * An error of the provider's own (a stream outside the API's shape) keeps its data beside these.
 */
export type CallErrorData = { status?: number; attempts: number; raw: RawExchange; timing?: ExchangeTiming; retried: RecordedAttempt[] };

/** `data` of the DEADLINE a call ends with: the same, and the budget that ran out. */
export type DeadlineErrorData = CallErrorData & { timeoutMs: number };

/**
 * Runs `attempt` until it succeeds. Retried: an answer with status 408/409/429/5xx (Anthropic's 529
 * included) and a request that got no answer at all (refused, reset), after the server's
 * retry-after-ms / retry-after or an exponential backoff with jitter, at most `maxRetries` times and
 * never past the deadline (`timeoutMs`, default 120 s, every attempt and wait included). Not
 * retried: any other status, and any error the attempt reports as McpctxError (a stream cut or
 * outside the API's shape after a 2xx: the model may already have acted on part of the turn).
 * `key` is scrubbed from the recorded bodies and from every message, in case a server echoes it.
 */
export async function callWithRetries<T>(
  target: HttpTarget,
  key: string | undefined,
  timeoutMs: number | undefined,
  attempt: (io: AttemptIo) => Promise<T>,
): Promise<HttpResult<T>> {
  const call = new HttpCall(target, key, timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    for (let retry = 0; ; retry += 1) {
      call.current = undefined;
      try {
        const value = await attempt(call.io);
        call.attemptEnded();
        return { value, raw: call.raw(), attempts: call.attempts, timing: call.lastTiming(), retried: call.retried() };
      } catch (error) {
        call.attemptEnded();
        await call.waitToRetry(error, retry);
      }
    }
  } finally {
    call.finish();
  }
}

class HttpCall {
  attempts = 0;
  /** This attempt, once its request went out (undefined before: then it cannot be judged). */
  current: Attempt | undefined;
  private last: Attempt | undefined;
  /** Every attempt whose request went out, in order: the last is `last`. */
  private readonly all: Attempt[] = [];
  private readonly deadline = new AbortController();
  private readonly deadlineAt: number;
  private readonly timer: ReturnType<typeof setTimeout>;
  readonly io: AttemptIo;

  constructor(
    private readonly target: HttpTarget,
    private readonly key: string | undefined,
    private readonly budgetMs: number,
  ) {
    this.deadlineAt = Date.now() + budgetMs;
    this.timer = setTimeout(() => this.deadline.abort(), budgetMs);
    const fetch = recordingFetch(target.fetch, (attempt) => {
      this.attempts += 1;
      this.current = attempt;
      this.last = attempt;
      this.all.push(attempt);
    });
    this.io = {
      fetch,
      signal: this.deadline.signal,
      remainingMs: () => Math.max(0, this.deadlineAt - Date.now()),
      receivedText: () => this.current?.exchange.response ?? '',
    };
  }

  finish(): void {
    clearTimeout(this.timer);
  }

  /** The attempt is over, read whole or failed: its end time. */
  attemptEnded(): void {
    if (this.current !== undefined) this.current.timing.endedAt ??= new Date().toISOString();
  }

  /** Returns after the wait when the failed attempt is retried; throws the call's error otherwise. */
  async waitToRetry(error: unknown, retry: number): Promise<void> {
    if (this.deadline.signal.aborted || Date.now() >= this.deadlineAt) throw this.deadlineError(error);
    if (error instanceof McpctxError) throw this.adopt(error);
    const attempt = this.current;
    if (attempt === undefined) throw this.failure(`the ${this.target.api} call failed before its request went out: ${causeChain(error)}`, error);
    const retryable = attempt.unanswered || isRetryableStatus(attempt.exchange.status);
    if (!retryable) throw this.attemptError(attempt, error);
    if (retry >= this.target.maxRetries) throw this.attemptError(attempt, error, ` (after ${this.attempts} attempts)`);
    const waitMs = retryDelayMs(attempt.headers, retry);
    if (Date.now() + waitMs >= this.deadlineAt) {
      throw this.attemptError(attempt, error, `; not retried: waiting ${Math.round(waitMs)} ms would pass the ${this.budgetMs} ms deadline`);
    }
    try {
      await sleep(waitMs, undefined, { signal: this.deadline.signal });
    } catch (slept) {
      throw this.deadlineError(slept);
    }
  }

  /** The last attempt, key scrubbed (status 0: no answer came). */
  raw(): RawExchange {
    return this.scrubbed(this.last?.exchange ?? { url: '', request: '', response: '', status: 0 });
  }

  /** The last attempt's timing, a copy; only called once an attempt answered. */
  lastTiming(): ExchangeTiming {
    const timing = this.last?.timing;
    const now = new Date().toISOString();
    return timing === undefined ? { startedAt: now, firstByteAt: null, endedAt: now } : { ...timing };
  }

  /** The attempts before the last, in order, key scrubbed. */
  retried(): RecordedAttempt[] {
    return this.all.slice(0, -1).map((attempt) => ({ raw: this.scrubbed(attempt.exchange), timing: { ...attempt.timing } }));
  }

  private scrubbed(exchange: RawExchange): RawExchange {
    // The URL as messages name it: a base URL's user, password or credential query value stays out of receipts.
    return { url: exchange.url === '' ? '' : redactUrl(exchange.url).url, request: this.scrub(exchange.request), response: this.scrub(exchange.response), status: exchange.status };
  }

  private data(): CallErrorData {
    const raw = this.raw();
    const timing = this.last?.timing;
    return { ...(raw.status > 0 ? { status: raw.status } : {}), attempts: this.attempts, raw, ...(timing === undefined ? {} : { timing: { ...timing } }), retried: this.retried() };
  }

  /** The attempt's failure in the API's own words: its status and error body, or why no answer came. */
  private attemptError(attempt: Attempt, error: unknown, suffix = ''): McpctxError {
    const { url, status, response } = attempt.exchange;
    if (attempt.unanswered) return this.failure(`could not reach ${redactUrl(url).url}: ${redactUrlIn(causeChain(error), url)}${suffix}`, error);
    if (status >= 400) return this.failure(`${this.target.api} answered HTTP ${status}: ${apiErrorText(response) ?? response.slice(0, 200)}${suffix}`);
    return this.failure(`the ${this.target.api} call failed: ${causeChain(error)}${suffix}`, error);
  }

  private failure(message: string, cause?: unknown): McpctxError {
    return new McpctxError('PROVIDER_ERROR', this.scrub(message), this.data(), this.keyFree(cause));
  }

  /** The provider's own PROVIDER_ERROR (its stream or answer out of shape) gains the call's data. */
  private adopt(error: McpctxError): McpctxError {
    if (error.code !== 'PROVIDER_ERROR') return error;
    // A PROVIDER_ERROR (checked above), so its data has PROVIDER_ERROR's keys.
    const data = error.data as McpctxErrorData['PROVIDER_ERROR'];
    return new McpctxError('PROVIDER_ERROR', this.scrub(error.message), { ...data, ...this.data() }, this.keyFree(error.cause));
  }

  private deadlineError(cause: unknown): McpctxError {
    const data: DeadlineErrorData = { timeoutMs: this.budgetMs, ...this.data() };
    return new McpctxError('DEADLINE', `the ${this.target.api} call passed its ${this.budgetMs} ms deadline (${this.attempts} attempt(s))`, data, this.keyFree(cause));
  }

  /** The key text never leaves: a server may echo it in a body, and an error quotes bodies. */
  private scrub(text: string): string {
    return this.key === undefined ? text : text.replaceAll(this.key, '[redacted]');
  }

  /**
   * A cause is kept for its story (why a socket closed) unless it carries the key anywhere: SDK
   * errors hold the answer's body, which cannot be scrubbed in place, so such a cause is dropped.
   */
  private keyFree(cause: unknown): { cause: unknown } | undefined {
    if (cause === undefined) return undefined;
    if (this.key !== undefined && inspect(cause, { depth: 8, showHidden: true }).includes(this.key)) return undefined;
    return { cause };
  }
}

/** The API's own `error.type: error.message` from an error body (both APIs nest it under `error`), if it has one. */
export function apiErrorText(body: unknown): string | undefined {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  const inner = isPlainObject(parsed) && isPlainObject(parsed.error) ? parsed.error : undefined;
  if (inner === undefined || typeof inner.message !== 'string') return undefined;
  return typeof inner.type === 'string' ? `${inner.type}: ${inner.message}` : inner.message;
}

/** An error and its causes, a few levels deep ("fetch failed: other side closed"). */
export function causeChain(error: unknown): string {
  const messages: string[] = [];
  for (let link: unknown = error; link instanceof Error && messages.length < 4; link = link.cause) messages.push(link.message);
  return messages.length === 0 ? String(error) : messages.join(': ');
}
