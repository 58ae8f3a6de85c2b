#!/usr/bin/env node
// An MCP server implementing what every server scenario of @modelcontextprotocol/conformance 0.1.9
// asks for (tools, resources, prompts, logging, completion, sampling, elicitation, SSE polling),
// built on the SDK v2 (@modelcontextprotocol/server 2.4.0) and zod 4. Two modes:
//   node test/servers/conformance-server.mjs --stdio
//   node test/servers/conformance-server.mjs --http 127.0.0.1:0   (stderr: "listening on http://127.0.0.1:PORT/mcp")
// The SDK v2 has no node:http adapter, so HTTP mode wraps its web-standard transport in node:http:
// one McpServer and transport per session, a bounded number of sessions and of stored SSE events.
/* global Headers, Request, AbortController -- web-standard globals of Node 20 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import {
  McpServer,
  ResourceTemplate,
  WebStandardStreamableHTTPServerTransport,
  completable,
  fromJsonSchema,
} from '@modelcontextprotocol/server';
import * as z from 'zod';

const MAX_SESSIONS = 64;
const MAX_EVENTS_PER_SESSION = 1000;
// The SSE `retry` the server suggests; short so a client resuming a closed stream does not wait long.
const SSE_RETRY_MS = 200;
const STEP_DELAY_MS = 50;

// A 1x1 red PNG and a 0.01 s silent 8 kHz mono 8-bit WAV: the smallest valid media the scenarios accept.
const RED_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const SILENT_WAV = silentWav(80).toString('base64');

function silentWav(samples) {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24); // sample rate
  header.writeUInt32LE(8000, 28); // byte rate
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(samples, 40);
  return Buffer.concat([header, Buffer.alloc(samples, 0x80)]);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: 'text', text: value }] });

// -------------------------------------------------------------------------------------------------
// Tools

function registerTools(server, closeRequestStream) {
  const noArgs = { inputSchema: z.object({}) };

  server.registerTool('test_simple_text', { description: 'Returns a simple text response.', ...noArgs }, async () =>
    text('This is a simple text response for testing.'),
  );

  server.registerTool('test_image_content', { description: 'Returns a 1x1 red PNG image.', ...noArgs }, async () => ({
    content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }],
  }));

  server.registerTool('test_audio_content', { description: 'Returns a short silent WAV clip.', ...noArgs }, async () => ({
    content: [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }],
  }));

  server.registerTool('test_embedded_resource', { description: 'Returns an embedded text resource.', ...noArgs }, async () => ({
    content: [
      {
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      },
    ],
  }));

  server.registerTool('test_multiple_content_types', { description: 'Returns text, image and resource content.', ...noArgs }, async () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
      },
    ],
  }));

  server.registerTool('test_tool_with_logging', { description: 'Sends three info log messages while it runs.', ...noArgs }, async (_args, ctx) => {
    await ctx.mcpReq.log('info', 'Tool execution started');
    await sleep(STEP_DELAY_MS);
    await ctx.mcpReq.log('info', 'Tool processing data');
    await sleep(STEP_DELAY_MS);
    await ctx.mcpReq.log('info', 'Tool execution completed');
    return text('Tool with logging executed successfully');
  });

  server.registerTool('test_error_handling', { description: 'Always fails with an error result.', ...noArgs }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  }));

  server.registerTool('test_tool_with_progress', { description: 'Reports progress 0, 50 and 100 of 100.', ...noArgs }, async (_args, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progressToken !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100 } });
      }
      if (progress < 100) await sleep(STEP_DELAY_MS);
    }
    return text('Tool with progress executed successfully');
  });

  server.registerTool(
    'test_sampling',
    { description: 'Asks the client to sample an LLM with the given prompt.', inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const result = await ctx.mcpReq.requestSampling({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      });
      const reply = Array.isArray(result.content) ? result.content : [result.content];
      const answer = reply.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('');
      return text(`LLM response: ${answer}`);
    },
  );

  server.registerTool(
    'test_elicitation',
    { description: 'Asks the user for a username and an email.', inputSchema: z.object({ message: z.string() }) },
    async ({ message }, ctx) => {
      const result = await ctx.mcpReq.elicitInput({
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    },
  );

  server.registerTool('test_elicitation_sep1034_defaults', { description: 'Elicits with a default for each primitive type.', ...noArgs }, async (_args, ctx) => {
    const result = await ctx.mcpReq.elicitInput({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    });
    return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
  });

  server.registerTool('test_elicitation_sep1330_enums', { description: 'Elicits with the five enum schema variants.', ...noArgs }, async (_args, ctx) => {
    const result = await ctx.mcpReq.elicitInput({
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            description: 'Titled single-select',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Legacy titled enum',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Untitled multi-select',
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Titled multi-select',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
        required: [],
      },
    });
    return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
  });

  // Declared as raw JSON Schema so `$schema`, `$defs` and `additionalProperties` reach tools/list as written.
  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: fromJsonSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
        },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      }),
    },
    async (args) => text(`Received: ${JSON.stringify(args)}`),
  );

  // SEP-1699: close the POST's SSE stream mid-call, so the client resumes with Last-Event-ID and
  // gets the result replayed from the event store. The SDK offers ctx.http.closeSSE only to clients
  // of 2025-11-25 or later, and the scenario posts as 2025-03-26 (which has resumability too), so
  // HTTP mode hands in the transport's own closer. A notification first gives the client an event
  // id to resume from (no priming event is sent to a 2025-03-26 client). Over stdio nothing closes.
  server.registerTool('test_reconnection', { description: 'Closes its SSE stream before answering (SSE polling).', ...noArgs }, async (_args, ctx) => {
    if (closeRequestStream !== undefined) {
      await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data: 'closing the stream; resume with Last-Event-ID' } });
      await sleep(STEP_DELAY_MS);
      closeRequestStream(ctx.mcpReq.id);
      await sleep(2 * STEP_DELAY_MS);
    }
    return text('Reconnection test completed');
  });
}

// -------------------------------------------------------------------------------------------------
// Resources and prompts

function registerResources(server) {
  server.registerResource(
    'static-text',
    'test://static-text',
    { description: 'A static text resource', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'A static binary resource (PNG)', mimeType: 'image/png' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: RED_PIXEL_PNG }] }),
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource clients may subscribe to', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content.' }] }),
  );
  server.registerResource(
    'template-data',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'Data for an id, from a URI template', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }],
    }),
  );

  // McpServer has no subscription handlers; the scenarios only need them accepted and tracked.
  const subscribed = new Set();
  server.server.setRequestHandler('resources/subscribe', async (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
}

const ARG1_COMPLETIONS = ['paris', 'park', 'party', 'test', 'testing'];

function registerPrompts(server) {
  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt without arguments' }, async () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));

  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two required arguments',
      argsSchema: z.object({
        arg1: completable(z.string().describe('First test argument'), (value) => ARG1_COMPLETIONS.filter((c) => c.startsWith(value ?? ''))),
        arg2: z.string().describe('Second test argument'),
      }),
    },
    async ({ arg1, arg2 }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
    }),
  );

  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { description: 'A prompt embedding a resource', argsSchema: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }) },
    async ({ resourceUri }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );

  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with image content' }, async () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
}

/** @param {((requestId: string | number) => void) | undefined} closeRequestStream closes a request's SSE stream (HTTP only) */
function createConformanceServer(closeRequestStream) {
  const server = new McpServer(
    { name: 'mcpctx-conformance-server', version: '1.0.0' },
    { capabilities: { logging: {}, completions: {}, resources: { subscribe: true, listChanged: false } } },
  );
  registerTools(server, closeRequestStream);
  registerResources(server);
  registerPrompts(server);
  return server;
}

// -------------------------------------------------------------------------------------------------
// Transports

/** An in-memory SSE event store for one session, oldest events dropped past a bound. */
function boundedEventStore(limit) {
  const events = new Map(); // eventId -> { streamId, message }, in insertion order
  let sequence = 0;
  return {
    async storeEvent(streamId, message) {
      const eventId = `${streamId}_${++sequence}`;
      events.set(eventId, { streamId, message });
      if (events.size > limit) events.delete(events.keys().next().value);
      return eventId;
    },
    async getStreamIdForEventId(eventId) {
      return events.get(eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const last = events.get(lastEventId);
      if (last === undefined) return '';
      let after = false;
      for (const [eventId, event] of events) {
        if (after && event.streamId === last.streamId) await send(eventId, event.message);
        if (eventId === lastEventId) after = true;
      }
      return last.streamId;
    },
  };
}

async function serveStdio() {
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  const server = createConformanceServer();
  await server.connect(new StdioServerTransport());
  process.stdin.on('end', () => void server.close().finally(() => process.exit(0)));
}

function toWebRequest(req, origin) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE';
  const controller = new AbortController();
  req.on('close', () => controller.abort());
  return new Request(new URL(req.url ?? '/', origin), {
    method: req.method,
    headers,
    body: hasBody ? Readable.toWeb(req) : undefined,
    duplex: hasBody ? 'half' : undefined,
    signal: controller.signal,
  });
}

async function sendWebResponse(response, res) {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // the client went away or the stream was closed on purpose (test_reconnection)
  }
  res.end();
}

async function serveHttp(hostPort) {
  const split = hostPort.lastIndexOf(':');
  const host = split > 0 ? hostPort.slice(0, split) : '127.0.0.1';
  const port = Number(split > 0 ? hostPort.slice(split + 1) : hostPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--http wants HOST:PORT, got ${hostPort}`);

  const sessions = new Map(); // sessionId -> { server, transport }

  async function openSession() {
    // The tool runs only after connect, so the closer never sees an unset transport.
    let transport;
    const server = createConformanceServer((requestId) => transport.closeSSEStream(requestId));
    transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: boundedEventStore(MAX_EVENTS_PER_SESSION),
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => void sessions.set(id, { server, transport }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return { server, transport };
  }

  const http = createServer((req, res) => {
    void (async () => {
      const origin = `http://${req.headers.host ?? `${host}:${port}`}`;
      if (new URL(req.url ?? '/', origin).pathname !== '/mcp') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the MCP endpoint is /mcp\n');
        return;
      }
      const sessionId = req.headers['mcp-session-id'];
      let session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      let fresh = false;
      if (session === undefined && sessionId === undefined && req.method === 'POST') {
        if (sessions.size >= MAX_SESSIONS) {
          res.writeHead(503, { 'content-type': 'text/plain' }).end(`too many sessions (${MAX_SESSIONS}): DELETE one first\n`);
          return;
        }
        session = await openSession();
        fresh = true;
      }
      if (session === undefined) {
        res.writeHead(sessionId === undefined ? 400 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Unknown or missing Mcp-Session-Id' } }));
        return;
      }
      const response = await session.transport.handleRequest(toWebRequest(req, origin));
      // A fresh transport that did not start a session (not an initialize) serves nothing more.
      if (fresh && session.transport.sessionId === undefined) void session.server.close();
      await sendWebResponse(response, res);
    })().catch((err) => {
      process.stderr.write(`conformance-server: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!res.headersSent) res.writeHead(500).end();
      else res.end();
    });
  });

  const shutdown = () => {
    for (const { server } of sessions.values()) void server.close();
    http.close();
    http.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);

  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => resolve());
  });
  const address = http.address();
  process.stderr.write(`listening on http://${host}:${address.port}/mcp\n`);
}

const [mode, arg] = process.argv.slice(2);
if (mode === '--stdio') {
  await serveStdio();
} else if (mode === '--http' && arg !== undefined) {
  await serveHttp(arg);
} else {
  process.stderr.write('usage: conformance-server.mjs --stdio | --http HOST:PORT\n');
  process.exit(2);
}
