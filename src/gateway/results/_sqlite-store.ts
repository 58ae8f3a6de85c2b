import type Database from 'better-sqlite3';
import { McpctxError } from '../../errors/index.js';
import { lazyRequire } from '../../lazy/index.js';
import { storeSettings, type OffloadStore, type OffloadStoreOptions } from './_offload-store.js';
import { createPrivateFile } from '../../private-file/index.js';

// `seq` orders entries by insertion: the oldest is the smallest, whatever the clock did.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS offload (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  at INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS offload_at ON offload (at);
`;

/** The native addon is loaded when a store is opened: a gateway without --store never loads it. */
const sqlite = lazyRequire<typeof Database>('better-sqlite3', { neededFor: "the gateway's --store", native: true });

/**
 * An offload store in a SQLite file (better-sqlite3): kept across restarts of the gateway, per
 * host. The bounds are the same as the memory store's; an existing file is opened and its entries
 * obey this store's TTL and size cap from the next put on.
 */
export function createSqliteStore(file: string, options?: OffloadStoreOptions): OffloadStore {
  const { ttlMs, maxBytes, now } = storeSettings(options);
  if (typeof file !== 'string' || file === '') throw new McpctxError('INVALID_ARGUMENT', 'The offload store needs a file path (or ":memory:").');
  // Outside the IO wrapping below: a missing better-sqlite3 is MISSING_DEPENDENCY, and no file is made.
  const SQLite = sqlite();
  let db: Database.Database;
  try {
    // It holds whole tool results: created 0600 before SQLite opens it (its -wal and -shm follow).
    if (file !== ':memory:' && !file.startsWith('file:')) createPrivateFile(file);
    db = new SQLite(file);
    db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
  } catch (error) {
    throw new McpctxError('IO', `Cannot open the offload store ${file}: ${(error as Error).message}`, { file }, { cause: error });
  }
  const insert = db.prepare('INSERT INTO offload (id, at, bytes, value) VALUES (?, ?, ?, ?)');
  const removeId = db.prepare('DELETE FROM offload WHERE id = ?');
  const removeExpired = db.prepare('DELETE FROM offload WHERE at <= ?');
  const totalBytes = db.prepare('SELECT COALESCE(SUM(bytes), 0) AS total FROM offload');
  const oldest = db.prepare('SELECT seq, bytes FROM offload ORDER BY seq LIMIT 1');
  const removeSeq = db.prepare('DELETE FROM offload WHERE seq = ?');
  const select = db.prepare('SELECT at, value FROM offload WHERE id = ?');

  const put = db.transaction((id: string, value: string, bytes: number, at: number) => {
    removeId.run(id);
    removeExpired.run(at - ttlMs);
    let total = (totalBytes.get() as { total: number }).total;
    while (total + bytes > maxBytes) {
      const row = oldest.get() as { seq: number; bytes: number } | undefined;
      if (row === undefined) break;
      removeSeq.run(row.seq);
      total -= row.bytes;
    }
    insert.run(id, at, bytes, value);
  });
  const open = (): void => {
    if (!db.open) throw new McpctxError('IO', 'The offload store is closed.');
  };
  return {
    ttlMs,
    maxBytes,
    now: () => now(),
    put(id, value) {
      open();
      const bytes = Buffer.byteLength(value, 'utf8');
      if (bytes > maxBytes) return { stored: false, bytes, maxBytes };
      const at = now();
      put(id, value, bytes, at);
      return { stored: true, at, bytes };
    },
    get(id) {
      open();
      const row = select.get(id) as { at: number; value: string } | undefined;
      if (row === undefined) return undefined;
      if (now() - row.at >= ttlMs) {
        removeId.run(id);
        return undefined;
      }
      return row.value;
    },
    delete(id) {
      open();
      removeId.run(id);
    },
    close() {
      if (db.open) db.close();
    },
  };
}
