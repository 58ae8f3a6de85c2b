/** Keeps only the last `limitBytes` of a byte stream, however much flows through. */
export class BoundedTail {
  private chunks: Buffer[] = [];
  private keptBytes = 0;
  totalBytes = 0;

  constructor(private readonly limitBytes: number) {}

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    if (this.limitBytes <= 0) return;
    const piece = chunk.length > this.limitBytes ? chunk.subarray(chunk.length - this.limitBytes) : chunk;
    this.chunks.push(Buffer.from(piece));
    this.keptBytes += piece.length;
    while (this.keptBytes - (this.chunks[0]?.length ?? 0) >= this.limitBytes) {
      this.keptBytes -= this.chunks.shift()?.length ?? 0;
    }
  }

  /** The kept bytes as text; a character cut at the start of the window is dropped. */
  text(): string {
    return lastBytesAsText(Buffer.concat(this.chunks), this.limitBytes);
  }

  /** True when bytes were dropped from the front. */
  get cut(): boolean {
    return this.totalBytes > this.keptBytes || this.keptBytes > this.limitBytes;
  }
}

/** The last `limitBytes` of `bytes` as UTF-8, without the remains of a character cut in half. */
export function lastBytesAsText(bytes: Buffer, limitBytes: number): string {
  const window = bytes.length > limitBytes ? bytes.subarray(bytes.length - limitBytes) : bytes;
  let start = 0;
  while (start < window.length && start < 3 && ((window[start] ?? 0) & 0xc0) === 0x80) start += 1;
  return window.subarray(start).toString('utf8');
}
