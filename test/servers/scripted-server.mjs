#!/usr/bin/env node
// A scripted MCP server over stdio (newline-delimited JSON-RPC 2.0) with normal and hostile modes.
// Usage: node test/servers/scripted-server.mjs <mode>   (modes: see MODES below and README.md)
// No dependencies beyond node: built-ins, so tests can exercise a transport without project code.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';

const MiB = 1024 * 1024;
const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const LATEST_VERSION = '2025-11-25';
const HANDLED = Symbol('handled'); // a handler that wrote its own (raw) reply returns this

class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
  toJSON() {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

const invalidCursor = () => new RpcError(-32602, 'Invalid cursor');

// ---------------------------------------------------------------------------------------------
// Catalogs. Plain literals so the bytes are identical on every run; key order is
// name, description, inputSchema, [outputSchema].

const GET_WEATHER = {
  name: 'get_weather',
  description:
    'Get the current weather for a city. Temperatures are in °C (metric) or °F (imperial); ' +
    'conditions come back as text with an emoji such as ☀️ or 🌧️.',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name, e.g. "Zürich" or "São Paulo".' },
      units: { type: 'string', enum: ['metric', 'imperial'], description: 'Unit system. Defaults to metric.' },
    },
    required: ['city'],
  },
};

const SEARCH_DOCS = {
  name: 'search_docs',
  description: 'Search the documentation and return the best matching pages, highest score first.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Free-text search query.' },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'Maximum number of results.' },
    },
    required: ['query'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      results: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            title: { type: 'string' },
            url: { type: 'string' },
            score: { type: 'number' },
          },
          required: ['id', 'title'],
        },
      },
      total: { type: 'integer' },
    },
    required: ['results'],
  },
};

const ECHO = {
  name: 'echo',
  description: 'Echo the text back.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
};

const CATALOG = [GET_WEATHER, SEARCH_DOCS, ECHO];

const simpleTool = (name, description) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
});

// pages3: 7 tools over 3 pages; the last page says `nextCursor: null` (some servers do).
const SEVEN = [
  ...CATALOG,
  simpleTool('list_issues', 'List open issues in the repository.'),
  simpleTool('get_issue', 'Get one issue by id.'),
  simpleTool('close_issue', 'Close an issue by id.'),
  simpleTool('get_file', 'Read a file from the repository by path.'),
];
const PAGES3 = {
  first: { tools: SEVEN.slice(0, 3), nextCursor: 'page-2' },
  'page-2': { tools: SEVEN.slice(3, 5), nextCursor: 'page-3' },
  'page-3': { tools: SEVEN.slice(5, 7), nextCursor: null },
};

// cursor-loop: a -> b -> a -> ... forever; a client must detect the repeat or cap pages.
const CURSOR_LOOP = {
  first: { tools: [simpleTool('loop_start', 'First page of a looping catalog.')], nextCursor: 'a' },
  a: { tools: [simpleTool('loop_a', 'Page a of a looping catalog.')], nextCursor: 'b' },
  b: { tools: [simpleTool('loop_b', 'Page b of a looping catalog.')], nextCursor: 'a' },
};

// Serves `pages.first` without a cursor, `pages[cursor]` for a known cursor, else -32602.
const pagedList = (pages) => (params) => {
  const cursor = params.cursor;
  if (cursor === undefined || cursor === null) return pages.first;
  if (typeof cursor !== 'string' || cursor === 'first' || !Object.hasOwn(pages, cursor)) throw invalidCursor();
  return pages[cursor];
};

// many-tools: 5,000 tools, 100 per page, cursors "offset-N"; the last page has no nextCursor key.
const MANY_TOTAL = 5000;
const MANY_PAGE = 100;
const MANY_TOOLS = Array.from({ length: MANY_TOTAL }, (_, i) => ({
  name: `tool_${String(i).padStart(5, '0')}`,
  description: `Synthetic tool number ${i} of ${MANY_TOTAL}.`,
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
}));
function manyToolsList(params) {
  let offset = 0;
  if (params.cursor !== undefined && params.cursor !== null) {
    const match = typeof params.cursor === 'string' ? /^offset-(\d{1,5})$/.exec(params.cursor) : null;
    offset = match ? Number(match[1]) : -1;
    if (offset <= 0 || offset >= MANY_TOTAL || offset % MANY_PAGE !== 0) throw invalidCursor();
  }
  const end = offset + MANY_PAGE;
  const tools = MANY_TOOLS.slice(offset, end);
  return end < MANY_TOTAL ? { tools, nextCursor: `offset-${end}` } : { tools };
}

// ---------------------------------------------------------------------------------------------
// Base behaviour.

function initializeResult(protocolVersion) {
  return {
    protocolVersion,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'scripted-server', version: '1.0.0' },
    instructions: 'Scripted test server. Call tools/list to see the catalog.',
  };
}

const negotiate = (requested) => (SUPPORTED_VERSIONS.includes(requested) ? requested : LATEST_VERSION);

const BASE_METHODS = {
  initialize: (params) => initializeResult(negotiate(params.protocolVersion)),
  ping: () => ({}),
  'tools/list': pagedList({ first: { tools: CATALOG } }),
};

// Output goes through writeLine so `trickle` can replace it; every message is one write.
function defaultWriteLine(data) {
  process.stdout.write(data);
}
let writeLine = defaultWriteLine;
function send(msg) {
  writeLine(JSON.stringify(msg) + '\n');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const forever = () => new Promise(() => {});

// Exit only after stdout/stderr have flushed: pipe writes are asynchronous in Node, and
// process.exit() would drop what is still queued.
function exitAfterFlush(code) {
  process.stderr.write('', () => process.stdout.write('', () => process.exit(code)));
}

// Write to stderr, then exit; the returned promise never settles so nothing else runs.
function die(code, text) {
  process.stderr.write(text, () => process.exit(code));
  return forever();
}

// Keeps the event loop alive (for modes that must not exit when stdin ends).
function keepAlive() {
  setInterval(() => {}, 1 << 30);
}

// ---------------------------------------------------------------------------------------------
// Mode-specific pieces.

// One write of one ~20 MiB line.
function oversizedToolsList() {
  return { tools: [{ name: 'huge', description: 'a'.repeat(20 * MiB), inputSchema: { type: 'object' } }] };
}

// endless-line: 64 KiB of "x" every ~5 ms, never a newline, bounded at 64 MiB.
let endlessTimer;
function endlessToolsList() {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  const next = () => {
    if (sent >= 64 * MiB) return;
    sent += chunk.length;
    if (process.stdout.write(chunk)) endlessTimer = setTimeout(next, 5);
    else process.stdout.once('drain', () => (endlessTimer = setTimeout(next, 5)));
  };
  next();
  return HANDLED;
}

function invalidUtf8ToolsList(_params, id) {
  const HOLE = '@@RAW_BYTES@@';
  const tool = { name: 'broken_text', description: `before ${HOLE} after`, inputSchema: { type: 'object' } };
  const [before, after] = JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [tool] } }).split(HOLE);
  // 0xC3 0x28: a lead byte followed by a non-continuation byte; 0xFF never appears in UTF-8.
  writeLine(Buffer.concat([Buffer.from(before), Buffer.from([0xc3, 0x28, 0x20, 0xff]), Buffer.from(after + '\n')]));
  return HANDLED;
}

// trickle: one byte every 100 ms; stdin end waits for the queue to empty.
const trickle = { queue: [], timer: undefined, stdinEnded: false };
function trickleWriteLine(data) {
  for (const byte of Buffer.from(data)) trickle.queue.push(byte);
  if (trickle.timer !== undefined) return;
  trickle.timer = setInterval(() => {
    const byte = trickle.queue.shift();
    if (byte !== undefined) process.stdout.write(Buffer.from([byte]));
    if (trickle.queue.length === 0) {
      clearInterval(trickle.timer);
      trickle.timer = undefined;
      if (trickle.stdinEnded) exitAfterFlush(0);
    }
  }, 100);
}

function stderrFlood() {
  const total = MiB;
  const marker = 'stderr-flood-end-marker\n';
  const lines = [];
  let size = 0;
  for (let n = 0; size + 64 <= total - marker.length; n++) {
    const line = `noise line ${String(n).padStart(6, '0')} `.padEnd(63, '.') + '\n'; // 64 bytes
    lines.push(line);
    size += line.length;
  }
  const rest = total - marker.length - size; // pad so the total is exactly 1 MiB
  if (rest > 0) lines.push('.'.repeat(rest - 1) + '\n');
  lines.push(marker);
  // Start answering only once stderr has taken it all, as a server blocked on a full stderr pipe
  // would: a client that never drains stderr gets no replies (Node alone would buffer instead).
  return new Promise((resolve) => process.stderr.write(lines.join(''), resolve));
}

// client-requests: server->client requests sent during initialize; replies are recorded.
const CLIENT_REQUESTS = [
  { jsonrpc: '2.0', id: 'srv-ping', method: 'ping' },
  { jsonrpc: '2.0', id: 'srv-roots', method: 'roots/list' },
  { jsonrpc: '2.0', id: 'srv-sampling', method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } },
];
const clientReplies = {};
let onClientReply = () => {};
function recordClientReply(msg) {
  if (!CLIENT_REQUESTS.some((r) => r.id === msg.id) || !('result' in msg || 'error' in msg)) return;
  clientReplies[msg.id] = msg;
  onClientReply();
}
async function clientRequestsInitialize(params) {
  for (const request of CLIENT_REQUESTS) send(request);
  const allReplied = () => CLIENT_REQUESTS.every((r) => Object.hasOwn(clientReplies, r.id));
  let timer;
  await new Promise((resolve) => {
    timer = setTimeout(resolve, 5000);
    onClientReply = () => allReplied() && resolve();
    onClientReply();
  });
  clearTimeout(timer);
  return initializeResult(negotiate(params.protocolVersion));
}
function clientRequestsToolsList() {
  const missing = CLIENT_REQUESTS.map((r) => r.id).filter((id) => !Object.hasOwn(clientReplies, id));
  const description = JSON.stringify(missing.length === 0 ? clientReplies : { ...clientReplies, missing });
  const tool = { name: 'client_replies', description, inputSchema: { type: 'object' } };
  return { tools: [...CATALOG, tool] };
}

// elicit-on-list: tools/list first asks the client elicitation/create (id srv-elicit), waits up to
// 5 s for the reply, then lists one tool whose description is the JSON of the reply (or "missing").
let elicitationReply;
let onElicitationReply = () => {};
function recordElicitationReply(msg) {
  if (msg.id !== 'srv-elicit' || !('result' in msg || 'error' in msg)) return;
  elicitationReply = msg;
  onElicitationReply();
}
async function elicitOnList() {
  send({
    jsonrpc: '2.0',
    id: 'srv-elicit',
    method: 'elicitation/create',
    params: { mode: 'form', message: 'Which city?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } } } },
  });
  let timer;
  await new Promise((resolve) => {
    timer = setTimeout(resolve, 5000);
    onElicitationReply = resolve;
    if (elicitationReply !== undefined) resolve();
  });
  clearTimeout(timer);
  const description = elicitationReply === undefined ? 'missing' : JSON.stringify(elicitationReply);
  return { tools: [{ name: 'elicitation_reply', description, inputSchema: { type: 'object' } }] };
}

// flood-never-read: answers initialize, then never reads stdin again and sends server->client
// pings as fast as its stdout drains (a client that answers each one fills the pipe).
let flooding = false;
function floodNeverReadInitialize(params, id) {
  process.stdin.pause();
  process.stdin.removeAllListeners('data');
  flooding = true;
  let n = 0;
  // The answer and a first wave of pings in one write: a client that answers every ping before it
  // sends notifications/initialized finds the pipe full.
  const wave = Array.from({ length: 2000 }, () => JSON.stringify({ jsonrpc: '2.0', id: `flood-${n++}`, method: 'ping' }) + '\n');
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: initializeResult(negotiate(params.protocolVersion)) }) + '\n' + wave.join(''));
  const until = Date.now() + 120_000;
  const burst = () => {
    if (Date.now() > until) return;
    let ok = true;
    for (let k = 0; k < 200 && ok; k++) ok = process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: `flood-${n++}`, method: 'ping' }) + '\n');
    if (ok) setTimeout(burst, 2);
    else process.stdout.once('drain', burst);
  };
  burst();
  return HANDLED;
}

// Processes that leave the server's process group, each reported on stderr as "<kind> pid N".
function spawnEscapees(kinds) {
  for (const kind of kinds) {
    if (kind === 'setsid') {
      const child = spawn('sleep', ['1000'], { stdio: 'ignore', detached: true });
      child.unref();
      process.stderr.write(`setsid pid ${child.pid}\n`);
    } else if (kind === 'daemon') {
      // A double fork: the middle process starts a detached sleep, prints its pid and exits, so the
      // sleep is reparented and no longer below the server.
      const script = "const c=require('child_process').spawn('sleep',['1000'],{stdio:'ignore',detached:true});c.unref();process.stderr.write('daemon pid '+c.pid+'\\n');";
      const middle = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'inherit'], detached: true });
      middle.unref();
    } else if (kind === 'env-cleared') {
      // No environment at all (so no tag), in its own session, but still the server's child.
      const child = spawn('env', ['-i', 'setsid', 'sleep', '1000'], { stdio: 'ignore' });
      process.stderr.write(`env-cleared pid ${child.pid}\n`);
    }
  }
}

// session: tools/call for a long-lived session. Tools: "slow" {ms, tag} answers {tag} after ms,
// sending notifications/progress first when the call carries a progressToken; "ask" sends
// sampling/createMessage to the client and returns the client's answer.
const pendingAsks = new Map();
let askCounter = 0;
function sessionToolsCall(params, id) {
  const args = params.arguments ?? {};
  const token = params._meta?.progressToken;
  if (params.name === 'slow') {
    if (token !== undefined) send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } });
    setTimeout(() => send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: JSON.stringify({ tag: args.tag }) }] } }), Number(args.ms) || 0);
    return HANDLED;
  }
  if (params.name === 'ask') {
    const askId = `ask-${++askCounter}`;
    pendingAsks.set(askId, (reply) => send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: JSON.stringify(reply) }] } }));
    send({ jsonrpc: '2.0', id: askId, method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: args.question } }], maxTokens: 10 } });
    return HANDLED;
  }
  throw new RpcError(-32602, `Unknown tool: ${params.name}`);
}
function sessionReply(msg) {
  const done = pendingAsks.get(msg.id);
  if (!done) return;
  pendingAsks.delete(msg.id);
  done('result' in msg ? { result: msg.result } : { error: msg.error });
}

// big-pages: 40 legal pages of ~15 MiB each (one long description per page).
const BIG_PAGE_DESCRIPTION = 'x'.repeat(15 * MiB);
function bigPagesList(params) {
  const page = params.cursor === undefined ? 0 : Number(String(params.cursor).replace('page-', ''));
  const tools = [{ name: `big_${page}`, description: BIG_PAGE_DESCRIPTION, inputSchema: { type: 'object' } }];
  return page < 39 ? { tools, nextCursor: `page-${page + 1}` } : { tools };
}

// fail-once, hang-once: the first launch that finds no file at $SCRIPTED_STATE_FILE creates it
// (atomically, so two launches never both count as first) and misbehaves; later launches are normal.
function firstLaunch() {
  const file = process.env.SCRIPTED_STATE_FILE;
  if (!file) throw new Error('fail-once and hang-once need SCRIPTED_STATE_FILE');
  try {
    closeSync(openSync(file, 'wx'));
    return true;
  } catch (err) {
    if (err.code === 'EEXIST') return false;
    throw err;
  }
}

const secretLine = () => `the secret is ${process.env.CANARY_SECRET}\n`;

// deep-*: JSON nested DEEP levels, written as raw text (JSON.stringify would overflow the stack
// here too); JSON.parse reads any depth.
const DEEP = 200_000;
const deepObject = (leaf) => '{"type":'.repeat(DEEP) + leaf + '}'.repeat(DEEP);
function deepSchemaToolsList(_params, id) {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[{"name":"deep","description":"A schema nested ${DEEP} levels.","inputSchema":`;
  writeLine(`${head}${deepObject('"object"')}}]}}\n`);
  return HANDLED;
}
function deepInitialize(params, id) {
  const result = JSON.stringify(initializeResult(negotiate(params.protocolVersion)));
  // serverInfo gains a member nested DEEP levels.
  const withDeep = result.replace('"serverInfo":{', `"serverInfo":{"extra":${deepObject('1')},`);
  writeLine(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${withDeep}}\n`);
  return HANDLED;
}
function deepIdInitialize() {
  // A response whose id is an array nested DEEP levels: it matches no request.
  writeLine(`{"jsonrpc":"2.0","id":${'['.repeat(DEEP)}${']'.repeat(DEEP)},"result":{}}\n`);
  return HANDLED;
}

// slow-to-count: one description of 5,000,000 CJK ideographs from a fixed sequence: a single
// pre-tokenizer piece that takes seconds of BPE (more than a test budget), in a 15 MB frame (the
// limit is 16 MiB).
function slowToCountToolsList() {
  let state = 7;
  const chars = [];
  for (let n = 0; n < 5_000_000; n++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    chars.push(0x4e00 + (state % 20_000));
  }
  let description = '';
  for (let n = 0; n < chars.length; n += 10_000) description += String.fromCharCode(...chars.slice(n, n + 10_000));
  return { tools: [{ name: 'slow_to_count', description, inputSchema: { type: 'object' } }] };
}

// env-in-catalog: CANARY_SECRET inside a tool name, a description (plain and as JSON text) and
// the instructions, as a server that echoes its configuration would.
function envInCatalogToolsList() {
  const secret = process.env.CANARY_SECRET ?? '';
  const tool = {
    name: `lookup_${secret}`,
    description: `Looks things up with key ${secret}; config ${JSON.stringify({ key: secret })}.`,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  };
  return { tools: [...CATALOG, tool] };
}

// `tasks`: an upstream that runs `research` as an MCP task (2025-11-25). Its ids are `task-1`,
// `task-2`, ... in every process, so two of them behind one gateway collide. A task is `working`
// until tasks/get (then `completed`) or tasks/cancel (then `cancelled`); tasks/list pages one task
// at a time under the cursor `after-<id>`; an id it never made is -32602 naming this server.
// `process.argv[3]` labels the server in its results; `words` asks for a result that many words long.
const TASKS_LABEL = process.argv[3] ?? 'tasks';
const tasksMade = new Map();
const askedClient = new Map();
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const RESEARCH = {
  name: 'research',
  description: 'Researches a topic as a task.',
  inputSchema: { type: 'object', properties: { topic: { type: 'string' }, words: { type: 'number' } } },
  execution: { taskSupport: 'optional' },
};
function madeTask(params) {
  const task = tasksMade.get(params.taskId);
  if (task === undefined) throw new RpcError(-32602, `scripted ${TASKS_LABEL} never made task ${JSON.stringify(params.taskId)}`);
  return task;
}
const taskView = ({ args: _args, ...task }) => task;
const TASKS_METHODS = {
  initialize: (params) => ({
    ...initializeResult(negotiate(params.protocolVersion)),
    // `sampling` is no server's to declare: the gateway must not pass it on.
    capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} }, sampling: { createMessage: {} } } } },
  }),
  'tools/list': () => ({ tools: [RESEARCH] }),
  'tools/call': (params, id) => {
    const args = params.arguments ?? {};
    if (args.askClient !== undefined) {
      // Asks the client about a task of the client's own; answers the call with the client's reply.
      askedClient.set(`ask-${id}`, id);
      send({ jsonrpc: '2.0', id: `ask-${id}`, method: 'tasks/get', params: { taskId: args.askClient } });
      return HANDLED;
    }
    const text = (id) => (typeof args.words === 'number' ? 'word '.repeat(args.words) : `result of ${id} from ${TASKS_LABEL} on ${args.topic}`);
    if (params.task === undefined) return { content: [{ type: 'text', text: text('a direct call') }] };
    const taskId = `task-${tasksMade.size + 1}`;
    const now = new Date(0).toISOString();
    const task = { taskId, status: 'working', ttl: params.task.ttl ?? 60_000, createdAt: now, lastUpdatedAt: now, pollInterval: 10, args, text: text(taskId) };
    tasksMade.set(taskId, task);
    const { text: _text, ...shown } = taskView(task);
    send({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { ...shown, _meta: { [RELATED_TASK]: { taskId } } } });
    return { task: shown };
  },
  'tasks/get': (params) => {
    const task = madeTask(params);
    if (task.status === 'working') task.status = 'completed';
    const { text: _text, ...shown } = taskView(task);
    return shown;
  },
  'tasks/result': (params) => {
    const task = madeTask(params);
    task.status = 'completed';
    return { content: [{ type: 'text', text: task.text }], _meta: { [RELATED_TASK]: { taskId: task.taskId } } };
  },
  'tasks/cancel': (params) => {
    const task = madeTask(params);
    if (task.status !== 'working') throw new RpcError(-32602, `task ${task.taskId} is already ${task.status}`);
    task.status = 'cancelled';
    const { text: _text, ...shown } = taskView(task);
    return shown;
  },
  'tasks/list': (params) => {
    const all = [...tasksMade.values()];
    let start = 0;
    if (params.cursor !== undefined) {
      start = all.findIndex((task) => `after-${task.taskId}` === params.cursor) + 1;
      if (start === 0) throw new RpcError(-32602, `scripted ${TASKS_LABEL}: unknown cursor ${JSON.stringify(params.cursor)}`);
    }
    const page = all.slice(start, start + 1).map((task) => {
      const { text: _text, ...shown } = taskView(task);
      return shown;
    });
    return start + 1 < all.length ? { tasks: page, nextCursor: `after-${all[start]?.taskId}` } : { tasks: page };
  },
};

// ---------------------------------------------------------------------------------------------
// The modes. Hooks (all optional):
//   start()          runs before stdin is read; may return a promise (never settles = never read)
//   methods          request handlers overriding BASE_METHODS: (params, id) => result | HANDLED
//   mapId(id)        the id put on every response
//   beforeResponse() runs before each response is written
//   writeLine(data)  replaces the single-write output
//   silent           never answer anything
//   onStdinEnd()     replaces "flush stdout, exit 0"
const MODES = {
  normal: {},
  pages3: { methods: { 'tools/list': pagedList(PAGES3) } },
  'cursor-loop': { methods: { 'tools/list': pagedList(CURSOR_LOOP) } },
  'old-version': { methods: { initialize: () => initializeResult('2024-11-05') } },
  'version-refusal': {
    methods: {
      initialize: (params) => {
        const requested = params.protocolVersion ?? null;
        throw new RpcError(-32602, `Unsupported protocol version: ${requested}. Supported versions: 2024-11-05`, {
          supported: ['2024-11-05'],
          requested,
        });
      },
    },
  },
  // A server of the 2026-07-28 revision: server/discover replaced initialize, which has no handler.
  'no-initialize': {
    methods: {
      initialize: () => {
        throw new RpcError(-32601, 'Method not found: initialize');
      },
    },
  },
  // The same, naming what it speaks in data.supported.
  'discover-only': {
    methods: {
      initialize: () => {
        throw new RpcError(-32601, 'Method not found: initialize', { supported: ['2026-07-28'], hint: 'call server/discover' });
      },
    },
  },
  'empty-tools': { methods: { 'tools/list': () => ({ tools: [] }) } },
  // Lists no tools and declares no tools capability at all.
  'empty-tools-undeclared': {
    methods: {
      initialize: (params) => ({ ...initializeResult(negotiate(params.protocolVersion)), capabilities: {} }),
      'tools/list': () => ({ tools: [] }),
    },
  },
  'elicit-on-list': { methods: { 'tools/list': elicitOnList }, onResponse: recordElicitationReply },
  'wrong-id': { mapId: (id) => (typeof id === 'number' ? id + 1000 : `wrong-${String(id)}`) },
  'id-true': { mapId: (id) => (id === 1 ? true : id) },
  'id-string': { mapId: (id) => (id === 1 ? '1' : id) },
  'oversized-frame': { methods: { 'tools/list': oversizedToolsList } },
  'endless-line': {
    methods: { 'tools/list': endlessToolsList },
    // Output may be stuck behind a client that stopped reading: do not wait for a flush.
    onStdinEnd: () => {
      clearTimeout(endlessTimer);
      process.exit(0);
    },
  },
  'stdout-log': { start: () => process.stdout.write('scripted-server listening on stdio (log line)\n') },
  'invalid-utf8': { methods: { 'tools/list': invalidUtf8ToolsList } },
  hang: { silent: true, start: keepAlive, onStdinEnd: () => {} },
  trickle: {
    writeLine: trickleWriteLine,
    onStdinEnd: () => {
      trickle.stdinEnded = true;
      if (trickle.timer === undefined) exitAfterFlush(0);
    },
  },
  'stderr-flood': { start: stderrFlood },
  'notification-flood': {
    beforeResponse: () => {
      for (let n = 1; n <= 1000; n++) {
        send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `note ${n}` } });
      }
    },
  },
  'early-exit': { start: () => die(3, 'fatal: could not read config file /etc/scripted/config.toml: no such file\n') },
  'auth-missing': {
    start: () => die(1, 'Error: GITHUB_PERSONAL_ACCESS_TOKEN environment variable is not set. An API key is required.\n'),
  },
  'auth-error-reply': {
    methods: {
      'tools/list': () => {
        throw new RpcError(-32001, 'Unauthorized: missing or invalid API key (set EXAMPLE_API_KEY)');
      },
    },
  },
  grandchild: {
    start: () => {
      // Same process group, not awaited: a launcher must kill the whole group to reap it.
      const child = spawn('sleep', ['1000'], { stdio: 'ignore' });
      child.unref(); // so this server still exits when stdin ends, leaving the grandchild behind
      process.stderr.write(`grandchild pid ${child.pid}\n`);
    },
  },
  'ignore-sigterm': {
    start: () => {
      process.on('SIGTERM', () => {});
      keepAlive();
    },
    onStdinEnd: () => {},
  },
  dynamic: (() => {
    const suffix = randomUUID(); // chosen once per process
    const echo = { ...ECHO, description: `${ECHO.description} Instance ${suffix}.` };
    return { methods: { 'tools/list': pagedList({ first: { tools: [GET_WEATHER, SEARCH_DOCS, echo] } }) } };
  })(),
  'many-tools': { methods: { 'tools/list': manyToolsList } },
  'client-requests': {
    methods: { initialize: clientRequestsInitialize, 'tools/list': clientRequestsToolsList },
    onResponse: recordClientReply,
  },
  'echo-env': { start: () => process.stderr.write(secretLine()) },
  'echo-env-exit': { start: () => die(1, secretLine()) },
  'slow-start': { start: () => sleep(300) },
  'fail-once': { start: () => (firstLaunch() ? die(1, 'fatal: the first start failed (fail-once)\n') : undefined) },
  'hang-once': (() => {
    // Decided before stdin is read; a hanging first launch never answers and outlives stdin end.
    if (process.argv[2] !== 'hang-once' || !firstLaunch()) return {};
    return { silent: true, start: keepAlive, onStdinEnd: () => {} };
  })(),
  'flood-never-read': { methods: { initialize: floodNeverReadInitialize }, onStdinEnd: () => {} },
  escapees: { start: () => spawnEscapees(['setsid', 'daemon', 'env-cleared']) },
  'escapees-hang': { start: () => (spawnEscapees(['setsid', 'daemon']), keepAlive()), onStdinEnd: () => {} },
  session: { methods: { 'tools/call': sessionToolsCall }, onResponse: sessionReply },
  'big-pages': { methods: { 'tools/list': bigPagesList } },
  'deep-schema': { methods: { 'tools/list': deepSchemaToolsList } },
  'deep-initialize': { methods: { initialize: deepInitialize } },
  'deep-id': { methods: { initialize: deepIdInitialize } },
  'slow-to-count': { methods: { 'tools/list': slowToCountToolsList } },
  'env-in-catalog': {
    methods: {
      initialize: (params) => ({
        ...initializeResult(negotiate(params.protocolVersion)),
        instructions: `Use the key ${process.env.CANARY_SECRET} for everything.`,
      }),
      'tools/list': envInCatalogToolsList,
    },
  },
  'env-in-error': {
    methods: {
      'tools/list': () => {
        // Coloured, with a bell and a carriage return, as a logger writing to a terminal would.
        throw new RpcError(-32603, `\u001b[31mbackend refused key ${process.env.CANARY_SECRET}\u001b[0m\u0007\r\nretry later`);
      },
    },
  },
  // A catalog that names the folder the server was started in (as figma's does): its cost depends on the cwd.
  'cwd-in-catalog': {
    methods: { 'tools/list': () => ({ tools: [{ name: 'read_file', description: `Reads a file under ${process.cwd()}.`, inputSchema: { type: 'object' } }] }) },
  },
  'ansi-catalog': {
    methods: {
      'tools/list': pagedList({
        first: { tools: [{ name: 'paint_\u001b[31mred\u001b[0m\u0007', description: 'Paints \u001b[1mbold\u001b[0m.', inputSchema: { type: 'object' } }] },
      }),
    },
  },
  tasks: {
    methods: TASKS_METHODS,
    onResponse: (msg) => {
      const callId = askedClient.get(msg.id);
      if (callId !== undefined) respond(callId, { result: { content: [{ type: 'text', text: JSON.stringify(msg.result ?? msg.error) }] } });
    },
  },
  'ansi-exit': {
    start: () => die(1, `\u001b[1;31mfatal:\u001b[0m config \u001b]8;;file:///etc/x\u0007missing\u001b]8;;\u0007 \u202eevil\u202c\n`),
  },
};

// ---------------------------------------------------------------------------------------------
// Dispatch.

const modeName = process.argv[2];
const mode = modeName !== undefined && Object.hasOwn(MODES, modeName) ? MODES[modeName] : undefined;
if (mode === undefined) {
  process.stderr.write(`unknown mode ${modeName ?? '(none)'}\nmodes: ${Object.keys(MODES).join(', ')}\n`, () =>
    process.exit(2),
  );
} else {
  if (mode.writeLine) writeLine = mode.writeLine;
  // A reader that went away (EPIPE) is not our problem: just leave.
  process.stdout.on('error', () => process.exit(0));
  process.stderr.on('error', () => {});
  Promise.resolve(mode.start?.()).then(() => readLines(process.stdin, onLine, onStdinEnd));
}

function respond(id, payload) {
  mode.beforeResponse?.();
  send({ jsonrpc: '2.0', id: mode.mapId ? mode.mapId(id) : id, ...payload });
}

// Synchronous unless a handler returns a promise, so replies leave in request order.
function onRequest(msg) {
  const params = msg.params !== null && typeof msg.params === 'object' ? msg.params : {};
  const methods = mode.methods ?? {};
  // Object.hasOwn, so a method named "constructor" or "__proto__" is simply unknown.
  const handler = Object.hasOwn(methods, msg.method)
    ? methods[msg.method]
    : Object.hasOwn(BASE_METHODS, msg.method)
      ? BASE_METHODS[msg.method]
      : undefined;
  if (handler === undefined) {
    respond(msg.id, { error: { code: -32601, message: `Method not found: ${msg.method}` } });
    return;
  }
  const reply = (result) => {
    if (result !== HANDLED) respond(msg.id, { result });
  };
  const fail = (err) => {
    if (!(err instanceof RpcError)) throw err;
    respond(msg.id, { error: err.toJSON() });
  };
  let result;
  try {
    result = handler(params, msg.id);
  } catch (err) {
    fail(err);
    return;
  }
  if (result instanceof Promise) result.then(reply, fail);
  else reply(result);
}

function onLine(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return; // not JSON: ignore
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || mode.silent || flooding) return;
  if (typeof msg.method === 'string') {
    if ('id' in msg) onRequest(msg); // a request; without an id it is a notification: ignore
  } else if ('id' in msg) {
    mode.onResponse?.(msg); // a reply to a server->client request
  }
}

function onStdinEnd() {
  if (mode.onStdinEnd) mode.onStdinEnd();
  else exitAfterFlush(0);
}

// Newline-delimited reader; setEncoding makes multi-byte characters split across chunks safe.
function readLines(stream, lineHandler, endHandler) {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) if (line.trim() !== '') lineHandler(line);
  });
  stream.on('end', () => {
    if (partial.trim() !== '') lineHandler(partial);
    endHandler();
  });
}
