import { McpctxError } from '../errors/index.js';
import { DEFAULT_MAX_FRAME_BYTES } from './_frames.js';

/** One server-sent event: its `data:` lines joined with "\n", and its `event:` and `id:` fields. */
export interface SseEvent {
  data: string;
  /** The `event:` field; "message" when none was given (the SSE default). */
  event: string;
  /** The `id:` field of this event, when it had one. */
  id?: string;
  /** UTF-8 bytes of `data`. */
  dataBytes: number;
}

const LF = 0x0a;
const CR = 0x0d;
/** Room for a field name and its colon on top of the data a line may carry. */
const FIELD_NAME_ALLOWANCE = 64;

/**
 * Parses a `text/event-stream` body (the WHATWG event-stream format) without holding more than
 * `maxEventBytes` of one event: a line or an event that grows past it is refused as soon as it
 * does. Lines end with LF, CR or CRLF (a CRLF split across chunks is one ending); lines starting
 * with ":" are comments; `retry:` and unknown fields are ignored; an event with no data is not
 * dispatched. Bytes must be valid UTF-8.
 */
export class SseReader {
  private line: Buffer[] = [];
  private lineBytes = 0;
  private afterCr = false;
  private data: string[] = [];
  private dataBytes = 0;
  private eventType = '';
  private eventId: string | undefined;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  private firstLine = true;

  constructor(private readonly maxEventBytes: number = DEFAULT_MAX_FRAME_BYTES) {}

  /** Feeds bytes; returns the events they complete. Throws FRAME_TOO_LARGE or INVALID_FRAME. */
  push(chunk: Uint8Array): SseEvent[] {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const events: SseEvent[] = [];
    let start = 0;
    if (this.afterCr && bytes.length > 0) {
      this.afterCr = false;
      if (bytes[0] === LF) start = 1; // the LF of a CRLF whose CR ended the previous chunk
    }
    for (let index = start; index < bytes.length; index += 1) {
      const byte = bytes[index];
      if (byte !== LF && byte !== CR) continue;
      this.appendToLine(bytes.subarray(start, index));
      const event = this.endLine();
      if (event) events.push(event);
      if (byte === CR) {
        if (index + 1 < bytes.length) {
          if (bytes[index + 1] === LF) index += 1;
        } else {
          this.afterCr = true;
        }
      }
      start = index + 1;
    }
    if (start < bytes.length) this.appendToLine(bytes.subarray(start));
    return events;
  }

  /** Bytes of an unfinished line or event still held. */
  get bufferedBytes(): number {
    return this.lineBytes + this.dataBytes;
  }

  private appendToLine(piece: Buffer): void {
    if (piece.length === 0) return;
    const bytes = this.lineBytes + piece.length;
    if (bytes + this.dataBytes > this.maxEventBytes + FIELD_NAME_ALLOWANCE) this.tooLarge(bytes + this.dataBytes);
    this.line.push(Buffer.from(piece)); // a copy: the chunk's memory is the stream's
    this.lineBytes = bytes;
  }

  private endLine(): SseEvent | undefined {
    const raw = this.line.length === 1 ? this.line[0]! : Buffer.concat(this.line);
    this.line = [];
    this.lineBytes = 0;
    let text = this.decode(raw);
    if (this.firstLine) {
      this.firstLine = false;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    if (text === '') return this.dispatch();
    if (text.startsWith(':')) return undefined; // a comment (keep-alive)
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      const bytes = this.dataBytes + Buffer.byteLength(value, 'utf8') + (this.data.length > 0 ? 1 : 0);
      if (bytes > this.maxEventBytes) this.tooLarge(bytes);
      this.data.push(value);
      this.dataBytes = bytes;
    } else if (field === 'event') {
      this.eventType = value;
    } else if (field === 'id') {
      if (!value.includes('\0')) this.eventId = value;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const { data, dataBytes, eventType, eventId } = this;
    this.data = [];
    this.dataBytes = 0;
    this.eventType = '';
    this.eventId = undefined;
    if (data.length === 0) return undefined;
    const event: SseEvent = { data: data.join('\n'), event: eventType === '' ? 'message' : eventType, dataBytes };
    if (eventId !== undefined) event.id = eventId;
    return event;
  }

  private decode(bytes: Buffer): string {
    try {
      return this.decoder.decode(bytes);
    } catch {
      throw new McpctxError('INVALID_FRAME', `the server sent an event-stream line that is not valid UTF-8 (${bytes.length} bytes)`, {
        lineBytes: bytes.length,
      });
    }
  }

  private tooLarge(bytes: number): never {
    throw new McpctxError(
      'FRAME_TOO_LARGE',
      `the server sent an event of more than ${this.maxEventBytes} bytes (${bytes} so far); the limit is ${this.maxEventBytes} bytes`,
      { limitBytes: this.maxEventBytes, receivedBytes: bytes },
    );
  }
}
