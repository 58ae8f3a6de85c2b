import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

type Message = Record<string, unknown>;

/**
 * A transport double that applies backpressure: `send` does not complete until the test lets
 * the "server" read (`drain()`), as a pipe the server stopped reading would behave. Replies come
 * from `server`, as in FakeTransport, once a message has been read.
 */
export class BlockingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  readonly written: Message[] = [];
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly server: (message: Message) => Message[] = () => []) {}

  async start(): Promise<void> {}

  send(message: JSONRPCMessage): Promise<void> {
    const copy = JSON.parse(JSON.stringify(message)) as Message;
    this.written.push(copy);
    return new Promise<void>((resolve) => {
      this.waiting.push(() => {
        resolve();
        for (const reply of this.server(copy)) this.onmessage?.(reply as unknown as JSONRPCMessage);
      });
    });
  }

  /** Sends still blocked. */
  get blocked(): number {
    return this.waiting.length;
  }

  /** The server reads everything written so far: blocked sends complete. */
  drain(): void {
    for (const release of this.waiting.splice(0)) release();
  }

  /** Delivers a message from the server. */
  deliver(message: Message): void {
    this.onmessage?.(message as unknown as JSONRPCMessage);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}
