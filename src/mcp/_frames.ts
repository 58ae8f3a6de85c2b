import { McpctxError } from '../errors/index.js';

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream into newline-delimited frames without ever holding more than
 * `maxFrameBytes` of one frame: a line that grows past the limit is refused as soon as it does,
 * whether or not its newline ever arrives. Frames must be valid UTF-8.
 */
export class FrameSplitter {
  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  constructor(private readonly maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES) {}

  /** Feeds bytes; returns the complete frames they finish. Throws on a frame over the limit. */
  push(chunk: Buffer): string[] {
    const frames: string[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE, start); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, newline);
      this.checkSize(this.pendingBytes + piece.length, true);
      frames.push(this.decode(this.takePending(piece)));
      start = newline + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.checkSize(this.pendingBytes + rest.length, false);
      this.chunks.push(rest);
      this.pendingBytes += rest.length;
    }
    return frames;
  }

  /** Bytes of an unfinished frame still held (for diagnostics). */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  private takePending(tail: Buffer): Buffer {
    const whole = this.chunks.length === 0 ? tail : Buffer.concat([...this.chunks, tail]);
    this.chunks = [];
    this.pendingBytes = 0;
    const end = whole.length > 0 && whole[whole.length - 1] === CARRIAGE_RETURN ? whole.length - 1 : whole.length;
    return whole.subarray(0, end);
  }

  private checkSize(bytes: number, complete: boolean): void {
    if (bytes <= this.maxFrameBytes) return;
    throw new McpctxError(
      'FRAME_TOO_LARGE',
      complete
        ? `server sent a ${bytes}-byte message; the limit is ${this.maxFrameBytes} bytes`
        : `server sent more than ${this.maxFrameBytes} bytes without ending the line; the limit is ${this.maxFrameBytes} bytes`,
      { limitBytes: this.maxFrameBytes, receivedBytes: bytes, lineEnded: complete },
    );
  }

  private decode(bytes: Buffer): string {
    try {
      return this.decoder.decode(bytes);
    } catch {
      const offset = firstInvalidUtf8Offset(bytes);
      throw new McpctxError(
        'INVALID_FRAME',
        `server sent a line that is not valid UTF-8 (first bad byte at offset ${offset} of ${bytes.length})`,
        { offset, lineBytes: bytes.length },
      );
    }
  }
}

function firstInvalidUtf8Offset(bytes: Buffer): number {
  const decodes = (end: number, stream: boolean): boolean => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end), { stream });
      return true;
    } catch {
      return false;
    }
  };
  // The longest prefix that could still be valid (an unfinished sequence at its end allowed),
  // found by bisection; the bad sequence starts where the last complete character ends.
  let low = 0;
  let high = bytes.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (decodes(middle, true)) low = middle;
    else high = middle - 1;
  }
  for (let start = low; start > Math.max(0, low - 4); start -= 1) {
    if (decodes(start, false)) return start;
  }
  return Math.max(0, low - 4);
}
