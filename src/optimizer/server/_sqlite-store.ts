import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { McpctxError, isMcpctxError } from '../../errors/index.js';
import { RECORD_ARRAYS, type RecordArrayName, type SessionRecords } from '../_types.js';
import { batchEntries, callerId, checkUniqueIds, groupRecords, storableRecords, type RecordStore } from '../_store.js';

/** `PRAGMA application_id` of an mcpctx store: "mctx" in ASCII, so a stranger's database is told apart. */
export const STORE_APPLICATION_ID = 0x6d637478;
/** `PRAGMA user_version`: the schema this code writes and reads. */
export const STORE_SCHEMA_VERSION = 1;

const ARRAY_NAMES = new Set<string>(RECORD_ARRAYS.map((entry) => entry.array));

// `seq` is the insertion order across batches; `record_id` (the caller's id, else NULL) is
// unique so two processes sharing a file still cannot store one id twice.
const CREATE_SCHEMA = `
  CREATE TABLE records (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    array TEXT NOT NULL,
    record_id TEXT UNIQUE,
    record TEXT NOT NULL
  ) STRICT`;

type Db = InstanceType<typeof Database>;

const require = createRequire(import.meta.url);

/** The native addon is loaded when a store is opened, not when `mcpctx/optimizer` (or the CLI) is imported. */
function openDatabase(path: string): Db {
  const SQLite = require('better-sqlite3') as typeof Database;
  return new SQLite(path);
}

/**
 * Records in one SQLite file, so they survive a restart. A batch is one transaction; the file
 * carries an application id and schema version, and anything else is refused at open.
 */
export class SqliteRecordStore implements RecordStore {
  readonly file: string;
  readonly #db: Db;

  private constructor(file: string, db: Db) {
    this.file = file;
    this.#db = db;
  }

  /** Opens (or creates, with its parent directory) the store at `file`. Throws IO for a file that is not an mcpctx store. */
  static open(file: string): SqliteRecordStore {
    const path = resolve(file);
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw new McpctxError('IO', `cannot create the folder of record store ${path}: ${(error as Error).message}`, { file: path });
    }
    let db: Db;
    try {
      db = openDatabase(path);
    } catch (error) {
      throw new McpctxError('IO', `cannot open record store ${path}: ${(error as Error).message}`, { file: path });
    }
    try {
      // IMMEDIATE: two servers starting on a new file must not both create the table.
      db.transaction(() => prepareSchema(db, path)).immediate();
    } catch (error) {
      db.close();
      if (isMcpctxError(error)) throw error;
      const message = (error as Error).message;
      const notDatabase = /not a database|file is encrypted/i.test(message);
      throw new McpctxError(
        'IO',
        notDatabase
          ? `${path} is not an mcpctx record store (not a SQLite database); give --store a new file or one an mcpctx server created`
          : `cannot open record store ${path}: ${message}`,
        { file: path, reason: notDatabase ? 'not-a-store' : 'open-failed' },
      );
    }
    return new SqliteRecordStore(path, db);
  }

  add(records: SessionRecords): { added: number } {
    const entries = batchEntries(storableRecords(records));
    const db = this.#open();
    return this.#io('write to', () =>
      db
        .transaction(() => {
          const stored = db.prepare<[string], number>('SELECT 1 FROM records WHERE record_id = ?').pluck();
          checkUniqueIds(entries, (id) => stored.get(id) !== undefined);
          const insert = db.prepare<[string, string | null, string]>('INSERT INTO records (array, record_id, record) VALUES (?, ?, ?)');
          for (const entry of entries) insert.run(entry.array, callerId(entry.record) ?? null, JSON.stringify(entry.record));
          return { added: entries.length };
        })
        // IMMEDIATE takes the write lock before the id check, so no other writer slips in between.
        .immediate(),
    );
  }

  all(): SessionRecords {
    const db = this.#open();
    const rows = this.#io('read', () => db.prepare<[], { seq: number; array: string; record: string }>('SELECT seq, array, record FROM records ORDER BY seq').all());
    return groupRecords(
      rows.map((row) => {
        if (!ARRAY_NAMES.has(row.array)) throw this.#damaged(row.seq, `unknown array ${JSON.stringify(row.array)}`);
        let record: unknown;
        try {
          record = JSON.parse(row.record);
        } catch (error) {
          throw this.#damaged(row.seq, (error as Error).message);
        }
        return { array: row.array as RecordArrayName, record };
      }),
    );
  }

  count(): number {
    const db = this.#open();
    return this.#io('read', () => db.prepare<[], number>('SELECT COUNT(*) FROM records').pluck().get() ?? 0);
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }

  #open(): Db {
    if (!this.#db.open) throw new McpctxError('IO', `the record store ${this.file} is closed`, { file: this.file });
    return this.#db;
  }

  /** SQLite failures (a full disk, a lock held too long, a read-only file) become IO errors; refusals pass through. */
  #io<T>(verb: string, work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (isMcpctxError(error)) throw error;
      throw new McpctxError('IO', `cannot ${verb} record store ${this.file}: ${(error as Error).message}`, { file: this.file });
    }
  }

  #damaged(seq: number, problem: string): McpctxError {
    return new McpctxError('IO', `record store ${this.file} is damaged: row ${seq}: ${problem}`, { file: this.file, seq });
  }
}

/** Creates the schema in an empty database; checks it in one that has any. */
function prepareSchema(db: Db, path: string): void {
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  const tables = db.prepare<[], number>("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'").pluck().get() ?? 0;
  if (applicationId === 0 && version === 0 && tables === 0) {
    db.exec(CREATE_SCHEMA);
    db.pragma(`application_id = ${STORE_APPLICATION_ID}`);
    db.pragma(`user_version = ${STORE_SCHEMA_VERSION}`);
    return;
  }
  if (applicationId !== STORE_APPLICATION_ID) {
    throw new McpctxError('IO', `${path} is a SQLite database of something else, not an mcpctx record store; give --store a new file or one an mcpctx server created`, {
      file: path,
      reason: 'not-a-store',
    });
  }
  if (version > STORE_SCHEMA_VERSION) {
    throw new McpctxError(
      'IO',
      `${path} is an mcpctx record store of schema ${version}, newer than this mcpctx reads (${STORE_SCHEMA_VERSION}); upgrade mcpctx, or give --store another file`,
      { file: path, reason: 'newer-schema', version },
    );
  }
  if (version !== STORE_SCHEMA_VERSION) {
    throw new McpctxError('IO', `${path} is an mcpctx record store of unknown schema ${version}; give --store another file`, {
      file: path,
      reason: 'unknown-schema',
      version,
    });
  }
}
