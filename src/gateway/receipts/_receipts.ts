import { open, type FileHandle } from 'node:fs/promises';
import { McpctxError } from '../../errors/index.js';
import type { ToolChange } from '../catalog/index.js';

export type ReceiptAction = 'passed' | 'projected' | 'paged' | 'offloaded' | 'refused' | 'denied' | 'failed' | 'listed';

export const RECEIPT_ACTIONS: readonly ReceiptAction[] = ['passed', 'projected', 'paged', 'offloaded', 'refused', 'denied', 'failed', 'listed'];

export interface Receipt {
  readonly time: string;
  readonly kind: 'call' | 'list';
  readonly upstream: string | null;
  readonly tool: string | null;
  readonly upstreamTokens: number;
  readonly deliveredTokens: number;
  readonly action: ReceiptAction;
  readonly elapsedMs: number;
  readonly args?: unknown;
  readonly changes?: readonly ToolChange[];
  readonly note?: string;
}

export interface ReceiptWriterOptions {
  /** Write each call's argument values (`--receipts-args`); off by default, as they may hold anything. */
  readonly includeArgs?: boolean;
}

export interface ReceiptsClosed {
  readonly written: number;
  /** Receipts not written: the queue was full, a write failed, or they came after close. */
  readonly dropped: number;
  /** The first write error's message, when one failed. */
  readonly error?: string;
}

/** Receipts waiting for the disk; past this the newest are dropped (and counted), not the caller slowed. */
const MAX_QUEUED_RECEIPTS = 10_000;
const MAX_QUEUED_CHARS = 8 * 1024 * 1024;
/** Arguments longer than this (as JSON) are left out of their receipt, and its note says so. */
export const MAX_RECEIPT_ARGS_CHARS = 16 * 1024;

/**
 * Appends one JSON line per receipt to a file (opened for append, so several writers and
 * reopenings add to it, never overwrite). `write` never throws and never waits: lines queue in
 * memory (bounded) and go out in order, one append per batch.
 */
export class ReceiptWriter {
  readonly #handle: FileHandle;
  readonly #includeArgs: boolean;
  #queue: string[] = [];
  #queuedChars = 0;
  #written = 0;
  #dropped = 0;
  #error: string | undefined;
  #flushing: Promise<void> | undefined;
  #closed: Promise<ReceiptsClosed> | undefined;

  private constructor(handle: FileHandle, includeArgs: boolean) {
    this.#handle = handle;
    this.#includeArgs = includeArgs;
  }

  /** Opens (creating it when absent) `file` for append; a path that cannot be written is IO. */
  static async open(file: string, options: ReceiptWriterOptions = {}): Promise<ReceiptWriter> {
    try {
      return new ReceiptWriter(await open(file, 'a'), options.includeArgs === true);
    } catch (error) {
      throw new McpctxError('IO', `Cannot open the receipts file ${file} for append: ${(error as Error).message}`, { file }, { cause: error });
    }
  }

  write(receipt: Receipt): void {
    try {
      if (this.#closed !== undefined || this.#error !== undefined || this.#queue.length >= MAX_QUEUED_RECEIPTS) {
        this.#dropped += 1;
        return;
      }
      const line = `${this.#line(receipt)}\n`;
      if (this.#queuedChars + line.length > MAX_QUEUED_CHARS) {
        this.#dropped += 1;
        return;
      }
      this.#queue.push(line);
      this.#queuedChars += line.length;
      this.#flushing ??= this.#flush();
    } catch {
      // A receipt that cannot be serialised is lost, counted; the call it describes goes on.
      this.#dropped += 1;
    }
  }

  /** Writes what is queued, closes the file, and says how many receipts were written and dropped. */
  close(): Promise<ReceiptsClosed> {
    this.#closed ??= (async () => {
      while (this.#flushing !== undefined) await this.#flushing;
      await this.#handle.close().catch((error: unknown) => {
        this.#error ??= (error as Error).message;
      });
      return { written: this.#written, dropped: this.#dropped, ...(this.#error === undefined ? {} : { error: this.#error }) };
    })();
    return this.#closed;
  }

  /** The receipt as one JSON line, fields in a fixed order; args only when asked and small. */
  #line(receipt: Receipt): string {
    let note = receipt.note;
    let args: string | undefined;
    if (this.#includeArgs && receipt.args !== undefined) {
      try {
        args = JSON.stringify(receipt.args);
      } catch {
        note = joinNote(note, 'args left out: they have no JSON form');
      }
      if (args !== undefined && args.length > MAX_RECEIPT_ARGS_CHARS) {
        note = joinNote(note, `args left out: ${args.length} characters of JSON, over ${MAX_RECEIPT_ARGS_CHARS}`);
        args = undefined;
      }
    }
    const line = {
      time: receipt.time,
      kind: receipt.kind,
      upstream: receipt.upstream,
      tool: receipt.tool,
      upstreamTokens: receipt.upstreamTokens,
      deliveredTokens: receipt.deliveredTokens,
      action: receipt.action,
      elapsedMs: receipt.elapsedMs,
      ...(args === undefined ? {} : { args: JSON.parse(args) as unknown }),
      ...(receipt.changes === undefined ? {} : { changes: receipt.changes.map(({ field, tokensBefore, tokensAfter }) => ({ field, tokensBefore, tokensAfter })) }),
      ...(note === undefined ? {} : { note }),
    };
    return JSON.stringify(line);
  }

  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        this.#queuedChars = 0;
        try {
          await this.#handle.appendFile(batch.join(''), 'utf8');
          this.#written += batch.length;
        } catch (error) {
          this.#error ??= (error as Error).message;
          this.#dropped += batch.length + this.#queue.length;
          this.#queue = [];
          this.#queuedChars = 0;
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }
}

function joinNote(note: string | undefined, addition: string): string {
  return note === undefined ? addition : `${note}; ${addition}`;
}
