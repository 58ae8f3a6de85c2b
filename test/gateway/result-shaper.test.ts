import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ResultShaper, createMemoryStore, type OffloadStore, type ResultContext, type ShapeOutcome } from '../../src/gateway/index.js';
import { toolResultCost } from '../../src/shape/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { WalkedItems } from './_walked-items.js';

// The real recording: 30 pull requests, 424 KB, as the `before` example sends them (text + structured copy).
const PULLS_FILE = fileURLToPath(new URL('../../examples/pull-requests/data/pulls.json', import.meta.url));
const pulls = JSON.parse(readFileSync(PULLS_FILE, 'utf8')) as Array<{ number: number }>;
const NUMBERS = pulls.map((pull) => pull.number);
const beforeResult = (): Record<string, unknown> => ({ content: [{ type: 'text', text: JSON.stringify(pulls) }], structuredContent: { pull_requests: pulls } });

const KEY = new Uint8Array(32).fill(7);
const SUMMARY = ['number', 'title', 'state', { path: 'user.login', as: 'author' }, 'created_at', 'merged_at', { path: 'body', maxChars: 280 }];

function context(overrides: Partial<ResultContext> = {}): ResultContext {
  return { sessionId: 'session-1', tool: 'list_pull_requests', rules: undefined, capTokens: 25_000, offload: true, ...overrides };
}

function text(outcome: ShapeOutcome): string {
  const content = outcome.result.content as Array<{ text: string }>;
  expect(content).toHaveLength(1);
  return content[0]?.text ?? '';
}

function json(outcome: ShapeOutcome): Record<string, unknown> {
  return JSON.parse(text(outcome)) as Record<string, unknown>;
}

function numbersOf(items: unknown): number[] {
  return (items as Array<{ number: number }>).map((item) => item.number);
}

describe('project + pageTokens on the real pull requests', () => {
  const ctx = context({ rules: { project: SUMMARY, pageTokens: 1500 } });

  it('cuts the delivered tokens by at least 96% and reaches every PR through the cursors, each once', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const first = shaper.shape(beforeResult(), { state: 'all' }, ctx);
    expect(first.action).toBe('paged');
    expect(first.upstreamTokens).toBe(113_801);
    expect(first.note).toMatch(/structuredContent\.pull_requests \(30\)/);
    const seen: number[] = [];
    let delivered = 0;
    let outcome: ShapeOutcome | undefined = first;
    for (let pages = 0; outcome !== undefined && pages < 40; pages += 1) {
      expect(outcome.result.isError).toBeUndefined();
      expect(outcome.deliveredTokens).toBe(countTokens(text(outcome)));
      expect(outcome.deliveredTokens).toBeLessThanOrEqual(1500);
      delivered += outcome.deliveredTokens;
      const page = json(outcome);
      seen.push(...numbersOf(page.items));
      if (page.next_cursor === null) break;
      outcome = shaper.continuation({ state: 'all', cursor: page.next_cursor }, ctx);
      expect(outcome?.upstreamTokens).toBe(0); // served from the store, the upstream is not called
    }
    expect(seen).toEqual(NUMBERS);
    expect(delivered / first.upstreamTokens).toBeLessThanOrEqual(0.04);
  });

  it('sends text only, keeps _meta and unknown keys, and adds a cursor parameter to the tool', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const outcome = shaper.shape({ ...beforeResult(), _meta: { trace: 'x' }, 'x-vendor': 1 }, {}, ctx);
    expect(Object.keys(outcome.result)).toEqual(['content', '_meta', 'x-vendor']);
    expect(outcome.result._meta).toEqual({ trace: 'x' });
    const tool = { name: 't', inputSchema: { type: 'object', properties: { state: { type: 'string' } } }, annotations: {} };
    const paged = shaper.withCursorParameter(tool);
    expect(Object.keys(paged)).toEqual(['name', 'inputSchema', 'annotations']);
    expect(Object.keys((paged.inputSchema as { properties: object }).properties)).toEqual(['state', 'cursor']);
    const own = { name: 'u', inputSchema: { type: 'object', properties: { cursor: { type: 'integer' } } } };
    expect(shaper.withCursorParameter(own)).toBe(own);
  });

  it('refuses tampered, foreign-session, other-argument, expired and evicted cursors, each with its remedy', () => {
    let time = 5_000_000;
    const store = createMemoryStore({ ttlMs: 60_000, now: () => time });
    const shaper = new ResultShaper({ store, key: KEY });
    const cursor = json(shaper.shape(beforeResult(), { state: 'all' }, ctx)).next_cursor as string;
    const refused = (args: Record<string, unknown>, over: Partial<ResultContext> = {}): string => {
      const outcome = shaper.continuation(args, { ...ctx, ...over });
      expect(outcome?.action).toBe('refused');
      expect(outcome?.result.isError).toBe(true);
      expect(outcome?.upstreamTokens).toBe(0);
      return outcome === undefined ? '' : text(outcome);
    };
    const flipped = cursor.slice(0, 20) + (cursor[20] === 'A' ? 'B' : 'A') + cursor.slice(21);
    expect(refused({ state: 'all', cursor: flipped })).toMatch(/^INVALID_CURSOR: .*signature does not match.*omit cursor|start again/);
    expect(refused({ state: 'all', cursor: 'not-ours' })).toMatch(/^INVALID_CURSOR: .*not a cursor issued here/);
    expect(refused({ state: 'all', cursor }, { sessionId: 'session-2' })).toMatch(/^FOREIGN_CURSOR: .*another session/);
    expect(refused({ state: 'open', cursor })).toMatch(/^FOREIGN_CURSOR: .*different call/);
    expect(refused({ state: 'all', cursor }, { tool: 'other_tool' })).toMatch(/^FOREIGN_CURSOR/);
    // Another gateway key (a restarted gateway without a shared key): a signature mismatch.
    const stranger = new ResultShaper({ store, key: new Uint8Array(32).fill(9) });
    expect(text(stranger.continuation({ state: 'all', cursor }, ctx) as ShapeOutcome)).toMatch(/^INVALID_CURSOR: .*signature/);
    time += 60_000;
    expect(refused({ state: 'all', cursor })).toMatch(/^EXPIRED: .*kept for 1 min.*without cursor/);
  });

  it('says a cursor whose list was evicted is gone and how to get it anew', () => {
    const store = createMemoryStore();
    const shaper = new ResultShaper({ store, key: KEY });
    const cursor = json(shaper.shape(beforeResult(), {}, ctx)).next_cursor as string;
    const evicting = new ResultShaper({ store: { ...store, get: () => undefined } as OffloadStore, key: KEY });
    expect(text(evicting.continuation({ cursor }, ctx) as ShapeOutcome)).toMatch(/^EVICTED: .*evicted to make room.*Call the tool again without cursor/);
  });

  it('relays a cursor it did not issue when the upstream has its own cursor parameter, and any cursor of a tool it does not page', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    shaper.withCursorParameter({ name: 'list_pull_requests', inputSchema: { type: 'object', properties: { cursor: { type: 'string' } } } });
    expect(shaper.continuation({ cursor: 'upstream-cursor-1' }, ctx)).toBeUndefined();
    expect(shaper.continuation({ cursor: 'x' }, context())).toBeUndefined();
    expect(shaper.continuation({}, ctx)).toBeUndefined();
    expect(shaper.continuation({ cursor: null }, ctx)).toBeUndefined();
  });

  it('throws -32602 for a cursor that is not a string', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    expect(() => shaper.continuation({ cursor: 7 }, ctx)).toThrow(expect.objectContaining({ data: { rpcCode: -32602 } }) as Error);
  });
});

describe('only capTokens: offload and read_result on the real pull requests', () => {
  const ctx = context();
  const read = { sessionId: 'session-1', capTokens: 25_000 };

  it('offloads a compact preview under the cap with the handle, the full size and the shape', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const outcome = shaper.shape(beforeResult(), {}, ctx);
    expect(outcome.action).toBe('offloaded');
    expect(outcome.deliveredTokens).toBeLessThanOrEqual(4000);
    expect(outcome.deliveredTokens).toBe(toolResultCost(outcome.result).textTokens);
    expect(outcome.result.structuredContent).toBeUndefined();
    const preview = json(outcome);
    expect(Object.keys(preview)).toEqual(['handle', 'tokens', 'shape', 'items', 'next_cursor', 'note']);
    expect(preview.tokens).toBe(113_801);
    expect(preview.shape).toMatchObject({ type: 'object', keys: { pull_requests: { type: 'array', length: 30, items: 'object' } } });
    expect(preview.note).toMatch(/over the gateway's cap of 25,000.*read_result/);
    expect(preview.note).toContain('pull_requests[*].number');
  });

  it('walks the whole stored result in pages under the budget, every PR exactly once', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const preview = json(shaper.shape(beforeResult(), {}, ctx));
    const handle = preview.handle as string;
    const walked = new WalkedItems();
    walked.items.push(...(preview.items as unknown[]));
    let cursor = preview.next_cursor as string | null;
    for (let pages = 0; cursor !== null && pages < 1000; pages += 1) {
      const outcome = shaper.readResult({ handle, cursor }, read);
      expect(outcome.action).toBe('paged');
      expect(outcome.deliveredTokens).toBeLessThanOrEqual(4000);
      cursor = walked.add(text(outcome)).next_cursor;
    }
    // A PR larger than a page comes in parts of its JSON text, joined here: every PR whole.
    expect(walked.items).toEqual(pulls);
  });

  it('answers a JMESPath query with the PR numbers only, and a path with one value', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const handle = json(shaper.shape(beforeResult(), {}, ctx)).handle as string;
    const numbers = shaper.readResult({ handle, query: 'pull_requests[*].number' }, read);
    expect(JSON.parse(text(numbers))).toEqual(NUMBERS);
    expect(shaper.readResult({ handle, path: 'pull_requests[3].title' }, read).result.content).toEqual([{ type: 'text', text: JSON.stringify((pulls[3] as unknown as { title: string }).title) }]);
    expect(JSON.parse(text(shaper.readResult({ handle, path: '$.pull_requests[0].user.login' }, read)))).toBe('sbesson');
  });

  it('refuses a bad query, a missing path and a JSON pointer with what to do', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const handle = json(shaper.shape(beforeResult(), {}, ctx)).handle as string;
    expect(text(shaper.readResult({ handle, query: 'pull_requests[' }, read))).toMatch(/^INVALID_QUERY: Invalid JMESPath query .*Example/);
    expect(text(shaper.readResult({ handle, path: 'pull_requests[99]' }, read))).toMatch(/has 30 items/);
    expect(text(shaper.readResult({ handle, path: '/pull_requests/0' }, read))).toMatch(/JSON pointers are not accepted; the same place is "pull_requests\[0\]"/);
  });

  it('refuses tampered, foreign-session, expired and evicted handles, and a cursor of another path', () => {
    let time = 1_000;
    const store = createMemoryStore({ ttlMs: 3_600_000, now: () => time });
    const shaper = new ResultShaper({ store, key: KEY });
    const preview = json(shaper.shape(beforeResult(), {}, ctx));
    const handle = preview.handle as string;
    const flipped = handle.slice(0, 30) + (handle[30] === 'x' ? 'y' : 'x') + handle.slice(31);
    const refusal = (args: Record<string, unknown>, session = 'session-1'): string => {
      const outcome = shaper.readResult(args, { sessionId: session, capTokens: 25_000 });
      expect(outcome.action).toBe('refused');
      expect(outcome.result.isError).toBe(true);
      return text(outcome);
    };
    expect(refusal({ handle: flipped })).toMatch(/^INVALID_HANDLE: .*signature does not match.*call the original tool again/);
    expect(refusal({ handle }, 'session-2')).toMatch(/^FOREIGN_HANDLE: .*another session/);
    expect(refusal({ handle: preview.next_cursor })).toMatch(/^INVALID_HANDLE: Invalid handle: this is a page cursor/);
    expect(refusal({ handle, path: 'pull_requests', cursor: preview.next_cursor })).toMatch(/^FOREIGN_CURSOR: .*different call/);
    const evicting = new ResultShaper({ store: { ...store, get: () => undefined } as OffloadStore, key: KEY });
    expect(text(evicting.readResult({ handle }, read))).toMatch(/^EVICTED: .*Call the tool again/);
    time += 3_600_000;
    expect(refusal({ handle })).toMatch(/^EXPIRED: .*kept for 1 h/);
  });

  it('throws -32602 for malformed read_result calls', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    for (const args of [undefined, {}, { handle: 3 }, { handle: 'h', path: 'a', query: 'b' }, { handle: 'h', limit: 3 }]) {
      expect(() => shaper.readResult(args as Record<string, unknown>, read)).toThrow(expect.objectContaining({ data: { rpcCode: -32602 } }) as Error);
    }
  });

  it('refuses instead when offload is off, naming the tool, its size and the cap', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const outcome = shaper.shape(beforeResult(), {}, context({ offload: false }));
    expect(outcome.action).toBe('refused');
    expect(text(outcome)).toMatch(/^RESULT_TOO_LARGE: tool "list_pull_requests" would have returned 113,801 tokens, over the gateway's cap of 25,000 tokens.*Narrow the query/);
    const perTool = shaper.shape(beforeResult(), {}, context({ offload: false, rules: { maxTokens: 1000 } }));
    expect(text(perTool)).toMatch(/over this tool's maxTokens of 1,000 tokens/);
  });

  it('refuses when the result is too large for the store too', () => {
    const shaper = new ResultShaper({ store: createMemoryStore({ maxBytes: 1000 }) });
    expect(text(shaper.shape(beforeResult(), {}, ctx))).toMatch(/too large for the gateway's store as well .*1,000-byte cap/);
  });
});

describe('results no rule touches', () => {
  it('returns the same object when under the cap, errors included', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const small = { content: [{ type: 'text', text: 'hello' }], _meta: { a: 1 } };
    const outcome = shaper.shape(small, {}, context());
    expect(outcome.result).toBe(small);
    expect(outcome).toMatchObject({ action: 'passed', upstreamTokens: 1, deliveredTokens: 1 });
    const error = { content: [{ type: 'text', text: '[{"a":1}]' }], isError: true };
    expect(shaper.shape(error, {}, context({ rules: { project: ['a'], pageTokens: 100 } })).result).toBe(error);
  });

  it('says in the note why rules did not apply to a result without a list', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const plain = { content: [{ type: 'text', text: 'not json' }] };
    const outcome = shaper.shape(plain, {}, context({ rules: { project: ['a'] } }));
    expect(outcome.result).toBe(plain);
    expect(outcome.note).toMatch(/not a JSON array or object/);
    const two = { structuredContent: { a: [1], b: [2] } };
    expect(shaper.shape(two, {}, context({ rules: { pageTokens: 100 } })).note).toMatch(/2 array members \(a, b\)/);
  });

  it('offloads a 100,000-deep JSON text without crashing, and reads it back in pieces', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const outcome = shaper.shape({ content: [{ type: 'text', text: deep }] }, {}, context({ capTokens: 2000, rules: { project: ['a'] } }));
    expect(outcome.action).toBe('offloaded');
    expect(outcome.note).toMatch(/nests deeper than 512/);
    const handle = json(outcome).handle as string;
    const page = json(shaper.readResult({ handle }, { sessionId: 'session-1', capTokens: 2000 }));
    expect((page.items as string[])[0]).toBe('['.repeat(1000));
    expect(page.total_matching).toBe(200);
  });

  it('refuses a structuredContent nested past the stack with a message, not a crash', () => {
    let deep: unknown = 0;
    for (let depth = 0; depth < 100_000; depth += 1) deep = [deep];
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const outcome = shaper.shape({ content: [], structuredContent: { deep } }, {}, context());
    expect(outcome.action).toBe('refused');
    expect(text(outcome)).toMatch(/^RESULT_UNREADABLE: tool "list_pull_requests"/);
  });

  it('refuses an image over the binary cap (offload cannot page it), and passes a small one untouched', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const big = { content: [{ type: 'image', mimeType: 'image/png', data: Buffer.alloc(2 * 1024 * 1024).toString('base64') }] };
    const outcome = shaper.shape(big, {}, context());
    expect(outcome.action).toBe('refused');
    expect(text(outcome)).toMatch(/^RESULT_TOO_LARGE: tool "list_pull_requests" would have returned 2,097,152 bytes of images.*1,048,576 bytes/);
    const small = { content: [{ type: 'image', mimeType: 'image/png', data: Buffer.alloc(1024).toString('base64') }] };
    expect(shaper.shape(small, {}, context()).result).toBe(small);
  });
});
