// examples/records-server over real stdio: catalogs per mode, paging with bound cursors, the
// result cache, counts with an audit trail, exact lookups, every refusal by its own message,
// files changed mid-session, and data refused at start.
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { resultJson, startSession, type McpSession, type RawToolResult } from '../support/mcp-session.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

type FlatRecord = Record<string, string>;

const EXAMPLE_DIR = fileURLToPath(new URL('../../examples/records-server/', import.meta.url));
const SERVER = join(EXAMPLE_DIR, 'server.js');
const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/records/', import.meta.url));
const FIXTURE_SNAPSHOT = join(FIXTURE_DIR, 'snapshot.json');
const FIXTURE_FIELDS = join(FIXTURE_DIR, 'fields.json');
const RECORDS = JSON.parse(readFileSync(FIXTURE_SNAPSHOT, 'utf8')) as FlatRecord[];
const ALLOWED = JSON.parse(readFileSync(FIXTURE_FIELDS, 'utf8')) as string[];
const EXIT_WAIT_MS = 15_000;

/** Fixture ids are digits: numeric order, computed here without the library's compareIds. */
function idOrder(ids: readonly string[]): string[] {
  return [...ids].sort((a, b) => Number(a) - Number(b));
}

function idsWhere(field: string, value: string, records: readonly FlatRecord[] = RECORDS): string[] {
  return idOrder(records.filter((record) => record[field] === value).map((record) => record.id as string));
}

function pick(record: FlatRecord, fields: readonly string[]): FlatRecord {
  return Object.fromEntries(fields.map((name) => [name, record[name] as string]));
}

const sessions: McpSession[] = [];
const tempDirs: string[] = [];

async function open(env: Record<string, string> = {}): Promise<McpSession> {
  const session = await startSession([SERVER], { MODE: 'optimized', SNAPSHOT_PATH: FIXTURE_SNAPSHOT, FIELDS_PATH: FIXTURE_FIELDS, ...env });
  sessions.push(session);
  return session;
}

/** A fresh copy of the fixture files for a test that edits them. */
function copyFixture(): { dir: string; snapshot: string; fields: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-records-'));
  tempDirs.push(dir);
  const snapshot = join(dir, 'snapshot.json');
  const fields = join(dir, 'fields.json');
  copyFileSync(FIXTURE_SNAPSHOT, snapshot);
  copyFileSync(FIXTURE_FIELDS, fields);
  return { dir, snapshot, fields };
}

function ok(result: RawToolResult): Record<string, unknown> {
  expect(result.isError, JSON.stringify(result)).not.toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return resultJson(result) as Record<string, unknown>;
}

function refusal(result: RawToolResult): string {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(result.content).toHaveLength(1);
  return result.content[0]?.text ?? '';
}

/** The envelope both pagers of mcpctx/shape send, plus the cache status. */
const ENVELOPE = ['items', 'total_matching', 'truncated', 'next_cursor', 'note'];

interface Page {
  items: FlatRecord[];
  total_matching: number;
  truncated: boolean;
  next_cursor: string | null;
  note: string;
  cache: string;
}

interface CountPage {
  count: number;
  definition: string;
  items: string[];
  total_matching: number;
  truncated: boolean;
  next_cursor: string | null;
  note: string;
  cache: string;
}

/** One character changed in the middle, where every bit is payload or signature. */
function tamper(cursor: string): string {
  const at = Math.floor(cursor.length / 2);
  return `${cursor.slice(0, at)}${cursor[at] === 'A' ? 'B' : 'A'}${cursor.slice(at + 1)}`;
}

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

afterAll(async () => {
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

describe('records-server catalog', () => {
  it('offers list_records and exact_record in baseline mode, and list_records sends every allowed field of every record', async () => {
    const session = await open({ MODE: 'baseline' });
    expect((await session.listTools()).map((tool) => tool.name).sort()).toEqual(['exact_record', 'list_records']);
    const result = await session.call('list_records');
    expect(result.isError).not.toBe(true);
    const value = resultJson(result) as { records: FlatRecord[] };
    // The naive shape: file order, no paging, the same JSON again in structuredContent.
    expect(value.records).toEqual(RECORDS.map((record) => pick(record, ALLOWED)));
    expect(result.structuredContent).toEqual(value);
  });

  it('offers find_records, count_by_field and exact_record in optimized mode', async () => {
    const session = await open({ MODE: 'optimized' });
    expect((await session.listTools()).map((tool) => tool.name).sort()).toEqual(['count_by_field', 'exact_record', 'find_records']);
  });

  it('starts on the bundled PyGithub snapshot when no paths are given', async () => {
    const bundled = JSON.parse(readFileSync(join(EXAMPLE_DIR, 'data', 'snapshot.json'), 'utf8')) as FlatRecord[];
    const session = await startSession([SERVER], {});
    sessions.push(session);
    expect((await session.listTools()).map((tool) => tool.name).sort()).toEqual(['count_by_field', 'exact_record', 'find_records']);
    const count = ok(await session.call('count_by_field', { field: 'is_pull_request', value: 'true' })) as unknown as CountPage;
    expect(count.count).toBe(bundled.filter((record) => record.is_pull_request === 'true').length);
    expect(count.definition).toContain(`over all ${bundled.length} records`);
    const body = refusal(await session.call('find_records', { field: 'body', value: '' }));
    expect(body).toMatch(/^FIELD_NOT_ALLOWED: /);
  });

  it('ships a snapshot that build-snapshot.mjs derives from the recorded issues', async () => {
    const script = join(EXAMPLE_DIR, 'data', 'build-snapshot.mjs');
    const outcome = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [script, '--check'], { env: markedEnv(), timeout: EXIT_WAIT_MS }, (error, _stdout, stderr) =>
        resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? null), stderr }),
      );
    });
    expect(outcome).toEqual({ code: 0, stderr: '' });
  });
});

describe('records-server README', () => {
  it('quotes exactly the token figures measure.mjs derives', async () => {
    const readme = readFileSync(join(EXAMPLE_DIR, 'README.md'), 'utf8');
    const quoted = /<!-- measure\.mjs:start -->\n([\s\S]*?)<!-- measure\.mjs:end -->/.exec(readme)?.[1];
    expect(quoted).toBeDefined();
    const outcome = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(EXAMPLE_DIR, 'measure.mjs')],
        { env: markedEnv({ PATH: process.env.PATH ?? '' }), timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? null), stdout, stderr }),
      );
    });
    expect(outcome).toEqual({ code: 0, stdout: quoted, stderr: '' });
  });
});

describe('find_records', () => {
  it('pages 6 matches as 5 + 1 in id order, in the envelope of mcpctx/shape (items, total_matching, truncated, next_cursor, note), and no id twice', async () => {
    const session = await open();
    const expected = idsWhere('state', 'open');
    expect(expected).toHaveLength(6);

    const first = ok(await session.call('find_records', { field: 'state', value: 'open' })) as unknown as Page;
    expect(Object.keys(first)).toEqual([...ENVELOPE, 'cache']);
    expect(first.total_matching).toBe(6);
    expect(first.items).toHaveLength(5);
    expect(first.truncated).toBe(true);
    expect(typeof first.next_cursor).toBe('string');
    expect(first.cache).toBe('miss');
    // Default fields: a small set that keeps id and revision; body (not allowed) never appears.
    for (const record of first.items) {
      expect(Object.keys(record)).toEqual(['id', 'revision', 'title', 'state']);
      expect(record).toEqual(pick(RECORDS.find((r) => r.id === record.id) as FlatRecord, ['id', 'revision', 'title', 'state']));
    }

    const second = ok(
      await session.call('find_records', { field: 'state', value: 'open', cursor: first.next_cursor }),
    ) as unknown as Page;
    expect(second.total_matching).toBe(6);
    expect(second.items).toHaveLength(1);
    expect(second.truncated).toBe(false);
    expect(second.next_cursor).toBeNull();

    const ids = [...first.items, ...second.items].map((record) => record.id);
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('returns the chosen allowed fields, always with id and revision', async () => {
    const session = await open();
    const page = ok(await session.call('find_records', { field: 'author', value: 'alice', fields: ['comments', 'author'] })) as unknown as Page;
    expect(page.total_matching).toBe(idsWhere('author', 'alice').length);
    expect(page.items.map((record) => record.id)).toEqual(idsWhere('author', 'alice'));
    for (const record of page.items) expect(Object.keys(record)).toEqual(['id', 'revision', 'author', 'comments']);
  });

  it('answers a repeated query from the cache: miss, then hit with the same page', async () => {
    const session = await open();
    const args = { field: 'state', value: 'open' };
    const first = ok(await session.call('find_records', args)) as unknown as Page;
    const again = ok(await session.call('find_records', args)) as unknown as Page;
    expect(first.cache).toBe('miss');
    expect(again.cache).toBe('hit');
    expect({ ...again, cache: 'miss' }).toEqual(first);
    const next = ok(await session.call('find_records', { ...args, cursor: first.next_cursor })) as unknown as Page;
    expect(next.cache).toBe('miss');
  });
});

describe('count_by_field', () => {
  it('counts exactly what the fixture holds, says what it counted, and pages the ids 5 + 1', async () => {
    const session = await open();
    const expected = idsWhere('state', 'open');
    const first = ok(await session.call('count_by_field', { field: 'state', value: 'open' })) as unknown as CountPage;
    expect(first.count).toBe(RECORDS.filter((record) => record.state === 'open').length);
    expect(first.count).toBe(6);
    expect(first.definition).toMatch(/"state" equals "open" exactly \(case-sensitive, whole value\)/);
    expect(first.definition).toContain(`over all ${RECORDS.length} records of snapshot revision `);
    expect(Object.keys(first)).toEqual(['count', 'definition', ...ENVELOPE, 'cache']);
    expect(first.total_matching).toBe(6);
    expect(first.items).toHaveLength(5);
    expect(first.truncated).toBe(true);
    expect(first.cache).toBe('miss');

    const second = ok(
      await session.call('count_by_field', { field: 'state', value: 'open', cursor: first.next_cursor }),
    ) as unknown as CountPage;
    expect(second.count).toBe(6);
    expect(second.items).toHaveLength(1);
    expect(second.truncated).toBe(false);
    expect(second.next_cursor).toBeNull();
    expect([...first.items, ...second.items]).toEqual(expected);

    const again = ok(await session.call('count_by_field', { field: 'state', value: 'open' })) as unknown as CountPage;
    expect(again.cache).toBe('hit');
  });

  it('matches case-sensitively and whole values only', async () => {
    const session = await open();
    const alice = ok(await session.call('count_by_field', { field: 'author', value: 'alice' })) as unknown as CountPage;
    expect(alice.count).toBe(RECORDS.filter((record) => record.author === 'alice').length);
    const capital = ok(await session.call('count_by_field', { field: 'author', value: 'Alice' })) as unknown as CountPage;
    expect(capital.items).toEqual(idsWhere('author', 'Alice'));
    const part = ok(await session.call('count_by_field', { field: 'labels', value: 'bug' })) as unknown as CountPage;
    expect(part.items).toEqual(idsWhere('labels', 'bug')); // not the record labelled "bug,docs"
  });
});

describe('exact_record', () => {
  it('returns a found record with its allowed fields, or the chosen ones', async () => {
    const session = await open();
    const record = RECORDS.find((r) => r.id === '8') as FlatRecord;
    const found = ok(await session.call('exact_record', { id: '8' }));
    expect(found.record).toEqual(pick(record, ALLOWED));
    expect(found.cache).toBe('miss');
    const narrow = ok(await session.call('exact_record', { id: '8', fields: ['title'] }));
    expect(narrow.record).toEqual(pick(record, ['id', 'revision', 'title']));
  });

  it('answers an unknown id with record: null and a note saying how to find ids (not an error)', async () => {
    const session = await open();
    const missing = ok(await session.call('exact_record', { id: '99' }));
    expect(missing.record).toBeNull();
    expect(missing.note).toContain('No record has id "99"');
    expect(missing.note).toMatch(/find_records or count_by_field/);
    expect(ok(await session.call('exact_record', { id: '08' })).record).toBeNull(); // no padding
  });
});

describe('refusals', () => {
  it('rejects an unknown field, a field outside the allowlist and bad cursors, each with its own message and remedy', async () => {
    const files = copyFixture();
    const session = await open({ SNAPSHOT_PATH: files.snapshot, FIELDS_PATH: files.fields });
    const first = ok(await session.call('find_records', { field: 'state', value: 'open' })) as unknown as Page;
    const cursor = first.next_cursor as string;
    const allowedList = `Allowed fields: ${ALLOWED.join(', ')}.`;

    const unknown = refusal(await session.call('find_records', { field: 'colour', value: 'red' }));
    expect(unknown).toMatch(/^UNKNOWN_FIELD: Unknown field "colour"/);
    expect(unknown).toContain(allowedList);
    const unknownInFields = refusal(await session.call('exact_record', { id: '2', fields: ['Title'] }));
    expect(unknownInFields).toMatch(/^UNKNOWN_FIELD: Unknown field "Title"/);

    const notAllowed = refusal(await session.call('count_by_field', { field: 'body', value: '' }));
    expect(notAllowed).toMatch(/^FIELD_NOT_ALLOWED: Field "body" exists in the records but is not in this server's field allowlist/);
    expect(notAllowed).toContain(allowedList);

    const malformed = refusal(await session.call('find_records', { field: 'state', value: 'open', cursor: 'page-2' }));
    expect(malformed).toMatch(/^INVALID_CURSOR: Invalid cursor: it is not a cursor this server issues/);

    const tampered = refusal(await session.call('find_records', { field: 'state', value: 'open', cursor: tamper(cursor) }));
    expect(tampered).toMatch(/^INVALID_CURSOR: Invalid cursor: its signature does not match/);

    const foreign = refusal(await session.call('find_records', { field: 'author', value: 'bob', cursor }));
    expect(foreign).toMatch(/^FOREIGN_CURSOR: /);
    expect(refusal(await session.call('find_records', { field: 'state', value: 'open', fields: ['author'], cursor }))).toBe(foreign);
    expect(refusal(await session.call('count_by_field', { field: 'state', value: 'open', cursor }))).toBe(foreign);

    // Change the snapshot: the next call fails, then the old cursor is stale.
    const edited = RECORDS.map((record) => (record.id === '12' ? { ...record, title: 'Move CI to the newer runners' } : record));
    writeFileSync(files.snapshot, JSON.stringify(edited));
    const changed = refusal(await session.call('find_records', { field: 'state', value: 'open' }));
    expect(changed).toMatch(/^SOURCE_CHANGED: The data changed during this session/);
    const stale = refusal(await session.call('find_records', { field: 'state', value: 'open', cursor }));
    expect(stale).toMatch(/^STALE_CURSOR: Stale cursor: the data changed since it was issued/);

    const messages = { unknown, notAllowed, malformed, tampered, foreign, changed, stale };
    expect(new Set(Object.values(messages)).size).toBe(Object.keys(messages).length);
    // Each says what to do next.
    expect(unknown).toMatch(/Pass only those in "field"\.$/);
    expect(notAllowed).toMatch(/Pass only those in "field"\.$/);
    expect(malformed).toMatch(/Pass next_cursor exactly as the previous page returned it, or omit cursor/);
    expect(tampered).toMatch(/Pass next_cursor exactly as the previous page returned it, or omit cursor/);
    expect(foreign).toMatch(/Repeat the exact arguments of the call that returned it, or omit cursor/);
    expect(changed).toMatch(/repeat the query without a cursor/);
    expect(stale).toMatch(/Repeat the query without a cursor/);
  });

  it('refuses a result over the token cap instead of cutting it, and says what to ask for instead', async () => {
    const files = copyFixture();
    // Long titles (within the 10,000-character field limit) on the open records.
    const long = Array.from({ length: 1200 }, (_, index) => `word${index}`).join(' ').slice(0, 9_000);
    writeFileSync(files.snapshot, JSON.stringify(RECORDS.map((record) => (record.state === 'open' ? { ...record, title: long } : record))));
    const session = await open({ SNAPSHOT_PATH: files.snapshot, FIELDS_PATH: files.fields });
    const tooLarge = refusal(await session.call('find_records', { field: 'state', value: 'open' }));
    expect(tooLarge).toMatch(/^RESULT_TOO_LARGE: tool "find_records" would have returned [\d,]+ tokens, over this server's cap of 4,000 tokens/);
    expect(tooLarge).toContain('Ask for fewer fields with "fields"');
    const narrow = ok(await session.call('find_records', { field: 'state', value: 'open', fields: ['author'] })) as unknown as Page;
    expect(narrow.items.map((record) => record.id)).toEqual(idsWhere('state', 'open').slice(0, 5));
  });
});

describe('files changed mid-session', () => {
  it('fails the next call with SOURCE_CHANGED after a snapshot edit, then serves the new data; old cursors are stale', async () => {
    const files = copyFixture();
    const session = await open({ SNAPSHOT_PATH: files.snapshot, FIELDS_PATH: files.fields });
    const before = ok(await session.call('find_records', { field: 'state', value: 'open' })) as unknown as Page;
    expect(before.total_matching).toBe(6);

    const added: FlatRecord = { id: '13', revision: '2025-03-13T09:00:00Z', title: 'Added mid-session', state: 'open', author: 'dave', labels: '', comments: '0', body: '' };
    const next = [...RECORDS, added];
    writeFileSync(files.snapshot, JSON.stringify(next, null, 2));

    const changed = refusal(await session.call('exact_record', { id: '13' }));
    expect(changed).toMatch(/^SOURCE_CHANGED: .*repeat the query without a cursor\.$/);

    const after = ok(await session.call('find_records', { field: 'state', value: 'open' })) as unknown as Page;
    expect(after.cache).toBe('miss'); // the cache was emptied, not served from the old revision
    expect(after.total_matching).toBe(7);
    expect(ok(await session.call('count_by_field', { field: 'state', value: 'open' })).count).toBe(idsWhere('state', 'open', next).length);
    expect(ok(await session.call('exact_record', { id: '13' })).record).toEqual(pick(added, ALLOWED));

    const stale = refusal(await session.call('find_records', { field: 'state', value: 'open', cursor: before.next_cursor }));
    expect(stale).toMatch(/^STALE_CURSOR: /);
    // The new cursor works: ids 1-5 then 6-7 of the new data.
    const second = ok(await session.call('find_records', { field: 'state', value: 'open', cursor: after.next_cursor })) as unknown as Page;
    expect([...after.items, ...second.items].map((record) => record.id)).toEqual(idsWhere('state', 'open', next));
  });

  it('fails the next call with SOURCE_CHANGED after an allowlist edit, then applies the new allowlist', async () => {
    const files = copyFixture();
    const session = await open({ SNAPSHOT_PATH: files.snapshot, FIELDS_PATH: files.fields });
    const before = ok(await session.call('find_records', { field: 'state', value: 'open' })) as unknown as Page;
    expect(Object.keys(before.items[0] ?? {})).toEqual(['id', 'revision', 'title', 'state']);

    writeFileSync(files.fields, JSON.stringify(ALLOWED.filter((name) => name !== 'title')));
    expect(refusal(await session.call('find_records', { field: 'state', value: 'open' }))).toMatch(/^SOURCE_CHANGED: /);

    const refused = refusal(await session.call('find_records', { field: 'state', value: 'open', fields: ['title'] }));
    expect(refused).toMatch(/^FIELD_NOT_ALLOWED: Field "title"/);
    const after = ok(await session.call('find_records', { field: 'state', value: 'open' })) as unknown as Page;
    expect(Object.keys(after.items[0] ?? {})).toEqual(['id', 'revision', 'state']);
    // The same arguments as before: the cursor is stale (new revision), not foreign.
    expect(refusal(await session.call('find_records', { field: 'state', value: 'open', cursor: before.next_cursor }))).toMatch(/^STALE_CURSOR: /);
  });
});

describe('refused at start', () => {
  interface StartCase {
    name: string;
    env?: Record<string, string>;
    records?: (records: FlatRecord[]) => unknown[];
    fields?: unknown;
    stderr: RegExp;
  }

  const cases: StartCase[] = [
    {
      name: 'a duplicate id',
      records: (records) => records.map((record, index) => (index === 3 ? { ...record, id: records[0]?.id } : record)),
      stderr: /INVALID_RECORDS: .*snapshot\.json: record 3 \(id "7"\): "id" repeats an earlier record; ids must be unique\./,
    },
    {
      name: 'a value that is not a string',
      records: (records) => records.map((record, index) => (index === 2 ? { ...record, comments: 0 } : record)),
      stderr: /record 2 \(id "11"\): field "comments" is not a string/,
    },
    {
      name: 'a field name that is not like an identifier',
      records: (records) => records.map((record, index) => (index === 4 ? { ...record, 'due-date': '2025-04-01' } : record)),
      stderr: /record 4 \(id "1"\): field name "due-date" is not like an identifier/,
    },
    {
      name: 'an allowlist without revision',
      fields: ALLOWED.filter((name) => name !== 'revision'),
      stderr: /fields\.json: the allowlist must include "revision"\./,
    },
    {
      name: 'an allowlist naming a field the snapshot does not have',
      fields: [...ALLOWED, 'colour'],
      stderr: /fields\.json: the allowlist names fields the snapshot does not have: "colour"\./,
    },
    { name: 'an unknown MODE', env: { MODE: 'fast' }, stderr: /MODE must be "baseline" or "optimized", got "fast"/ },
  ];

  it.each(cases)('refuses $name: message on stderr, exit code 1, no session', async (startCase) => {
    const files = copyFixture();
    if (startCase.records !== undefined) writeFileSync(files.snapshot, JSON.stringify(startCase.records(RECORDS.map((record) => ({ ...record })))));
    if (startCase.fields !== undefined) writeFileSync(files.fields, JSON.stringify(startCase.fields));
    const child = spawn(process.execPath, [SERVER], {
      env: markedEnv({ PATH: process.env.PATH ?? '', MODE: 'optimized', SNAPSHOT_PATH: files.snapshot, FIELDS_PATH: files.fields, ...startCase.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.on('error', () => {}); // EPIPE if it is already gone
    const exit = await new Promise<number | string | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('timeout');
      }, EXIT_WAIT_MS);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    expect({ exit, stdout }).toEqual({ exit: 1, stdout: '' });
    expect(stderr).toMatch(/^records-server: refused to start: /);
    expect(stderr).toMatch(startCase.stderr);
  });
});
