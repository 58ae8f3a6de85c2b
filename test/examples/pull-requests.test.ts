// examples/pull-requests through real stdio: the pass-through `before` tool against the shaped
// `after` tools on the real recording of 30 GitHub pull requests. Expected values are derived
// here from the recording itself, not from examples/pull-requests/pulls.js.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { inspectResult } from '../../src/measure/index.js';
import { countTokens, sha256Hex } from '../../src/tokens/index.js';
import { type McpSession, type RawToolResult, startSession } from '../support/mcp-session.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/pull-requests/', import.meta.url));
const SERVER = join(EXAMPLE, 'server.js');
const DATA = join(EXAMPLE, 'data/pulls.json');
const FIXTURE = fileURLToPath(
  new URL('../fixtures/github-pulls-issues/pygithub/openmicroscopy_ome-documentation_pulls_state-closed.body.json', import.meta.url),
);
const RECORDING_SHA256 = '47ebf6be7241220786e95b275eaa9fd340513c2c4d859c8601945fe490dd9cab';
const RECORDING_TOKENS = 113_801;
const PAGE_TOKENS = 4000;
const EXIT_WAIT_MS = 30_000;

interface Pull {
  number: number;
  title: string;
  state: string;
  body: string | null;
  user: { login: string };
  head: { ref: string };
  base: { ref: string };
  created_at: string;
  closed_at: string | null;
  merged_at: string | null;
  html_url: string;
  [key: string]: unknown;
}

const recordingText = readFileSync(DATA, 'utf8');
const recording = JSON.parse(recordingText) as Pull[];

/** The summary the `after` tools promise, written out here from the field list. */
function summary(pull: Pull, bodyChars: number): Record<string, unknown> {
  const body = pull.body;
  return {
    number: pull.number,
    title: pull.title,
    state: pull.state,
    author: pull.user.login,
    created_at: pull.created_at,
    closed_at: pull.closed_at,
    merged_at: pull.merged_at,
    head: pull.head.ref,
    base: pull.base.ref,
    html_url: pull.html_url,
    body: body === null ? null : body.slice(0, bodyChars),
    body_truncated: body !== null && body.length > bodyChars,
  };
}

const SUMMARY_KEYS = Object.keys(summary(recording[0] as Pull, 280));
const PAGE_KEYS = ['items', 'total_matching', 'truncated', 'next_cursor', 'note'];

interface Page {
  items: Array<Record<string, unknown>>;
  total_matching: number;
  truncated: boolean;
  next_cursor: string | null;
  note: string;
  over_budget?: true;
}

const sessions = new Set<McpSession>();
const tempDirs: string[] = [];

async function open(...args: string[]): Promise<McpSession> {
  const session = await startSession([SERVER, ...args]);
  sessions.add(session);
  return session;
}

afterEach(async () => {
  await Promise.all([...sessions].map((session) => session.close()));
  sessions.clear();
});

afterAll(async () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses(5_000)).toEqual([]);
});

function onlyText(result: RawToolResult): string {
  expect(result.content).toHaveLength(1);
  const block = result.content[0];
  expect(block?.type).toBe('text');
  if (typeof block?.text !== 'string') throw new Error(`no text block: ${JSON.stringify(result).slice(0, 300)}`);
  return block.text;
}

/** Walks every page of list_pull_requests; each page's wire text and its parse. */
async function walk(session: McpSession, args: Record<string, unknown> = {}): Promise<Array<{ text: string; page: Page }>> {
  const pages: Array<{ text: string; page: Page }> = [];
  let cursor: string | null = null;
  do {
    const result = await session.call('list_pull_requests', cursor === null ? args : { ...args, cursor });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toBeUndefined();
    const text = onlyText(result);
    const page = JSON.parse(text) as Page;
    pages.push({ text, page });
    cursor = page.next_cursor;
    if (pages.length > 100) throw new Error('the walk does not end');
  } while (cursor !== null);
  return pages;
}

/** The recording with the title of its 11th pull request made 150,000 characters long. */
const LONG_INDEX = 10;
function withLongTitle(): Pull[] {
  return recording.map((pull, index) => (index === LONG_INDEX ? { ...pull, title: 'A very long title. '.repeat(8_000).slice(0, 150_000) } : pull));
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-pulls-'));
  tempDirs.push(dir);
  return dir;
}

function writeData(value: unknown): string {
  const file = join(tempDir(), 'pulls.json');
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

/** Runs the server to its exit with a bounded wait; stdin stays open, so only a refusal exits. */
async function runToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SERVER, ...args], { env: markedEnv({ PATH: process.env.PATH ?? '' }), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.on('error', () => {});
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), EXIT_WAIT_MS);
  });
  const outcome = await Promise.race([exited, timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`server did not exit within ${EXIT_WAIT_MS} ms; stderr: ${stderr}`);
  }
  // Let the pipes drain.
  await new Promise((resolve) => setImmediate(resolve));
  return { code: outcome, stdout, stderr };
}

describe('the bundled data', () => {
  it('is the recording, byte for byte: 30 closed pull requests, 113,801 tokens', () => {
    const bytes = readFileSync(DATA);
    expect(bytes.equals(readFileSync(FIXTURE))).toBe(true);
    expect(sha256Hex(bytes)).toBe(RECORDING_SHA256);
    expect(readFileSync(join(EXAMPLE, 'data/SOURCE.md'), 'utf8')).toContain(RECORDING_SHA256);
    expect(recording).toHaveLength(30);
    expect(recording.every((pull) => pull.state === 'closed')).toBe(true);
    expect(countTokens(recordingText)).toBe(RECORDING_TOKENS);
  });
});

describe('before: the pass-through list', () => {
  it('returns every field of every pull request, twice: the recording as text and again as structuredContent', async () => {
    const session = await open('before');
    const result = await session.call('list_pull_requests');
    expect(result.isError ?? false).toBe(false);
    const text = onlyText(result);
    expect(text).toBe(recordingText);
    expect(countTokens(text)).toBe(RECORDING_TOKENS);
    expect(result.structuredContent).toStrictEqual({ pull_requests: JSON.parse(text) as unknown });
    expect(countTokens(JSON.stringify(result.structuredContent))).toBeGreaterThan(RECORDING_TOKENS);
  });

  it("pages and filters as GitHub does: per_page, page, state", async () => {
    const session = await open('before');
    const second = await session.call('list_pull_requests', { per_page: 4, page: 2 });
    expect((JSON.parse(onlyText(second)) as Pull[]).map((pull) => pull.number)).toEqual(recording.slice(4, 8).map((pull) => pull.number));
    const past = await session.call('list_pull_requests', { per_page: 100, page: 2 });
    expect(onlyText(past)).toBe('[]');
    const open_ = await session.call('list_pull_requests', { state: 'open' });
    expect(onlyText(open_)).toBe('[]');
    expect(open_.structuredContent).toStrictEqual({ pull_requests: [] });
    const tooMany = await session.call('list_pull_requests', { per_page: 101 });
    expect(tooMany.isError).toBe(true);
  });

  it('with --max-result-tokens, the guard refuses the default page with a remedy naming the tool, the tokens and the cap', async () => {
    const session = await open('before', '--max-result-tokens', '25000');
    const result = await session.call('list_pull_requests');
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const message = onlyText(result);
    // What it would have sent: the text block plus the structured copy.
    const would = RECORDING_TOKENS + countTokens(JSON.stringify({ pull_requests: recording }));
    expect(message).toContain('RESULT_TOO_LARGE');
    expect(message).toContain('"list_pull_requests"');
    expect(message).toContain(`${would.toLocaleString('en-US')} tokens`);
    expect(message).toContain('25,000 tokens');
    // A small page passes the same guard unchanged.
    const small = await session.call('list_pull_requests', { per_page: 2 });
    expect(small.isError ?? false).toBe(false);
    expect(JSON.parse(onlyText(small))).toStrictEqual(recording.slice(0, 2));
  });

  it('the remedy names a per_page that fits: every page of that size passes the same guard', async () => {
    const session = await open('before', '--max-result-tokens', '25000');
    for (const refused of [{}, { per_page: 10, page: 2 }]) {
      const message = onlyText(await session.call('list_pull_requests', refused));
      const suggestion = /Ask for at most (\d+) pull requests? per page: every page of per_page \1 fits the cap of 25,000 tokens, and page (\d+) holds the first pull request of the page refused here/.exec(message);
      expect(suggestion, message).not.toBeNull();
      const perPage = Number(suggestion?.[1]);
      const page = Number(suggestion?.[2]);
      expect(perPage).toBeGreaterThanOrEqual(1);
      // The suggested page starts at or before the refused page's first pull request, and holds it.
      const first = ((refused.page ?? 1) - 1) * (refused.per_page ?? 30);
      expect((page - 1) * perPage).toBeLessThanOrEqual(first);
      expect(page * perPage).toBeGreaterThan(first);
      const pages: Pull[][] = [];
      for (let number = 1; (number - 1) * perPage < recording.length; number += 1) {
        const result = await session.call('list_pull_requests', { per_page: perPage, page: number });
        expect(result.isError ?? false, `per_page ${perPage}, page ${number}`).toBe(false);
        pages.push(JSON.parse(onlyText(result)) as Pull[]);
      }
      expect(pages.flat()).toStrictEqual(recording);
    }
  });

  it('when one pull request alone is over the cap, the remedy says to fetch them one at a time and names it', async () => {
    const session = await open('before', '--data', writeData(withLongTitle()), '--max-result-tokens', '25000');
    const message = onlyText(await session.call('list_pull_requests'));
    const long = recording[LONG_INDEX] as Pull;
    expect(message).toContain('No per_page fits the cap of 25,000 tokens: fetch the pull requests one at a time with per_page 1');
    expect(message).toContain(`Even alone, #${long.number} (page ${LONG_INDEX + 1}) is over the cap`);
    const one = await session.call('list_pull_requests', { per_page: 1, page: 1 });
    expect(one.isError ?? false).toBe(false);
  });
});

describe('after: token-budget pages of summaries', () => {
  it('walks all 30 pull requests in order, in pages of at most 4,000 tokens, at most 5% of before in total', async () => {
    const session = await open('after');
    const pages = await walk(session);
    expect(pages.length).toBeGreaterThanOrEqual(2);
    let total = 0;
    for (const [index, { text, page }] of pages.entries()) {
      const tokens = countTokens(text);
      total += tokens;
      expect(tokens).toBeLessThanOrEqual(PAGE_TOKENS);
      // The text is exactly the page: no key beyond the envelope's and the summary's.
      expect(Object.keys(page)).toEqual(PAGE_KEYS);
      for (const item of page.items) expect(Object.keys(item)).toEqual(SUMMARY_KEYS);
      expect(page.total_matching).toBe(30);
      const last = index === pages.length - 1;
      expect(page.truncated).toBe(!last);
      if (last) {
        expect(page.next_cursor).toBeNull();
        expect(page.note).toContain('This is the last page.');
      } else {
        expect(typeof page.next_cursor).toBe('string');
        expect(page.note).toContain('cursor set to next_cursor');
        expect(page.note).toContain('list_pull_requests');
      }
    }
    const items = pages.flatMap(({ page }) => page.items);
    expect(items).toStrictEqual(recording.map((pull) => summary(pull, 280)));
    expect(total).toBeLessThanOrEqual(0.05 * RECORDING_TOKENS);
  });

  it('cuts long bodies in the list and says so in band', async () => {
    const session = await open('after');
    const items = (await walk(session)).flatMap(({ page }) => page.items);
    const long = items.filter((item) => item.body_truncated === true);
    expect(long.length).toBeGreaterThan(0);
    for (const item of long) expect((item.body as string).length).toBe(280);
  });

  it('filters by state; a filter that matches nothing is one empty last page', async () => {
    const session = await open('after');
    const closed = (await walk(session, { state: 'closed' })).flatMap(({ page }) => page.items);
    expect(closed.map((item) => item.number)).toEqual(recording.map((pull) => pull.number));
    const none = await walk(session, { state: 'open' });
    expect(none).toHaveLength(1);
    expect(none[0]?.page).toStrictEqual({
      items: [],
      total_matching: 0,
      truncated: false,
      next_cursor: null,
      note: 'No records match. This is the last page.',
    });
  });

  it('a budget smaller than some records cuts them to fit, one per page, keeping the number, and the walk advances', async () => {
    const session = await open('after', '--page-tokens', '250');
    const pages = await walk(session);
    let cut = 0;
    for (const { text, page } of pages) {
      expect(countTokens(text)).toBeLessThanOrEqual(250);
      expect(page.over_budget).toBeUndefined();
      if (page.note.includes('sent cut to fit')) {
        cut += 1;
        expect(page.items).toHaveLength(1);
        expect(page.items[0]?._truncated).toEqual(expect.arrayContaining([expect.any(String)]));
        expect(page.note).toContain(`call get_pull_request {"number":${String(page.items[0]?.number)},"field":`);
      }
    }
    expect(cut).toBeGreaterThan(0);
    expect(pages.flatMap(({ page }) => page.items.map((item) => item.number))).toEqual(recording.map((pull) => pull.number));
  });

  it('a budget under the envelope itself sends each record cut to its number, flagged over_budget with the page\'s real size', async () => {
    const session = await open('after', '--page-tokens', '100');
    const pages = await walk(session);
    expect(pages).toHaveLength(30);
    for (const { text, page } of pages) {
      expect(page.over_budget).toBe(true);
      expect(page.note).toContain(`this page is ${countTokens(text)} tokens`);
      expect(Object.keys(page.items[0] ?? {})).toEqual(['number', '_truncated']);
    }
    expect(pages.map(({ page }) => page.items[0]?.number)).toEqual(recording.map((pull) => pull.number));
  });

  it('a 150,000-character title: the walk reaches all 30 within the cap, and the pointer reads that title in parts', async () => {
    const long = withLongTitle();
    const target = long[LONG_INDEX] as Pull;
    const session = await open('after', '--data', writeData(long));
    const pages = await walk(session);
    for (const { text } of pages) expect(countTokens(text)).toBeLessThanOrEqual(PAGE_TOKENS);
    const items = pages.flatMap(({ page }) => page.items);
    expect(items.map((item) => item.number)).toEqual(long.map((pull) => pull.number));
    const cutPage = pages.find(({ page }) => page.items.some((item) => item._truncated !== undefined));
    expect(cutPage?.page.items).toHaveLength(1);
    const cut = cutPage?.page.items[0] ?? {};
    expect(cut).toMatchObject({ number: target.number, author: target.user.login, _truncated: ['title'] });
    expect(target.title.startsWith(cut.title as string)).toBe(true);

    // Follow the pointer exactly as the note gives it.
    const pointer = /call get_pull_request (\{[^}]*\}), then again with offset set to next_offset until next_offset is null/.exec(cutPage?.page.note ?? '');
    expect(pointer, cutPage?.page.note).not.toBeNull();
    let args = JSON.parse(pointer?.[1] ?? '{}') as Record<string, unknown>;
    expect(args).toEqual({ number: target.number, field: 'title', offset: 0 });
    let title = '';
    for (let calls = 0; calls < 100; calls += 1) {
      const result = await session.call('get_pull_request', args);
      expect(result.isError ?? false).toBe(false);
      const text = onlyText(result);
      expect(countTokens(text)).toBeLessThanOrEqual(25_000);
      const part = JSON.parse(text) as { number: number; field: string; offset: number; text: string; next_offset: number | null; total_chars: number };
      expect(part).toMatchObject({ number: target.number, field: 'title', offset: title.length, total_chars: target.title.length });
      expect(part.text.length).toBeLessThanOrEqual(4000);
      title += part.text;
      if (part.next_offset === null) break;
      args = { ...args, offset: part.next_offset };
    }
    expect(title).toBe(target.title);
    // The whole summary of that pull request is over the cap: refused, with the way to read it in parts.
    const whole = await session.call('get_pull_request', { number: target.number });
    expect(whole.isError).toBe(true);
    expect(onlyText(whole)).toContain('read a long field in parts with field, offset and length');
  });

  it('get_pull_request reads any summary text field in bounded parts, and refuses an offset past its end', async () => {
    const session = await open('after');
    const target = recording.find((pull) => pull.number === 233) as Pull;
    const body = target.body ?? '';
    const part = JSON.parse(onlyText(await session.call('get_pull_request', { number: 233, field: 'body', offset: 100, length: 50 }))) as Record<string, unknown>;
    expect(part).toStrictEqual({ number: 233, field: 'body', offset: 100, text: body.slice(100, 150), next_offset: 150, total_chars: body.length });
    const end = JSON.parse(onlyText(await session.call('get_pull_request', { number: 233, field: 'author', offset: 0 }))) as Record<string, unknown>;
    expect(end).toStrictEqual({ number: 233, field: 'author', offset: 0, text: target.user.login, next_offset: null, total_chars: target.user.login.length });
    const past = await session.call('get_pull_request', { number: 233, field: 'body', offset: body.length + 1 });
    expect(past.isError).toBe(true);
    expect(onlyText(past)).toMatch(/^OUT_OF_RANGE: offset \d+ is past the end of body of #233/);
    expect((await session.call('get_pull_request', { number: 233, field: 'body', length: 4001 })).isError).toBe(true);
    expect((await session.call('get_pull_request', { number: 233, field: 'number' })).isError).toBe(true);
  });

  it('rejects a tampered cursor, a cursor of another state, garbage and a cursor of another process, each with its own remedy', async () => {
    const session = await open('after');
    const first = JSON.parse(onlyText(await session.call('list_pull_requests'))) as Page;
    const cursor = first.next_cursor;
    if (cursor === null) throw new Error('expected a second page');

    const middle = Math.floor(cursor.length / 2);
    const tampered = cursor.slice(0, middle) + (cursor[middle] === 'A' ? 'B' : 'A') + cursor.slice(middle + 1);
    const attempts = {
      tampered: await session.call('list_pull_requests', { cursor: tampered }),
      foreign: await session.call('list_pull_requests', { state: 'closed', cursor }),
      garbage: await session.call('list_pull_requests', { cursor: 'not-a-cursor' }),
    };
    const messages = Object.fromEntries(
      Object.entries(attempts).map(([name, result]) => {
        expect(result.isError, name).toBe(true);
        return [name, onlyText(result)];
      }),
    );
    expect(messages.tampered).toMatch(/^INVALID_CURSOR: .*signature/);
    expect(messages.foreign).toMatch(/^FOREIGN_CURSOR: /);
    expect(messages.garbage).toMatch(/^INVALID_CURSOR: .*not a cursor this server issues/);
    for (const message of Object.values(messages)) expect(message).toMatch(/omit cursor|without a cursor|Repeat the exact arguments/);
    expect(new Set(Object.values(messages)).size).toBe(3);

    // The same cursor still works where it belongs.
    const second = JSON.parse(onlyText(await session.call('list_pull_requests', { cursor }))) as Page;
    expect(second.items[0]?.number).toBe(recording[first.items.length]?.number);

    // Each process has its own key: a restarted server does not honour old cursors.
    const other = await open('after');
    const restarted = await other.call('list_pull_requests', { cursor });
    expect(restarted.isError).toBe(true);
    expect(onlyText(restarted)).toMatch(/^INVALID_CURSOR: .*signature/);
  });

  it('get_pull_request returns one summary with the body up to body_max_chars, 4000 by default', async () => {
    const session = await open('after');
    const target = recording.find((pull) => pull.number === 233) as Pull;
    expect(target.body?.length).toBeGreaterThan(1000);
    const whole = await session.call('get_pull_request', { number: 233 });
    expect(whole.isError ?? false).toBe(false);
    expect(whole.structuredContent).toBeUndefined();
    expect(JSON.parse(onlyText(whole))).toStrictEqual(summary(target, 4000));
    expect(JSON.parse(onlyText(whole))).toMatchObject({ body: target.body, body_truncated: false });

    const cut = await session.call('get_pull_request', { number: 233, body_max_chars: 100 });
    expect(JSON.parse(onlyText(cut))).toStrictEqual(summary(target, 100));
    expect(JSON.parse(onlyText(cut))).toMatchObject({ body_truncated: true });

    const empty = await session.call('get_pull_request', { number: 225 });
    expect(JSON.parse(onlyText(empty))).toMatchObject({ number: 225, body: '', body_truncated: false });

    const tooLong = await session.call('get_pull_request', { number: 233, body_max_chars: 4001 });
    expect(tooLong.isError).toBe(true);
  });

  it('get_pull_request caps a body longer than 4000 characters (own data through --data)', async () => {
    const long = { ...(recording[0] as Pull), number: 1, body: `${'x'.repeat(4500)}` };
    const file = writeData([long, ...recording.slice(1)]);
    const session = await open('after', '--data', file);
    const result = JSON.parse(onlyText(await session.call('get_pull_request', { number: 1 }))) as Record<string, unknown>;
    expect(result).toStrictEqual(summary(long, 4000));
    expect((result.body as string).length).toBe(4000);
    expect(result.body_truncated).toBe(true);
  });

  it('serves a minimal export (only the fields the rules require), the other summary fields as null', async () => {
    const minimal = { number: 7, title: 'Fix it', state: 'open', body: null, user: { login: 'ada' }, head: { ref: 'fix' }, base: { ref: 'main' }, created_at: '2026-01-02T03:04:05Z' };
    const session = await open('after', '--data', writeData([minimal]));
    const [only] = await walk(session);
    expect(only?.page.items).toStrictEqual([
      {
        number: 7,
        title: 'Fix it',
        state: 'open',
        author: 'ada',
        created_at: '2026-01-02T03:04:05Z',
        closed_at: null,
        merged_at: null,
        head: 'fix',
        base: 'main',
        html_url: null,
        body: null,
        body_truncated: false,
      },
    ]);
  });

  it('the guard also wraps the after tools: a result over --max-result-tokens is refused with a remedy', async () => {
    const session = await open('after', '--page-tokens', '400', '--max-result-tokens', '500');
    const big = await session.call('get_pull_request', { number: 233 });
    expect(big.isError).toBe(true);
    const message = onlyText(big);
    expect(message).toMatch(/^RESULT_TOO_LARGE: tool "get_pull_request" would have returned [\d,]+ tokens, over this server's cap of 500 tokens/);
    expect(message).toContain('body_max_chars');
    const small = await session.call('get_pull_request', { number: 233, body_max_chars: 200 });
    expect(small.isError ?? false).toBe(false);
  });

  it('get_pull_request of an unknown number is an error that says which numbers exist and what to call', async () => {
    const session = await open('after');
    const result = await session.call('get_pull_request', { number: 227 });
    expect(result.isError).toBe(true);
    const message = onlyText(result);
    expect(message).toContain('#227');
    expect(message).toContain('#203 to #234');
    expect(message).toContain('#226 and #228');
    expect(message).toContain('list_pull_requests');
  });
});

describe('a data file that breaks a rule is refused at start', () => {
  const base = recording.slice(0, 3);
  const cases: Array<{ name: string; data: unknown; expected: string[] }> = [
    {
      name: 'a duplicate number',
      data: [base[0], base[1], { ...base[2], number: base[0]?.number }],
      expected: [`record 2 (number ${base[0]?.number})`, `"number" ${base[0]?.number} repeats record 0`, 'unique'],
    },
    {
      name: 'a missing title',
      data: [base[0], { ...base[1], title: undefined }],
      expected: [`record 1 (number ${base[1]?.number})`, '"title" must be a string', 'missing'],
    },
    {
      name: 'a state GitHub does not have',
      data: [{ ...base[0], state: 'merged' }],
      expected: [`record 0 (number ${base[0]?.number})`, '"state" must be "open" or "closed"', '"merged"'],
    },
    {
      name: 'a number that is not a positive integer',
      data: [base[0], { ...base[1], number: '232' }],
      expected: ['record 1:', '"number" must be a positive integer', '"232"'],
    },
    {
      name: 'a user without a login',
      data: [{ ...base[0], user: null }],
      expected: [`record 0 (number ${base[0]?.number})`, '"user.login" must be a string'],
    },
    {
      name: 'a body that is neither a string nor null',
      data: [{ ...base[0], body: 12 }],
      expected: [`record 0 (number ${base[0]?.number})`, '"body" must be a string or null'],
    },
    { name: 'not an array', data: { pulls: base }, expected: ['must hold a JSON array of pull requests'] },
    { name: 'not JSON', data: '[{"number": 1,', expected: ['not valid UTF-8 JSON'] },
  ];

  // No sessions here, so these can run side by side.
  for (const { name, data, expected } of cases) {
    it.concurrent(name, async ({ expect }) => {
      const file = writeData(data);
      const { code, stdout, stderr } = await runToExit(['after', '--data', file]);
      expect(code).toBe(1);
      expect(stdout).toBe(''); // no MCP session
      expect(stderr).toContain(file);
      for (const part of expected) expect(stderr).toContain(part);
    });
  }

  it.concurrent('usage errors exit 2 with the usage', async ({ expect }) => {
    const { code, stderr } = await runToExit(['sideways']);
    expect(code).toBe(2);
    expect(stderr).toContain('usage: node server.js before|after');
  });
});

describe('inspect-result on the before server', () => {
  it('ranks head and base first, marks them as copies, finds the structured duplicate, and suggests under 5%', async () => {
    const inspection = await inspectResult({
      launch: { command: process.execPath, args: [SERVER, 'before'], env: markedEnv() },
      tool: 'list_pull_requests',
    });
    expect(inspection.isError).toBe(false);
    expect(inspection.content).toMatchObject({ textTokens: RECORDING_TOKENS, structuredDuplicatesText: true });
    const topLevel = inspection.fields.filter((field) => !field.path.includes('.'));
    expect(topLevel.slice(0, 2).map((field) => [field.path, field.copy])).toEqual([
      ['head', true],
      ['base', true],
    ]);
    expect(inspection.suggestion.tokens ?? Infinity).toBeLessThan(0.05 * RECORDING_TOKENS);
    expect(inspection.suggestion.fields.map((field) => field.name)).toEqual(expect.arrayContaining(['number', 'id', 'head', 'base', 'user']));
    expect(await waitForNoMarkedProcesses()).toEqual([]);
  });
});
