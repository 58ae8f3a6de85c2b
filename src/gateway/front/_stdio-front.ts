import type { Readable, Writable } from 'node:stream';
import { McpctxError, isMcpctxError } from '../../errors/index.js';
import { DEFAULT_MAX_FRAME_BYTES, FrameSplitter } from '../../mcp/index.js';
import { MAX_JSON_DEPTH, isPlainObject, nestsDeeperThan } from '../../json/index.js';
import type { FrontConnection, JsonRpcMessage } from './_front.js';

export interface StdioFrontOptions {
  input: Readable;
  output: Writable;
  /** Largest line accepted from the client; default DEFAULT_MAX_FRAME_BYTES. */
  maxFrameBytes?: number;
  /** How long a write may wait for the client to read (stdout backpressure); past it the connection is closed. Default 30 s. */
  writeTimeoutMs?: number;
}

const NEWLINE = 0x0a;
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * The client side over stdio: newline-delimited JSON-RPC, each line handed on exactly as
 * `JSON.parse` read it. A line that is not JSON or nests too deep is answered with a JSON-RPC
 * error; a line over the frame bound ends the connection (the stream cannot be resynchronised).
 */
export class StdioFront implements FrontConnection {
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: (reason: string) => void;
  private readonly options: StdioFrontOptions;
  private readonly splitter: FrameSplitter;
  private readonly writeTimeoutMs: number;
  private closed: string | undefined;
  private readonly detach: () => void;

  constructor(options: StdioFrontOptions) {
    this.options = options;
    this.splitter = new FrameSplitter(options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES);
    this.writeTimeoutMs = options.writeTimeoutMs ?? 30_000;
    const onData = (chunk: Buffer | string): void => this.receive(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    const onEnd = (): void => this.end('the client closed its input');
    const onError = (error: Error): void => this.end(`the client's input failed: ${error.message}`);
    const onOutputError = (error: Error): void => this.end(`the client's output failed: ${error.message}`);
    options.input.on('data', onData);
    options.input.on('end', onEnd);
    options.input.on('error', onError);
    options.output.on('error', onOutputError);
    this.detach = () => {
      options.input.off('data', onData);
      options.input.off('end', onEnd);
      options.input.off('error', onError);
      options.output.off('error', onOutputError);
    };
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.closed !== undefined) throw new McpctxError('TRANSPORT_CLOSED', `the client connection is closed: ${this.closed}`);
    const output = this.options.output;
    if (output.write(`${JSON.stringify(message)}\n`)) return;
    await new Promise<void>((resolve, reject) => {
      const done = (error?: McpctxError): void => {
        clearTimeout(timer);
        output.off('drain', onDrain);
        output.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = (): void => done();
      const onClose = (): void => done(new McpctxError('TRANSPORT_CLOSED', 'the client closed its output'));
      const timer = setTimeout(() => {
        const reason = `the client did not read for ${this.writeTimeoutMs} ms`;
        done(new McpctxError('DEADLINE', reason));
        this.end(reason);
      }, this.writeTimeoutMs);
      output.on('drain', onDrain);
      output.on('close', onClose);
    });
  }

  async close(): Promise<void> {
    this.end('the gateway closed the connection');
  }

  private receive(chunk: Buffer): void {
    // One line at a time, so a line that is not UTF-8 is refused alone and the lines after it in
    // the same chunk still arrive.
    for (let start = 0; start < chunk.length && this.closed === undefined; ) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.receiveLine(chunk.subarray(start, end));
      start = end;
    }
  }

  private receiveLine(piece: Buffer): void {
    let lines: string[];
    try {
      lines = this.splitter.push(piece);
    } catch (error) {
      if (isMcpctxError(error, 'INVALID_FRAME')) {
        // Newlines still frame the stream (no UTF-8 sequence holds that byte): only this line is lost.
        void this.send(errorReply(null, PARSE_ERROR, 'Parse error: the line is not valid UTF-8')).catch(() => {});
        return;
      }
      // Worded here: the splitter's own message speaks of a server sending.
      const reason = `a line over the frame bound of ${this.options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES} bytes`;
      void this.send(errorReply(null, INVALID_REQUEST, `message refused: ${reason}; the connection is closed (send smaller messages)`)).catch(() => {});
      this.end(`the client sent ${reason}`);
      return;
    }
    for (const line of lines) {
      if (line.trim() === '') continue;
      this.deliver(line);
      if (this.closed !== undefined) return;
    }
  }

  private deliver(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      void this.send(errorReply(null, PARSE_ERROR, 'Parse error: the line is not JSON')).catch(() => {});
      return;
    }
    if (!isPlainObject(message)) {
      void this.send(errorReply(null, INVALID_REQUEST, 'Invalid Request: a message must be a JSON object')).catch(() => {});
      return;
    }
    // A line under 2 characters per level cannot nest that deep: small messages are never walked.
    if (line.length > 2 * MAX_JSON_DEPTH && nestsDeeperThan(message, MAX_JSON_DEPTH)) {
      const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
      void this.send(errorReply(id, INVALID_REQUEST, `Invalid Request: the message nests deeper than ${MAX_JSON_DEPTH} levels`)).catch(() => {});
      return;
    }
    this.onmessage?.(message);
  }

  private end(reason: string): void {
    if (this.closed !== undefined) return;
    this.closed = reason;
    this.detach();
    // Stop reading for good: an open stdin holds the event loop, so the gateway could not exit
    // while a client that broke the stream keeps its end open (pause() is not enough: a socket
    // with nothing buffered keeps reading).
    this.options.input.destroy();
    this.onclose?.(reason);
  }
}

function errorReply(id: string | number | null, code: number, message: string): JsonRpcMessage {
  return { jsonrpc: '2.0', id, error: { code, message } };
}
