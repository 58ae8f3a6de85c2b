// Generated coding sessions for the scale benchmark: a seeded PRNG, so the same (size, seed) gives
// the same records on every machine. The mix follows the written scenarios: conversation, repeated
// commands with log-like output, stack traces, file views, diffs, test results and a few decisions.
import type { OptimizerInput, SessionRecords } from '../../src/optimizer/_types.js';

/** mulberry32: small, fast, and good enough to pick words. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const AREAS = ['api', 'billing', 'auth', 'queue', 'search', 'ui', 'reports', 'sync', 'storage', 'notifications', 'admin', 'import'];
const NOUNS = ['order', 'invoice', 'user', 'session', 'job', 'lease', 'token', 'cart', 'report', 'upload', 'webhook', 'tenant', 'price', 'event', 'cursor', 'batch'];
const VERBS = ['create', 'update', 'load', 'save', 'parse', 'render', 'validate', 'sync', 'retry', 'merge', 'compute', 'format', 'resolve', 'flush'];
const WORDS = [
  'the', 'handler', 'returns', 'before', 'after', 'cache', 'timeout', 'value', 'request', 'response', 'missing', 'field', 'config', 'retry',
  'null', 'undefined', 'expected', 'received', 'because', 'when', 'only', 'still', 'test', 'fails', 'passes', 'again', 'check', 'call',
  'rows', 'query', 'index', 'worker', 'lock', 'stale', 'fixed', 'changed', 'module', 'import', 'export', 'type', 'error', 'line',
];
const ERROR_KINDS = [
  "TypeError: Cannot read properties of undefined (reading '{field}')",
  'Error: connect ECONNREFUSED 127.0.0.1:{port}',
  "AssertionError: expected {n} to be {m} // Object.is equality",
  'RangeError: Invalid time value',
  "SyntaxError: Unexpected token '}' in JSON at position {n}",
  'Error: Timeout of {n}ms exceeded',
];

interface Picker {
  next: () => number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

function picker(seed: number): Picker {
  const next = seededRandom(seed);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
  };
}

function camel(verb: string, noun: string): string {
  return `${verb}${noun[0]?.toUpperCase() ?? ''}${noun.slice(1)}`;
}

/** A generated session of `recordCount` records, with a task that names a few of its identifiers. */
export function generateSession(recordCount: number, seed = 20_251_130): OptimizerInput {
  const r = picker(seed);
  const pathCount = 40 + Math.floor(recordCount / 40);
  const paths = Array.from({ length: pathCount }, (_, index) => `src/${r.pick(AREAS)}/${r.pick(NOUNS)}-${index}.ts`);
  const symbols = Array.from({ length: Math.max(60, Math.floor(recordCount / 20)) }, (_, index) => `${camel(r.pick(VERBS), r.pick(NOUNS))}${index}`);
  const commands = ['npm test', 'npx tsc --noEmit', 'git status', 'git diff --stat', 'npm run lint', 'npm run build', ...paths.slice(0, 30).map((path) => `npx vitest run ${path.replace(/\.ts$/, '.test.ts')}`)];
  const tests = Array.from({ length: Math.max(40, Math.floor(recordCount / 25)) }, (_, index) => `${r.pick(NOUNS)} > ${r.pick(VERBS)}s ${r.pick(WORDS)} ${r.pick(WORDS)} #${index}`);
  // A session has a handful of tests that keep failing, not thousands: failures come from a small pool.
  const flakyTests = tests.slice(0, 12);

  const sentence = (length: number): string => {
    const words: string[] = [];
    for (let i = 0; i < length; i++) {
      const roll = r.next();
      words.push(roll < 0.08 ? r.pick(symbols) : roll < 0.12 ? r.pick(paths) : r.pick(WORDS));
    }
    return `${words.join(' ')}.`;
  };
  const fill = (template: string): string =>
    template
      .replace('{field}', r.pick(NOUNS))
      .replace('{port}', String(r.int(3000, 9999)))
      .replace('{n}', String(r.int(1, 5000)))
      .replace('{m}', String(r.int(1, 5000)));
  const frames = (count: number): string =>
    Array.from({ length: count }, () => `    at ${r.pick(symbols)} (/app/${r.pick(paths)}:${r.int(1, 400)}:${r.int(1, 80)})`).join('\n');
  const logLines = (count: number): string =>
    Array.from({ length: count }, () => {
      const roll = r.next();
      if (roll < 0.1) return fill(r.pick(ERROR_KINDS));
      if (roll < 0.4) return ` ✓ ${r.pick(paths).replace(/\.ts$/, '.test.ts')} (${r.int(1, 30)} tests) ${r.int(2, 300)}ms`;
      return `[${r.pick(['info', 'debug', 'warn'])}] ${sentence(r.int(4, 12))}`;
    }).join('\n');
  const code = (lines: number): string =>
    Array.from({ length: lines }, () => {
      const roll = r.next();
      if (roll < 0.15) return `export function ${r.pick(symbols)}(${r.pick(NOUNS)}: ${r.pick(['string', 'number', 'Order', 'Job'])}) {`;
      if (roll < 0.3) return '}';
      if (roll < 0.45) return `  const ${r.pick(NOUNS)} = await ${r.pick(symbols)}(${r.pick(NOUNS)}.id);`;
      if (roll < 0.55) return `import { ${r.pick(symbols)} } from '../${r.pick(AREAS)}/${r.pick(NOUNS)}.js';`;
      return `  // ${sentence(r.int(3, 9))}`;
    }).join('\n');

  const records: Required<SessionRecords> = { messages: [], toolOutputs: [], errors: [], files: [], diffs: [], testResults: [], decisions: [] };
  let time = Date.parse('2025-01-06T08:00:00.000Z');
  for (let index = 0; index < recordCount; index++) {
    time += r.int(5, 120) * 1000;
    const common = { id: `r${index}`, timestamp: new Date(time).toISOString() };
    const roll = r.next();
    if (roll < 0.3) {
      records.messages.push({ ...common, role: r.next() < 0.3 ? 'user' : 'assistant', text: Array.from({ length: r.int(1, 4) }, () => sentence(r.int(6, 20))).join(' ') });
    } else if (roll < 0.6) {
      const failed = r.next() < 0.3;
      records.toolOutputs.push({ ...common, command: r.pick(commands), output: logLines(r.int(4, 30)), exitCode: failed ? 1 : 0 });
    } else if (roll < 0.66) {
      const message = fill(r.pick(ERROR_KINDS));
      records.errors.push({ ...common, message, stack: `${message}\n${frames(r.int(3, 10))}` });
    } else if (roll < 0.76) {
      records.files.push({ ...common, path: r.pick(paths), content: code(r.int(15, 60)) });
    } else if (roll < 0.84) {
      const path = r.pick(paths);
      records.diffs.push({
        ...common,
        path,
        diff: `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -${r.int(1, 200)},6 +${r.int(1, 200)},7 @@\n${code(3)}\n-${code(1)}\n+${code(1)}\n+${code(1)}\n${code(2)}`,
      });
    } else if (roll < 0.99) {
      const failed = r.next() < 0.2;
      const name = failed ? r.pick(flakyTests) : r.pick(tests);
      records.testResults.push({ ...common, name, status: failed ? 'failed' : 'passed', ...(failed ? { output: `${fill(r.pick(ERROR_KINDS))}\n${frames(r.int(2, 6))}` } : {}) });
    } else {
      // Accepted decisions bind the work (the optimizer keeps them all), so they stay rare.
      const status = r.next() < 0.1 ? 'accepted' : r.next() < 0.5 ? 'rejected' : 'proposed';
      records.decisions.push({ ...common, text: sentence(r.int(8, 20)), status });
    }
  }
  const focus = r.pick(paths);
  return { ...records, task: `Fix the failing ${r.pick(flakyTests)} test: ${r.pick(symbols)} in ${focus} returns the wrong value.`, tokenBudget: 8000 };
}
