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
  {
    name: 'list_packages',
    description: 'A Python-SDK (FastMCP) list result: one pretty-printed JSON text block per package, plus structuredContent {"result": [...]}.',
    inputSchema: { type: 'object', properties: { count: { type: 'integer', minimum: 0 } } },
  },
  {
    name: 'mixed_content',
    description: 'A text block, an embedded text resource, a resource_link and a small PNG image.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'tool_error',
    description: 'Answers with isError: true; the text names the value of the variable given as argument env, if any.',
    inputSchema: { type: 'object', properties: { env: { type: 'string' } } },
  },
  {
    name: 'nested_result',
    description: 'structuredContent nested `depth` arrays deep (default 200,000).',
    inputSchema: { type: 'object', properties: { depth: { type: 'integer', minimum: 1 } } },
  },
  {
    name: 'nested_error',
    description: 'A JSON-RPC error whose data is nested `depth` arrays deep (default 200,000).',
    inputSchema: { type: 'object', properties: { depth: { type: 'integer', minimum: 1 } } },
  },
  {
    name: 'not_object',
    description: 'Answers with a result that is a string, not an object.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'crash',
    description: 'Writes a line on stderr and exits with code 1 instead of answering.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'hang',
    description: 'Never answers.',
    inputSchema: { type: 'object', properties: {} },
  },
];

/** Records a default list_packages returns: the size of the Python-SDK list result this server imitates. */
const DEFAULT_PACKAGE_COUNT = 261;
// A 1x1 PNG (70 bytes decoded).
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

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

/** Deterministic pseudo-random numbers (mulberry32), so every run serves the same bytes. */
function randomSequence(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['async', 'cache', 'redis', 'http', 'client', 'schema', 'queue', 'vector', 'parser', 'retry', 'graph', 'sqlite', 'toml', 'auth', 'oauth', 'metrics', 'trace', 'cli', 'yaml', 'stream'];
const AUTHORS = ['Maria Lopez', 'Kenji Watanabe', 'Amara Okafor', 'Lukas Schmidt', 'Priya Raman', 'Tomás Silva', 'Ingrid Berg', 'Wei Chen'];
const LICENSES = ['MIT', 'Apache-2.0', 'BSD-3-Clause', 'MPL-2.0'];
const AUDIENCES = ['Developers', 'Science/Research', 'System Administrators'];

/** `count` package records, the same on every run: what a PyPI search tool of a Python server returns. */
function packageRecords(count) {
  const random = randomSequence(261);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const records = [];
  for (let n = 0; n < count; n++) {
    const [first, second] = [pick(WORDS), pick(WORDS)];
    const name = `${first}-${second}-${n}`;
    const author = pick(AUTHORS);
    const keywords = [first, second, pick(WORDS)];
    records.push({
      name,
      version: `${1 + Math.floor(random() * 4)}.${Math.floor(random() * 20)}.${Math.floor(random() * 10)}`,
      summary: `A small ${first} library for ${second} workloads, with typed APIs and ${pick(WORDS)} support.`,
      author,
      author_email: `${author.split(' ')[0].toLowerCase()}@example.org`,
      license: pick(LICENSES),
      requires_python: `>=3.${8 + Math.floor(random() * 4)}`,
      home_page: `https://github.com/${author.split(' ')[1].toLowerCase()}/${name}`,
      keywords,
      classifiers: [`Intended Audience :: ${pick(AUDIENCES)}`, 'Programming Language :: Python :: 3', `Topic :: ${first} :: ${second}`],
      downloads_last_month: Math.floor(random() * 2_000_000),
      yanked: random() < 0.05,
      released: new Date(Date.UTC(2020, 0, 1) + Math.floor(random() * 1500) * 86_400_000).toISOString().replace('.000Z', 'Z'),
    });
  }
  return records;
}

/** FastMCP turns a returned list into one text block per item (JSON, indent 2) and wraps the list as structuredContent.result. */
function listPackages(args) {
  const count = Number.isInteger(args.count) && args.count >= 0 ? args.count : DEFAULT_PACKAGE_COUNT;
  const records = packageRecords(count);
  return {
    content: records.map((record) => ({ type: 'text', text: JSON.stringify(record, null, 2) })),
    structuredContent: { result: records },
    isError: false,
  };
}

function mixedContent() {
  return {
    content: [
      { type: 'text', text: 'Found 1 file and 1 link.' },
      { type: 'resource', resource: { uri: 'file:///repo/README.md', mimeType: 'text/markdown', text: '# Widgets\n\nThe widget factory of Acme Corporation.\n' } },
      { type: 'resource_link', uri: 'file:///repo/docs/guide.md', name: 'guide.md', description: 'The user guide', mimeType: 'text/markdown' },
      { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
    ],
  };
}

/** A value nested `depth` arrays deep, as raw JSON text (too deep for JSON.stringify to write). */
function nestedText(args) {
  const depth = Number.isInteger(args.depth) && args.depth > 0 ? args.depth : 200_000;
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** What current SDKs answer for a tool they do not have (RESULT_UNKNOWN_TOOL=is-error), instead of a JSON-RPC error. */
function unknownTool(name) {
  if (process.env.RESULT_UNKNOWN_TOOL === 'is-error') {
    return { content: [{ type: 'text', text: `Unknown tool: ${name}` }], isError: true };
  }
  throw new RpcError(-32602, `Unknown tool: ${name}`);
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
    case 'list_packages':
      return listPackages(args);
    case 'mixed_content':
      return mixedContent();
    case 'tool_error': {
      const where = typeof args.env === 'string' ? ` at ${process.env[args.env] ?? '(unset)'}` : '';
      return { content: [{ type: 'text', text: `Error executing tool tool_error: the backend${where} refused the query` }], isError: true };
    }
    case 'nested_result':
      return write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"structuredContent":{"a":${nestedText(args)}}}}\n`).then(() => undefined);
    case 'nested_error':
      return write(
        `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":-32603,"message":"Internal error","data":${nestedText(args)}}}\n`,
      ).then(() => undefined);
    case 'not_object':
      return 'done';
    case 'crash':
      process.stderr.write('fatal: the handler crashed\n');
      process.exit(1);
      return undefined;
    case 'hang':
      return new Promise(() => {});
    default:
      return unknownTool(String(params.name));
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
