#!/usr/bin/env node
// An MCP server over stdio (newline-delimited JSON-RPC 2.0) whose tool returns a payload read from
// a file, for measuring tool results. Usage (options through the environment, see README.md):
//   RESULT_FILE=payload.json RESULT_STRUCTURED=wrapped:pull_requests node test/servers/result-server.mjs
// No dependencies beyond node: built-ins, so tests can exercise a client without project code.
import { readFileSync } from 'node:fs';

const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const LATEST_VERSION = '2025-11-25';
// RESULT_STRUCTURED: none, copy, wrapped (under "items") or wrapped:KEY. The key rides inside the
// mode rather than in a variable of its own: a client scrubs whole env values from what it reports.
const STRUCTURED_MODE = /^(none|copy|wrapped)(?::(.+))?$/;

class RpcError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

const TOOLS = [
  {
    name: 'get_result',
    description: 'Return the payload of the file named by RESULT_FILE as one text block.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'echo_arguments',
    description: 'Return the arguments of the call as JSON text, with the same object as structuredContent.',
    inputSchema: { type: 'object', additionalProperties: true },
  },
  {
    name: 'echo_env',
    description: 'Return the value of one environment variable of the server, as a JSON record.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
  {
    name: 'fail',
    description: 'Always answers with a JSON-RPC error.',
    inputSchema: { type: 'object', properties: {} },
  },
];

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

/** Resolves once the pipe took `data` (or at once when it had room). */
function write(data) {
  return new Promise((resolve) => {
    if (process.stdout.write(data)) resolve();
    else process.stdout.once('drain', resolve);
  });
}

function structuredMode() {
  const match = STRUCTURED_MODE.exec(process.env.RESULT_STRUCTURED ?? 'none');
  if (match === null || (match[2] !== undefined && match[1] !== 'wrapped')) {
    throw new RpcError(-32603, 'RESULT_STRUCTURED must be none, copy, wrapped or wrapped:KEY');
  }
  return { mode: match[1], key: match[2] ?? 'items' };
}

function readPayload() {
  const file = process.env.RESULT_FILE;
  if (file === undefined || file === '') throw new RpcError(-32603, 'RESULT_FILE is not set');
  return readFileSync(file, 'utf8');
}

function withIsError(result) {
  return process.env.RESULT_IS_ERROR === '1' ? { ...result, isError: true } : result;
}

function getResult() {
  const text = readPayload();
  const { mode, key } = structuredMode();
  const result = { content: [{ type: 'text', text }] };
  if (mode === 'copy') result.structuredContent = JSON.parse(text);
  if (mode === 'wrapped') result.structuredContent = { [key]: JSON.parse(text) };
  return withIsError(result);
}

/** RESULT_REPEAT=N: the file's text N times in one text block, written piece by piece (huge results). */
async function streamRepeated(id, times) {
  const piece = JSON.stringify(readPayload()).slice(1, -1);
  await write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`);
  for (let n = 0; n < times; n++) await write(piece);
  await write(`"}]${process.env.RESULT_IS_ERROR === '1' ? ',"isError":true' : ''}}}\n`);
}

function callTool(params, id) {
  const args = params.arguments !== null && typeof params.arguments === 'object' ? params.arguments : {};
  switch (params.name) {
    case 'get_result': {
      const times = Number(process.env.RESULT_REPEAT ?? '0');
      if (Number.isInteger(times) && times > 0) return streamRepeated(id, times).then(() => undefined);
      return getResult();
    }
    case 'echo_arguments':
      return { content: [{ type: 'text', text: JSON.stringify(args) }], structuredContent: args };
    case 'echo_env': {
      const name = typeof args.name === 'string' ? args.name : '';
      const record = { name, value: process.env[name] ?? null };
      return { content: [{ type: 'text', text: JSON.stringify(record) }] };
    }
    case 'fail':
      throw new RpcError(-32603, 'Internal error: the backend is down');
    default:
      throw new RpcError(-32602, `Unknown tool: ${String(params.name)}`);
  }
}

const METHODS = {
  initialize: (params) => ({
    protocolVersion: SUPPORTED_VERSIONS.includes(params.protocolVersion) ? params.protocolVersion : LATEST_VERSION,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'result-server', version: '1.0.0' },
  }),
  ping: () => ({}),
  'tools/list': () => ({ tools: TOOLS }),
  'tools/call': callTool,
};

async function onRequest(message) {
  const params = message.params !== null && typeof message.params === 'object' ? message.params : {};
  if (!Object.hasOwn(METHODS, message.method)) {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
    return;
  }
  try {
    const result = await METHODS[message.method](params, message.id);
    if (result !== undefined) send({ jsonrpc: '2.0', id: message.id, result });
  } catch (error) {
    // A file that is not JSON (RESULT_STRUCTURED=copy) or cannot be read is the server's own error.
    const code = error instanceof RpcError ? error.code : -32603;
    send({ jsonrpc: '2.0', id: message.id, error: { code, message: error instanceof Error ? error.message : String(error) } });
  }
}

function onLine(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return; // not JSON: ignore
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return;
  // One request at a time, so replies leave in request order (a streamed reply included).
  if (typeof message.method === 'string' && 'id' in message) queue = queue.then(() => onRequest(message));
}

let queue = Promise.resolve();

// A reader that went away (EPIPE, or a client that refused an oversized line) is not our problem.
process.stdout.on('error', () => process.exit(0));
let partial = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const lines = (partial + chunk).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) if (line.trim() !== '') onLine(line);
});
process.stdin.on('end', () => {
  if (partial.trim() !== '') onLine(partial);
  // Exit once every reply is written and stdout has flushed (pipe writes are asynchronous).
  void queue.then(() => process.stdout.write('', () => process.exit(0)));
});
