// A loopback fake of the Anthropic Messages API (node:http, 127.0.0.1, port 0). Each request takes
// the next scripted reply: a JSON body, an event stream (ended cleanly, cut by destroying the
// socket, or left hanging), or a stall that never answers. Every request is recorded with its
// headers and its exact body text.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AnthropicFakeRequest {
  method: string;
  path: string;
  /** Header names in lower case. */
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  body: unknown;
}

export interface SseEvent {
  event: string;
  data: unknown;
}

export type FakeReply =
  | { status?: number; headers?: Record<string, string>; json: unknown }
  | {
      status?: number;
      headers?: Record<string, string>;
      events: SseEvent[];
      /** After the events: end the response (default), destroy the socket, or keep it open forever. */
      then?: 'end' | 'destroy' | 'stall';
    }
  | { stall: true };

/** The text of an event stream as the fake writes it. */
export function sseText(events: readonly SseEvent[]): string {
  return events.map((event) => `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`).join('');
}

export type FakeBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface FakeMessage {
  model?: string;
  content: FakeBlock[];
  stopReason?: string | null;
  /** message_start's usage; message_delta repeats output_tokens (and `finalUsage` when given). */
  usage?: Record<string, number>;
  finalUsage?: Record<string, number>;
}

/**
 * The events the API streams for one message: text arrives in two deltas, a tool's input JSON in
 * three fragments, so an assembler that keeps only the last delta fails.
 */
export function messageEvents(message: FakeMessage): SseEvent[] {
  const usage = message.usage ?? { input_tokens: 10, output_tokens: 1 };
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { id: 'msg_fake', type: 'message', role: 'assistant', model: message.model ?? 'claude-fake-1', content: [], stop_reason: null, stop_sequence: null, usage },
      },
    },
  ];
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      const half = Math.ceil(block.text.length / 2);
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
      for (const part of [block.text.slice(0, half), block.text.slice(half)]) {
        events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } } });
      }
    } else {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } } });
      const json = JSON.stringify(block.input);
      const third = Math.ceil(json.length / 3);
      for (const part of [json.slice(0, third), json.slice(third, 2 * third), json.slice(2 * third)]) {
        events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } } });
      }
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: message.stopReason === undefined ? 'end_turn' : message.stopReason, stop_sequence: null }, usage: message.finalUsage ?? { output_tokens: usage.output_tokens ?? 1 } },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

export class AnthropicFake {
  readonly requests: AnthropicFakeRequest[] = [];
  private readonly replies: FakeReply[] = [];
  private server: Server | undefined;
  private port = 0;

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Queues replies, used in order, one per request. */
  script(...replies: FakeReply[]): this {
    this.replies.push(...replies);
    return this;
  }

  async start(): Promise<this> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        this.requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, text, body });
        this.answer(response, this.replies.shift());
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private answer(response: ServerResponse, reply: FakeReply | undefined): void {
    if (reply === undefined) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'the fake has no scripted reply' } }));
      return;
    }
    if ('stall' in reply) return;
    if ('json' in reply) {
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      response.end(JSON.stringify(reply.json));
      return;
    }
    response.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
    response.write(sseText(reply.events));
    if (reply.then === 'destroy') setTimeout(() => response.socket?.destroy(), 20);
    else if (reply.then !== 'stall') response.end();
  }
}

/**
 * The API key a request carried: `x-api-key`, or a bearer `authorization` (which is how
 * @anthropic-ai/sdk 1.10 sends an apiKey).
 */
export function sentKey(request: AnthropicFakeRequest): string | undefined {
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey;
  const authorization = request.headers.authorization;
  return authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
}

/** An Anthropic error body, as the API sends it. */
export function apiError(type: string, message: string): unknown {
  return { type: 'error', error: { type, message } };
}
