// A loopback fake of an OpenAI-compatible chat completions API (node:http, 127.0.0.1, port 0).
// Each request takes the next scripted reply: a JSON body with any status and headers, an SSE
// stream (ended with [DONE] or not, closed cleanly, cut, or stalled mid-stream), or a stall
// before any byte. Every request is recorded with its method, path, headers and body.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  path: string;
  /** Lower-case names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The body as received. */
  text: string;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
}

export type FakeReply =
  | { kind: 'json'; status?: number; headers?: Record<string, string>; body: unknown }
  | {
      kind: 'sse';
      /** Objects are sent as `data: <json>`; strings as written (a whole event, without the blank line). */
      events: Array<object | string>;
      /** Send `data: [DONE]` after the events (default true). */
      done?: boolean;
      /** After the events: end the response (default), destroy the socket, or never write again. */
      then?: 'end' | 'cut' | 'stall';
      headers?: Record<string, string>;
    }
  | { kind: 'stall' };

export interface OpenAiFake {
  /** The base URL to give the provider (`http://127.0.0.1:<port>/v1`). */
  readonly baseUrl: string;
  readonly requests: FakeRequest[];
  /** Queues replies, used one per request in order; an unscripted request gets a 500. */
  reply(...replies: FakeReply[]): void;
  /** A handler that sees each request and returns its reply (overrides the queue). */
  answerWith(handler: ((request: FakeRequest) => FakeReply) | undefined): void;
  /** Every complete SSE text and JSON body sent, in order (to compare with `raw.response`). */
  readonly sent: string[];
  close(): Promise<void>;
}

export async function startOpenAiFake(): Promise<OpenAiFake> {
  const requests: FakeRequest[] = [];
  const sent: string[] = [];
  const queue: FakeReply[] = [];
  let handler: ((request: FakeRequest) => FakeReply) | undefined;

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const recorded: FakeRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, text, body };
      requests.push(recorded);
      const reply = handler?.(recorded) ?? queue.shift() ?? { kind: 'json', status: 500, body: { error: { message: 'the fake has no scripted reply' } } };
      answer(res, reply, sent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    sent,
    reply: (...replies) => queue.push(...replies),
    answerWith: (next) => (handler = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(res: ServerResponse, reply: FakeReply, sent: string[]): void {
  if (reply.kind === 'stall') return;
  if (reply.kind === 'json') {
    const text = JSON.stringify(reply.body);
    sent.push(text);
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(text);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
  let text = '';
  for (const event of reply.events) {
    const piece = `${typeof event === 'string' ? event : `data: ${JSON.stringify(event)}`}\n\n`;
    text += piece;
    res.write(piece);
  }
  if (reply.done ?? true) {
    text += 'data: [DONE]\n\n';
    res.write('data: [DONE]\n\n');
  }
  sent.push(text);
  const then = reply.then ?? 'end';
  // A short pause so the events reach the client before the socket goes.
  if (then === 'cut') setTimeout(() => res.socket?.destroy(), 20);
  else if (then === 'end') res.end();
}

// ---- chunk builders ----------------------------------------------------------------------------

export interface ChunkParts {
  content?: string;
  toolCalls?: Array<{ index: number; id?: string; name?: string; arguments?: string }>;
  finish?: string | null;
  model?: string;
}

/** One `chat.completion.chunk` with a single choice. */
export function chunk(parts: ChunkParts): object {
  const delta: Record<string, unknown> = {};
  if (parts.content !== undefined) delta.content = parts.content;
  if (parts.toolCalls !== undefined) {
    delta.tool_calls = parts.toolCalls.map((call) => ({
      index: call.index,
      ...(call.id === undefined ? {} : { id: call.id, type: 'function' }),
      function: { ...(call.name === undefined ? {} : { name: call.name }), ...(call.arguments === undefined ? {} : { arguments: call.arguments }) },
    }));
  }
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1,
    model: parts.model ?? 'fake-model',
    choices: [{ index: 0, delta, finish_reason: parts.finish ?? null }],
  };
}

/** The final usage chunk sent when `stream_options.include_usage` is set (no choices). */
export function usageChunk(prompt: number, completion: number, cached?: number): object {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'fake-model',
    choices: [],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }),
    },
  };
}

/** A whole answer: the text in two pieces, the finish reason, usage, [DONE]. */
export function textReply(text: string, finish = 'stop', usage: [number, number, number?] = [10, 5]): FakeReply {
  const half = Math.floor(text.length / 2);
  return {
    kind: 'sse',
    events: [chunk({ content: text.slice(0, half) }), chunk({ content: text.slice(half) }), chunk({ finish }), usageChunk(...usage)],
  };
}
