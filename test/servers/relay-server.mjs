#!/usr/bin/env node
// The relay test server: every message kind a gateway must relay (relay-logic.mjs), with unknown
// keys and odd key order, over stdio (default) or streamable HTTP (`--http`, on 127.0.0.1, a free
// port printed as "listening on http://127.0.0.1:PORT/mcp" on stderr). No project code.
// Usage: node test/servers/relay-server.mjs [--name NAME] [--catalog DIR] [--http]
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { createRelayLogic } from './relay-logic.mjs';

const argv = process.argv.slice(2);
const name = argv.includes('--name') ? argv[argv.indexOf('--name') + 1] : 'one';
// --catalog DIR: tools/list serves the tool definitions in DIR's *.snap / *.json files (sorted by file name).
const catalogDir = argv.includes('--catalog') ? argv[argv.indexOf('--catalog') + 1] : undefined;
const catalog = catalogDir === undefined ? undefined : readdirSync(catalogDir).filter((file) => /\.(snap|json)$/.test(file)).sort().map((file) => JSON.parse(readFileSync(join(catalogDir, file), 'utf8')));

if (argv.includes('--http')) serveHttp();
else serveStdio();

function serveStdio() {
  const logic = createRelayLogic({ name, catalog, send: (message) => process.stdout.write(`${JSON.stringify(message)}\n`) });
  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim() !== '') logic.receive(JSON.parse(line), undefined);
    }
  });
  process.stdin.on('end', () => process.exit(0));
}

// Streamable HTTP, minimal: one session; a POSTed request is answered on an SSE stream that also
// carries what the server sends while serving it; anything else goes to the GET stream.
function serveHttp() {
  const sessionId = randomUUID();
  const streams = new Map(); // request id -> response (SSE)
  let getStream;
  const pendingUnrelated = [];
  const write = (response, message) => response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  const logic = createRelayLogic({
    name,
    catalog,
    send: (message, context) => {
      const stream = context === undefined ? undefined : streams.get(context);
      if (stream) {
        write(stream, message);
        if (message.id === context && message.method === undefined) {
          streams.delete(context);
          stream.end();
        }
      } else if (getStream) write(getStream, message);
      else pendingUnrelated.push(message);
    },
  });
  const server = createServer((request, response) => {
    if (request.method === 'DELETE') {
      response.writeHead(200).end();
      setTimeout(() => process.exit(0), 10);
      return;
    }
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': sessionId });
      response.flushHeaders();
      getStream = response;
      for (const message of pendingUnrelated.splice(0)) write(response, message);
      request.on('close', () => {
        if (getStream === response) getStream = undefined;
      });
      return;
    }
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const message = JSON.parse(body);
      if (message.method === 'tools/call' && message.params?.name === 'leak') {
        // A careless server that echoes the request's credentials in an error page.
        response.writeHead(500, { 'content-type': 'text/plain' }).end(`internal error; you sent authorization=${request.headers.authorization}`);
        return;
      }
      if (message.method === undefined || message.id === undefined) {
        response.writeHead(202).end();
        logic.receive(message, undefined);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': sessionId });
      response.flushHeaders();
      streams.set(message.id, response);
      logic.receive(message, message.id);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
  });
  // Runs until SIGTERM (its starter ends its process group).
}
