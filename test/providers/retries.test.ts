// One retry suite for both HTTP providers, against their loopback fakes (127.0.0.1 only): the
// policy, the backoff, the error a call ends with, network errors, the deadline and the request
// checks are callWithRetries' and checkRequest's, so each provider must behave the same way here.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpctxError } from '../../src/errors/index.js';
import { anthropicProvider, openAiCompatibleProvider, type ChatRequest, type ChatResponse, type Provider, type RawExchange } from '../../src/providers/index.js';
import { AnthropicFake, apiError, messageEvents, sentKey } from '../support/anthropic-fake.js';
import { startOpenAiFake, textReply, type OpenAiFake } from '../support/openai-fake.js';
import { failure } from './_failure.js';
import { sha256Hex } from '../../src/tokens/index.js';

const CANARY = 'sk-canary-retries-5d1e-secret';

/** What a test scripts, in words both fakes understand. */
type Reply = { ok: true } | { status: number; message: string; headers?: Record<string, string> } | { stall: true };

interface ProviderUnderTest {
  start(): Promise<void>;
  close(): Promise<void>;
  readonly baseUrl: string;
  provider(options?: { maxRetries?: number; baseUrl?: string }): Provider;
  script(...replies: Reply[]): void;
  /** Requests the fake got: the body text and the key the request carried. */
  requests(): Array<{ text: string; key: string | undefined }>;
}

function anthropicUnderTest(): ProviderUnderTest {
  let fake = new AnthropicFake();
  return {
    async start() {
      fake = await new AnthropicFake().start();
    },
    close: () => fake.close(),
    get baseUrl() {
      return fake.baseUrl;
    },
    provider: (options = {}) => anthropicProvider({ baseUrl: fake.baseUrl, env: { ANTHROPIC_API_KEY: CANARY }, ...options }),
    script: (...replies) =>
      fake.script(
        ...replies.map((reply) =>
          'ok' in reply
            ? { events: messageEvents({ content: [{ type: 'text', text: 'fine' }] }) }
            : 'stall' in reply
              ? { stall: true as const }
              : { status: reply.status, headers: reply.headers ?? {}, json: apiError('api_error', reply.message) },
        ),
      ),
    requests: () => fake.requests.map((request) => ({ text: request.text, key: sentKey(request) })),
  };
}

function openAiUnderTest(): ProviderUnderTest {
  let fake: OpenAiFake | undefined;
  const started = (): OpenAiFake => {
    if (fake === undefined) throw new Error('the fake has not started');
    return fake;
  };
  return {
    async start() {
      fake = await startOpenAiFake();
    },
    close: () => started().close(),
    get baseUrl() {
      return started().baseUrl;
    },
    provider: (options = {}) => openAiCompatibleProvider({ baseUrl: started().baseUrl, apiKeyEnv: 'LLM_KEY', env: { LLM_KEY: CANARY }, ...options }),
    script: (...replies) =>
      started().reply(
        ...replies.map((reply) =>
          'ok' in reply
            ? textReply('fine')
            : 'stall' in reply
              ? { kind: 'stall' as const }
              : { kind: 'json' as const, status: reply.status, headers: reply.headers ?? {}, body: { error: { message: reply.message, type: 'server_error' } } },
        ),
      ),
    requests: () => started().requests.map((request) => ({ text: request.text, key: request.headers.authorization?.replace(/^Bearer /, '') })),
  };
}

/**
 * A loopback front for a fake: it reads each of the first `drops` requests and then closes the
 * socket without a byte of answer (a network error: no status line), and relays the rest.
 */
async function startDroppingFront(target: string, drops: number): Promise<{ baseUrl: string; seen: () => number; close: () => Promise<void> }> {
  const upstream = new URL(target);
  let seen = 0;
  const server: Server = createServer((req, res) => {
    seen += 1;
    if (seen <= drops) {
      req.resume();
      req.on('end', () => req.socket.destroy());
      return;
    }
    const relay = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(relay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${upstream.pathname.replace(/\/$/, '')}`,
    seen: () => seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const hello = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'model-x', maxTokens: 32, messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], ...extra });

function rawOf(error: McpctxError): RawExchange {
  return error.data.raw as RawExchange;
}

describe.each([
  ['anthropic', anthropicUnderTest],
  ['openai-compatible', openAiUnderTest],
] as const)('%s: retries', (_name, make) => {
  const under = make();
  beforeEach(() => under.start());
  afterEach(() => under.close());

  it('a 429, then success: the second attempt answers, after the server-given wait', async () => {
    under.script({ status: 429, message: 'slow down', headers: { 'retry-after-ms': '600' } }, { ok: true });
    const started = Date.now();
    const response = await under.provider().chat(hello());
    // retry-after-ms was honoured: the backoff alone would have waited 500 ms at most.
    expect(Date.now() - started).toBeGreaterThanOrEqual(590);
    expect(response.attempts).toBe(2);
    expect(response.content).toEqual([{ type: 'text', text: 'fine' }]);
    expect(response.raw.status).toBe(200);
    const sent = under.requests();
    expect(sent).toHaveLength(2);
    expect(sent[1]?.text).toBe(sent[0]?.text);
  });

  it('a 429, then success: both attempts are recorded, each with its bytes (key scrubbed), hashes and timing in order', async () => {
    under.script({ status: 429, message: 'slow down please', headers: { 'retry-after-ms': '0' } }, { ok: true });
    const response = await under.provider().chat(hello());
    expect(response.attempts).toBe(2);
    expect(response.retries).toHaveLength(1);
    const [retried] = response.retries;
    const sent = under.requests();
    expect(retried?.raw.status).toBe(429);
    expect(retried?.raw.request).toBe(sent[0]?.text);
    expect(retried?.raw.response).toContain('slow down please');
    expect(retried?.rawRequestSha256).toBe(sha256Hex(retried?.raw.request ?? ''));
    expect(retried?.rawResponseSha256).toBe(sha256Hex(retried?.raw.response ?? ''));
    expect(retried?.announcedUsage).toBeNull();
    expect(JSON.stringify(response)).not.toContain(CANARY);
    // Order only, never a duration: retry start <= first byte <= end <= the answering attempt's start <= first byte <= end.
    const times = [retried?.timing.startedAt, retried?.timing.firstByteAt, retried?.timing.endedAt, response.timing.startedAt, response.timing.firstByteAt, response.timing.endedAt];
    expect(times.every((time) => typeof time === 'string')).toBe(true);
    const millis = times.map((time) => Date.parse(time as string));
    expect(millis).toEqual([...millis].sort((a, b) => a - b));
  });

  it('one attempt: no retries, and the answering attempt has its timing', async () => {
    under.script({ ok: true });
    const response = await under.provider().chat(hello());
    expect(response.retries).toEqual([]);
    const { startedAt, firstByteAt, endedAt } = response.timing;
    expect(firstByteAt).not.toBeNull();
    expect(Date.parse(startedAt) <= Date.parse(firstByteAt as string) && Date.parse(firstByteAt as string) <= Date.parse(endedAt as string)).toBe(true);
  });

  it.each([529, 503])('a %i, then success: retried after the backoff (500 ms less up to a quarter)', async (status) => {
    under.script({ status, message: 'overloaded' }, { ok: true });
    const started = Date.now();
    const response = await under.provider().chat(hello());
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(response.attempts).toBe(2);
    expect(under.requests()).toHaveLength(2);
  });

  it('retries exhausted: PROVIDER_ERROR with the last status, the attempts and the last exchange', async () => {
    const busy: Reply = { status: 503, message: 'busy now', headers: { 'retry-after': '0' } };
    under.script(busy, busy, busy, { ok: true });
    const error = await failure(under.provider({ maxRetries: 2 }).chat(hello()));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('HTTP 503');
    expect(error.message).toContain('busy now');
    expect(error.data).toMatchObject({ status: 503, attempts: 3 });
    expect(rawOf(error).status).toBe(503);
    expect(rawOf(error).response).toContain('busy now');
    expect(under.requests()).toHaveLength(3);
  });

  it('a 400 is not retried, and says its status', async () => {
    under.script({ status: 400, message: 'bad request' }, { ok: true });
    const error = await failure(under.provider().chat(hello()));
    expect(error.data).toMatchObject({ status: 400, attempts: 1 });
    expect(under.requests()).toHaveLength(1);
  });

  it('a network error (the server closes the socket without answering) is retried', async () => {
    const front = await startDroppingFront(under.baseUrl, 1);
    try {
      under.script({ ok: true });
      const response = await under.provider({ baseUrl: front.baseUrl }).chat(hello());
      expect(response.attempts).toBe(2);
      expect(front.seen()).toBe(2);
      expect(under.requests()).toHaveLength(1);
      expect(response.content).toEqual([{ type: 'text', text: 'fine' }]);
    } finally {
      await front.close();
    }
  });

  it('network errors to the end: PROVIDER_ERROR without a status (no answer came)', async () => {
    const front = await startDroppingFront(under.baseUrl, 10);
    try {
      const error = await failure(under.provider({ baseUrl: front.baseUrl, maxRetries: 1 }).chat(hello()));
      expect(error.code).toBe('PROVIDER_ERROR');
      expect(error.message).toContain('could not reach');
      expect('status' in error.data).toBe(false);
      expect(error.data.attempts).toBe(2);
      expect(rawOf(error).status).toBe(0);
      expect(front.seen()).toBe(2);
    } finally {
      await front.close();
    }
  });

  it('the key goes to the server and never into a recorded body or an error, even when echoed', async () => {
    const echo = `invalid key ${CANARY}`;
    under.script(
      { status: 429, message: echo, headers: { 'retry-after': '0' } },
      { ok: true },
      { status: 401, message: echo },
      { status: 503, message: echo, headers: { 'retry-after': '0' } },
      { status: 503, message: echo, headers: { 'retry-after': '0' } },
      { stall: true },
    );
    const provider = under.provider({ maxRetries: 1 });
    const answered = await provider.chat(hello({ messages: [{ role: 'user', content: [{ type: 'text', text: `my key is ${CANARY}` }] }] }));
    const errors = [
      await failure(provider.chat(hello())),
      await failure(provider.chat(hello())),
      await failure(provider.chat(hello({ timeoutMs: 200 }))),
    ];
    expect(errors.map((error) => error.code)).toEqual(['PROVIDER_ERROR', 'PROVIDER_ERROR', 'DEADLINE']);
    expect(under.requests().map((request) => request.key)).toEqual(Array(6).fill(CANARY));

    const recorded: RawExchange[] = [answered.raw, ...errors.map(rawOf)];
    for (const raw of recorded) expect(`${raw.request}\n${raw.response}`).not.toContain(CANARY);
    // Scrubbed, not emptied: the prompt and the echoing answers are there, the key replaced.
    expect(answered.raw.request).toContain('my key is [redacted]');
    expect(rawOf(errors[0]!).response).toContain('invalid key [redacted]');
    expect(rawOf(errors[1]!).response).toContain('invalid key [redacted]');
    for (const error of errors) {
      expect(error.message).not.toContain(CANARY);
      expect(JSON.stringify(error.data)).not.toContain(CANARY);
      expect(inspect(error, { depth: 20 })).not.toContain(CANARY);
    }
    expect(errors[0]?.message).toContain('invalid key [redacted]');
    expect(JSON.stringify(answered satisfies ChatResponse)).not.toContain(CANARY);
  });

  it('the deadline: a server that never answers ends the call at timeoutMs, without a status', async () => {
    under.script({ stall: true });
    const started = Date.now();
    const error = await failure(under.provider().chat(hello({ timeoutMs: 300 })));
    const elapsed = Date.now() - started;
    expect(error.code).toBe('DEADLINE');
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1_500);
    expect(error.data).toMatchObject({ timeoutMs: 300, attempts: 1 });
    expect('status' in error.data).toBe(false);
  });

  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31])('timeoutMs %s is refused before anything is sent', async (timeoutMs) => {
    const error = await failure(under.provider().chat(hello({ timeoutMs })));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('timeoutMs');
    expect(under.requests()).toHaveLength(0);
  });

  it.each([
    ['no model', { model: '' }, 'model'],
    ['maxTokens 0', { maxTokens: 0 }, 'maxTokens'],
    ['maxTokens 1.5', { maxTokens: 1.5 }, 'maxTokens'],
  ])('%s is refused before anything is sent', async (_what, extra, word) => {
    const error = await failure(under.provider().chat(hello(extra)));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(word);
    expect(under.requests()).toHaveLength(0);
  });
});
