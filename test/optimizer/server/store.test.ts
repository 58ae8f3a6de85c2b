// The RecordStore contract, run against both stores; then what only the SQLite store promises:
// records survive reopening, and a file that is not a store is refused untouched.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpctxError } from '../../../src/errors/index.js';
import { SqliteRecordStore } from '../../../src/optimizer/server/index.js';
import { STORE_APPLICATION_ID, STORE_SCHEMA_VERSION } from '../../../src/optimizer/server/_sqlite-store.js';
import { MemoryRecordStore, type RecordStore } from '../../../src/optimizer/index.js';
import type { SessionRecords } from '../../../src/optimizer/_types.js';

const tempDir = mkdtempSync(join(tmpdir(), 'mcpctx-store-'));
let fileCount = 0;
const opened: RecordStore[] = [];

function freshFile(): string {
  fileCount += 1;
  return join(tempDir, `nested-${fileCount}`, 'session.db');
}

afterEach(() => {
  for (const store of opened.splice(0)) store.close();
});

afterAll(() => {
  rmSync(tempDir, { recursive: true, force: true });
});

function refusal(work: () => unknown): McpctxError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(McpctxError);
    return error as McpctxError;
  }
  throw new Error('expected a refusal');
}

const FIRST_BATCH: SessionRecords = {
  messages: [{ role: 'user', text: 'Fix the parser crash', timestamp: '2026-11-30T09:00:00Z' }],
  toolOutputs: [{ command: 'npm test', output: 'FAIL parser.test.ts', exitCode: 1, id: 'run-1' }],
  decisions: [{ text: 'Keep the public API', status: 'accepted', id: 'd-1' }],
};
const SECOND_BATCH: SessionRecords = {
  decisions: [{ text: 'Rewrite the tokenizer', status: 'rejected', id: 'd-2', priority: 0.9 }],
  messages: [{ role: 'assistant', text: 'Looking at src/parser.ts' }],
};

const stores: Array<{ name: string; make: () => RecordStore }> = [
  { name: 'MemoryRecordStore', make: () => new MemoryRecordStore() },
  { name: 'SqliteRecordStore', make: () => SqliteRecordStore.open(freshFile()) },
];

describe.each(stores)('$name contract', ({ make }) => {
  function open(): RecordStore {
    const store = make();
    opened.push(store);
    return store;
  }

  it('starts empty', () => {
    const store = open();
    expect(store.count()).toBe(0);
    expect(store.all()).toEqual({});
  });

  it('returns the records as given, each array in insertion order across batches, empty arrays left out', () => {
    const store = open();
    expect(store.add(FIRST_BATCH)).toEqual({ added: 3 });
    expect(store.add(SECOND_BATCH)).toEqual({ added: 2 });
    expect(store.count()).toBe(5);
    const all = store.all();
    expect(all).toEqual({
      messages: [FIRST_BATCH.messages?.[0], SECOND_BATCH.messages?.[0]],
      toolOutputs: FIRST_BATCH.toolOutputs,
      decisions: [FIRST_BATCH.decisions?.[0], SECOND_BATCH.decisions?.[0]],
    });
    // Key order is the caller's, as JSON keeps it.
    expect(Object.keys(all.decisions?.[1] ?? {})).toEqual(['text', 'status', 'id', 'priority']);
    expect(Object.keys(all)).toEqual(['messages', 'toolOutputs', 'decisions']);
  });

  it('keeps copies: mutating what was added or returned changes nothing stored', () => {
    const store = open();
    const batch: SessionRecords = { errors: [{ message: 'TypeError: x is undefined' }] };
    store.add(batch);
    (batch.errors as Array<{ message: string }>)[0]!.message = 'changed after add';
    const first = store.all();
    (first.errors as Array<{ message: string }>)[0]!.message = 'changed after all';
    expect(store.all().errors).toEqual([{ message: 'TypeError: x is undefined' }]);
  });

  it('refuses a batch reusing a stored id, naming the record, and stores none of it', () => {
    const store = open();
    store.add(FIRST_BATCH);
    const error = refusal(() =>
      store.add({
        messages: [{ role: 'user', text: 'fine on its own' }],
        decisions: [
          { text: 'new', status: 'proposed', id: 'd-9' },
          { text: 'also new', status: 'proposed' },
          { text: 'clash', status: 'proposed', id: 'd-1' },
        ],
      }),
    );
    expect(error.code).toBe('INVALID_RECORDS');
    expect(error.message).toContain('decisions[2].id');
    expect(error.message).toContain('"d-1"');
    expect(error.data.path).toBe('decisions[2].id');
    expect(store.count()).toBe(3);
    expect(store.all()).toEqual(FIRST_BATCH);
  });

  it('refuses a batch repeating one id inside itself, across arrays, and stores none of it', () => {
    const store = open();
    const error = refusal(() =>
      store.add({
        toolOutputs: [{ tool: 'grep', output: 'x', id: 'same' }],
        errors: [{ message: 'boom' }, { message: 'bang', id: 'same' }],
      }),
    );
    expect(error.code).toBe('INVALID_RECORDS');
    expect(error.message).toContain('errors[1].id');
    expect(error.message).toContain('toolOutputs[0]');
    expect(store.count()).toBe(0);
  });

  it('stores records without ids however often they repeat (deduplication is the optimizer\u2019s job)', () => {
    const store = open();
    const batch: SessionRecords = { toolOutputs: [{ command: 'npm test', output: 'ok', exitCode: 0 }] };
    store.add(batch);
    store.add(batch);
    expect(store.count()).toBe(2);
  });

  it('accepts an empty batch as zero records', () => {
    const store = open();
    expect(store.add({})).toEqual({ added: 0 });
    expect(store.add({ messages: [] })).toEqual({ added: 0 });
    expect(store.count()).toBe(0);
  });

  it('refuses a batch that is not the input format with INVALID_RECORDS naming the record, and stores none of it', () => {
    const store = open();
    store.add(FIRST_BATCH);
    const hostile: Array<[unknown, string]> = [
      [{ messages: 'not an array' }, 'messages'],
      [{ decisions: [{ text: 'x', status: 'accepted', priority: 10n }] }, 'decisions[0].priority'],
      [{ messages: [{ role: 'user', text: 'x' }, { role: 'user', text: 'y', extra: () => 1 }] }, 'messages[1].extra'],
      [{ errors: [{ message: 'x', stack: { nested: { deeper: 'y' } } }] }, 'errors[0].stack'],
      [{ toolOutputs: [{ output: 'no tool or command' }] }, 'toolOutputs[0]'],
      [null, ''],
    ];
    for (const [batch, path] of hostile) {
      const error = refusal(() => store.add(batch as SessionRecords));
      expect(error.code, path).toBe('INVALID_RECORDS');
      expect(error.data.path, path).toBe(path);
    }
    expect(store.count()).toBe(3);
    expect(store.all()).toEqual(FIRST_BATCH);
  });

  it('refuses use after close with an IO error', () => {
    const store = open();
    store.close();
    expect(refusal(() => store.count()).code).toBe('IO');
    expect(refusal(() => store.add(FIRST_BATCH)).code).toBe('IO');
  });
});

describe('SqliteRecordStore file', () => {
  it('creates the parent folders, and a reopened store has the records and still refuses their ids', () => {
    const file = freshFile();
    const first = SqliteRecordStore.open(file);
    first.add(FIRST_BATCH);
    first.add(SECOND_BATCH);
    first.close();

    const second = SqliteRecordStore.open(file);
    opened.push(second);
    expect(second.count()).toBe(5);
    expect(second.all().decisions?.map((decision) => decision.id)).toEqual(['d-1', 'd-2']);
    expect(refusal(() => second.add({ toolOutputs: [{ tool: 'x', output: 'y', id: 'run-1' }] })).message).toContain('toolOutputs[0].id');
  });

  it('marks the file with its application id and schema version', () => {
    const file = freshFile();
    SqliteRecordStore.open(file).close();
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('application_id', { simple: true })).toBe(STORE_APPLICATION_ID);
      expect(db.pragma('user_version', { simple: true })).toBe(STORE_SCHEMA_VERSION);
    } finally {
      db.close();
    }
  });

  it('refuses a file that is not a database, and leaves it as it was', () => {
    const file = join(tempDir, 'notes.txt');
    const text = 'not a database, just notes\n'.repeat(100);
    writeFileSync(file, text);
    const error = refusal(() => SqliteRecordStore.open(file));
    expect(error.code).toBe('IO');
    expect(error.message).toContain('not an mcpctx record store');
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('refuses a SQLite database of something else', () => {
    const file = join(tempDir, 'other.db');
    const db = new Database(file);
    db.exec('CREATE TABLE people (name TEXT)');
    db.close();
    const error = refusal(() => SqliteRecordStore.open(file));
    expect(error.code).toBe('IO');
    expect(error.data.reason).toBe('not-a-store');
  });

  it('refuses a store of a newer schema, naming both versions', () => {
    const file = freshFile();
    SqliteRecordStore.open(file).close();
    const db = new Database(file);
    db.pragma(`user_version = ${STORE_SCHEMA_VERSION + 1}`);
    db.close();
    const error = refusal(() => SqliteRecordStore.open(file));
    expect(error.data.reason).toBe('newer-schema');
    expect(error.message).toContain(`schema ${STORE_SCHEMA_VERSION + 1}`);
    expect(error.message).toContain(`(${STORE_SCHEMA_VERSION})`);
  });

  it('refuses a duplicate id written by another connection to the same file', () => {
    const file = freshFile();
    const one = SqliteRecordStore.open(file);
    const two = SqliteRecordStore.open(file);
    opened.push(one, two);
    one.add({ decisions: [{ text: 'a', status: 'accepted', id: 'shared' }] });
    expect(refusal(() => two.add({ decisions: [{ text: 'b', status: 'accepted', id: 'shared' }] })).code).toBe('INVALID_RECORDS');
    expect(two.count()).toBe(1);
  });
});
