/**
 * What the HTTP providers share: the recording fetch that keeps the exact bytes of each attempt
 * for receipts (never its headers: the key rides in them), which statuses are retried, and how
 * long to wait before the next attempt.
 */
import { McpctxError } from '../errors/index.js';
import { SseReader, type SseEvent } from '../mcp/index.js';
import type { RawExchange } from './_types.js';

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 3;
const BACKOFF_FIRST_MS = 500;
const BACKOFF_CAP_MS = 8_000;

/** 408, 409, 429 and every 5xx (Anthropic's 529 overloaded included). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The wait before retry number `retry` (0 for the first): the server's `retry-after-ms`, then
 * `retry-after` (seconds or an HTTP date), else exponential backoff shrunk by up to a quarter at
 * random, so clients that failed together retry apart.
 */
export function retryDelayMs(headers: Headers | undefined, retry: number): number {
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

/**
 * A fetch that hands each attempt's exchange to `onAttempt` as it starts, then fills in its status
 * and the response body as the SDK reads it, so a stream is recorded whole, including when it breaks.
 */
export function recordingFetch(base: typeof fetch, onAttempt: (exchange: RawExchange) => void): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const exchange: RawExchange = { url, request: typeof init?.body === 'string' ? init.body : '', response: '', status: 0 };
    onAttempt(exchange);
    const response = await base(input, init);
    exchange.status = response.status;
    if (response.body === null) return response;
    const decoder = new TextDecoder();
    const recorded = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
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
