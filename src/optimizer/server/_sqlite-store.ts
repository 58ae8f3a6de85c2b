import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { McpctxError, isMcpctxError } from '../../errors/index.js';
import { lazyRequire } from '../../lazy/index.js';
import { RECORD_ARRAYS, type RecordArrayName, type SessionRecords } from '../_types.js';
import { batchEntries, callerId, checkUniqueIds, groupRecords, storableRecords, type RecordStore } from '../_store.js';
import { parseSessionRecords } from '../_validate.js';
import { createPrivateFile } from '../../private-file/index.js';

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

/** The native addon is loaded when a store is opened, not when `mcpctx/optimizer` (or the CLI) is imported. */
const sqlite = lazyRequire<typeof Database>('better-sqlite3', { neededFor: "the optimizer server's --store", native: true });

function openDatabase(path: string): Db {
  const SQLite = sqlite();
  return new SQLite(path);
}

/**
 * Records in one SQLite file, so they survive a restart. A batch is one transaction; the file
 * carries an application id and schema version, and anything else is refused at open.
 */
export class SqliteRecordStore implements RecordStore {
  readonly file: string;
  readonly #db: Db;
  /** The rows read and checked at open, handed to the first `all()` so a server's start reads the file once. */
  #firstRead: SessionRecords | undefined;

  private constructor(file: string, db: Db) {
    this.file = file;
    this.#db = db;
  }

  /**
   * Opens (or creates, with its parent directory) the store at `file`. Throws IO for a file that is
   * not an mcpctx store, for an existing 0-byte file unless `create` (an empty file is more often a
   * truncated store than a new one), and for a damaged store (reason 'corrupt'): a page that
   * `PRAGMA quick_check` reports, or a row that is not a record. Every row is read and checked here,
   * so nothing of a damaged store is ever served or appended to; a refused file is left as it was.
   */
  static open(file: string, options: { create?: boolean } = {}): SqliteRecordStore {
    // First, outside the IO wrapping below: a missing better-sqlite3 is MISSING_DEPENDENCY, and no file or folder is made.
    sqlite();
    const path = resolve(file);
    const size = fileSize(path);
    if (size === 0 && options.create !== true) {
      throw new McpctxError(
        'IO',
        `${path} is an empty file (0 bytes), not an mcpctx record store; it may be a store that lost its content. Pass --create to turn it into a new store, or give --store another file`,
        { file: path, reason: 'empty-file' },
      );
    }
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw new McpctxError('IO', `cannot create the folder of record store ${path}: ${(error as Error).message}`, { file: path });
    }
    let db: Db;
    try {
      // Session records hold tool output and commands: created 0600 (its -wal and -shm follow).
      if (size === undefined) createPrivateFile(path);
      db = openDatabase(path);
    } catch (error) {
      throw new McpctxError('IO', `cannot open record store ${path}: ${(error as Error).message}`, { file: path });
    }
    let store: SqliteRecordStore;
    try {
      // Before anything may write: a damaged file is refused byte for byte as it was.
      if (size !== undefined) checkIntegrity(db, path);
      // IMMEDIATE: two servers starting on a new file must not both create the table.
      db.transaction(() => prepareSchema(db, path)).immediate();
      store = new SqliteRecordStore(path, db);
      store.#firstRead = store.#readRows();
    } catch (error) {
      db.close();
      if (isMcpctxError(error)) throw error;
      const message = (error as Error).message;
      const notDatabase = /not a database|file is encrypted/i.test(message);
      const corrupt = /malformed|corrupt/i.test(message);
      throw new McpctxError(
        'IO',
        notDatabase
          ? `${path} is not an mcpctx record store (not a SQLite database); give --store a new file or one an mcpctx server created`
          : corrupt
            ? `record store ${path} is damaged: ${message}; it is left as it was (restore it from a copy, or give --store another file)`
            : `cannot open record store ${path}: ${message}`,
        { file: path, reason: notDatabase ? 'not-a-store' : corrupt ? 'corrupt' : 'open-failed' },
      );
    }
    return store;
  }

  add(records: SessionRecords): { added: number } {
    const entries = batchEntries(storableRecords(records));
    const db = this.#open();
    this.#firstRead = undefined;
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
    this.#open();
    const first = this.#firstRead;
    if (first !== undefined) {
      this.#firstRead = undefined;
      return first;
    }
    return this.#readRows();
  }

  /** Every row as a record, checked as the input format: a row that is not one is damage, not a refusal of the caller. */
  #readRows(): SessionRecords {
    const db = this.#open();
    const rows = this.#io('read', () => db.prepare<[], { seq: number; array: string; record: string }>('SELECT seq, array, record FROM records ORDER BY seq').all());
    return groupRecords(
      rows.map((row) => {
        if (!ARRAY_NAMES.has(row.array)) throw this.#damaged(row.seq, `unknown array ${JSON.stringify(row.array)}`);
        let record: unknown;
        try {
          record = JSON.parse(row.record);
        } catch (error) {
          throw this.#damaged(row.seq, `the record is not JSON (${(error as Error).message})`);
        }
        try {
          parseSessionRecords({ [row.array]: [record] }, { maxRecordChars: Number.MAX_SAFE_INTEGER });
        } catch (error) {
          throw this.#damaged(row.seq, `the record is not a ${row.array} record (${(error as Error).message})`);
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
    return new McpctxError('IO', `record store ${this.file} is damaged: row ${seq}: ${problem}; it is left as it was (restore it from a copy, or give --store another file)`, {
      file: this.file,
      reason: 'corrupt',
      seq,
    });
  }
}

/** The file's size, or undefined when there is no file (it will be created). */
function fileSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new McpctxError('IO', `cannot open record store ${path}: ${(error as Error).message}`, { file: path });
  }
}

// quick_check lists at most this many problems; the message quotes the first few.
const QUICK_CHECK_MAX_ROWS = 20;
const QUICK_CHECK_QUOTED = 3;

/** `PRAGMA quick_check`: every page readable and well-formed (without the slower index cross-check). */
function checkIntegrity(db: Db, path: string): void {
  let problems: string[];
  try {
    const findings = db.pragma(`quick_check(${QUICK_CHECK_MAX_ROWS})`, { simple: false }) as Array<Record<string, unknown>>;
    problems = findings.map((row) => String(Object.values(row)[0])).filter((line) => line !== 'ok');
  } catch (error) {
    const message = (error as Error).message;
    // A page so broken that the check itself stops: that is its finding. Not a database at all is another refusal.
    if (/not a database|file is encrypted/i.test(message)) throw error;
    problems = [message];
  }
  if (problems.length === 0) return;
  const quoted = problems.slice(0, QUICK_CHECK_QUOTED).join('; ');
  const more = problems.length > QUICK_CHECK_QUOTED ? ` (and ${problems.length - QUICK_CHECK_QUOTED} more)` : '';
  throw new McpctxError(
    'IO',
    `record store ${path} is damaged: PRAGMA quick_check says: ${quoted}${more}; it is left as it was (restore it from a copy, or give --store another file)`,
    { file: path, reason: 'corrupt', quickCheck: problems },
  );
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
