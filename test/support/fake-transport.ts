import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

type Message = Record<string, unknown>;

/**
 * An in-process transport whose "server" is a function: it sees each message the client sends
 * and returns the messages to deliver back, in order, asynchronously.
 */
export class FakeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  readonly sent: Message[] = [];
  closed = false;

  constructor(private readonly server: (message: Message) => Message[]) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    const copy = JSON.parse(JSON.stringify(message)) as Message;
    this.sent.push(copy);
    const replies = this.server(copy);
    setImmediate(() => {
      for (const reply of replies) this.onmessage?.(reply as unknown as JSONRPCMessage);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.onclose?.();
  }
}

export function result(request: Message, value: unknown, id: unknown = request.id): Message {
  return { jsonrpc: '2.0', id, result: value };
}
