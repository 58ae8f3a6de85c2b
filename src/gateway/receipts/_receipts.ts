import { writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { McpctxError } from '../../errors/index.js';
import type { ToolChange } from '../catalog/index.js';
import { PRIVATE_FILE_MODE } from '../../private-file/index.js';

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
  /** A list receipt: what the poisoning scan found in the listed definitions (scan: warn). */
  readonly findings?: ReadonlyArray<{ readonly tool: string; readonly ruleId: string; readonly path: string }>;
  readonly note?: string;
}

export interface ReceiptWriterOptions {
  /** Write each call's argument values (`--receipts-args`); off by default, as they may hold anything. */
  readonly includeArgs?: boolean;
}

export interface ReceiptsClosed {
  readonly written: number;
  /** Receipts not written: a write failed (then every later one), or they came after close. */
  readonly dropped: number;
  /** The first write error's message, when one failed. */
  readonly error?: string;
}

/** Where receipts go: the JSONL file, the shared state's counters, or both (`teeReceipts`). `write` never throws. */
export interface ReceiptSink {
  write(receipt: Receipt): void;
  close(): Promise<ReceiptsClosed>;
}

/** Every receipt to each sink; closed together, the counts summed (the first error kept). */
export function teeReceipts(sinks: readonly ReceiptSink[]): ReceiptSink | undefined {
  if (sinks.length <= 1) return sinks[0];
  return {
    write: (receipt) => {
      for (const sink of sinks) sink.write(receipt);
    },
    close: async () => {
      const closed = await Promise.all(sinks.map((sink) => sink.close()));
      const error = closed.find((one) => one.error !== undefined)?.error;
      return {
        written: closed.reduce((sum, one) => sum + one.written, 0),
        dropped: closed.reduce((sum, one) => sum + one.dropped, 0),
        ...(error === undefined ? {} : { error }),
      };
    },
  };
}

/** Arguments longer than this (as JSON) are left out of their receipt, and its note says so. */
export const MAX_RECEIPT_ARGS_CHARS = 16 * 1024;

/**
 * Appends one JSON line per receipt to a file (opened for append, so several writers and
 * reopenings add to it, never overwrite). `write` never throws. Each line is written at once,
 * synchronously: a gateway stopped by a signal has lost no receipt it already wrote (the gateway
 * writes them after the reply has gone out, so the reply never waits for the disk).
 */
export class ReceiptWriter implements ReceiptSink {
  readonly #handle: FileHandle;
  readonly #includeArgs: boolean;
  #written = 0;
  #dropped = 0;
  #error: string | undefined;
  #closed: Promise<ReceiptsClosed> | undefined;

  private constructor(handle: FileHandle, includeArgs: boolean) {
    this.#handle = handle;
    this.#includeArgs = includeArgs;
  }

  /** Opens (creating it when absent) `file` for append; a path that cannot be written is IO. */
  static async open(file: string, options: ReceiptWriterOptions = {}): Promise<ReceiptWriter> {
    try {
      // Created 0600: a receipt names every call, and with --receipts-args holds its arguments.
      return new ReceiptWriter(await open(file, 'a', PRIVATE_FILE_MODE), options.includeArgs === true);
    } catch (error) {
      throw new McpctxError('IO', `Cannot open the receipts file ${file} for append: ${(error as Error).message}`, { file }, { cause: error });
    }
  }

  write(receipt: Receipt): void {
    if (this.#closed !== undefined || this.#error !== undefined) {
      this.#dropped += 1;
      return;
    }
    try {
      writeSync(this.#handle.fd, `${this.#line(receipt)}\n`);
      this.#written += 1;
    } catch (error) {
      // A receipt that cannot be serialised or written is lost, counted; the call it describes goes on.
      if ((error as NodeJS.ErrnoException).code !== undefined) this.#error ??= (error as Error).message;
      this.#dropped += 1;
    }
  }

  /** Closes the file, and says how many receipts were written and dropped. */
  close(): Promise<ReceiptsClosed> {
    this.#closed ??= (async () => {
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
      ...(receipt.findings === undefined ? {} : { findings: receipt.findings.map(({ tool, ruleId, path }) => ({ tool, ruleId, path })) }),
      ...(note === undefined ? {} : { note }),
    };
    return JSON.stringify(line);
  }
}

function joinNote(note: string | undefined, addition: string): string {
  return note === undefined ? addition : `${note}; ${addition}`;
}
