import { McpctxError } from '../errors/index.js';
import type { Redactor } from './_redact.js';
import { SseReader, type SseEvent } from './_sse-reader.js';

/** What of an error body goes into an error message. */
export const ERROR_BODY_CHARS = 200;

/**
 * Reads a whole response body, refusing it (FRAME_TOO_LARGE) as soon as it passes `maxBytes`:
 * first by its declared Content-Length, then by what actually arrives.
 */
export async function readBoundedBody(response: Response, maxBytes: number, what: string): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(what, maxBytes, declared);
  }
  const body = response.body;
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(what, maxBytes, total);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, total);
}

/** The start of a body for a diagnostic: at most `maxBytes` read, the rest of the stream dropped. */
export async function readBodyStart(response: Response, maxBytes: number): Promise<string> {
  const body = response.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    while (total < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      total += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/** Yields the events of a `text/event-stream` body, each bounded by `maxEventBytes`. */
export async function* readEvents(response: Response, maxEventBytes: number): AsyncGenerator<SseEvent> {
  const body = response.body;
  if (!body) return;
  const sse = new SseReader(maxEventBytes);
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      for (const event of sse.push(value)) yield event;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * A server's text fit for an error message: every secret replaced, control characters (which
 * could rewrite a terminal) turned into spaces, and at most ERROR_BODY_CHARS characters kept.
 */
export function describeBody(text: string, redactor: Redactor): string {
  // eslint-disable-next-line no-control-regex
  const printable = redactor.text(text).replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  if (printable === '') return '(empty body)';
  return printable.length > ERROR_BODY_CHARS ? `${printable.slice(0, ERROR_BODY_CHARS)}...` : printable;
}

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaType(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

function tooLarge(what: string, limitBytes: number, receivedBytes: number): McpctxError {
  return new McpctxError(
    'FRAME_TOO_LARGE',
    `the server's answer to ${what} is more than ${limitBytes} bytes (${receivedBytes}); the limit is ${limitBytes} bytes`,
    { limitBytes, receivedBytes },
  );
}
