// A damaged store is refused at open, never served or appended to, and left byte for byte as it
// was: a garbage page (PRAGMA quick_check), a row that is not JSON, a row of an unknown array, a
// row that is not a record; an empty file is not turned into a store without --create. Each case
// through the library and through the built CLI (`npm run build` first), which exits 3.
import { execFile } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { McpctxError } from '../../../src/errors/index.js';
import { SqliteRecordStore } from '../../../src/optimizer/server/index.js';
import { markedEnv, waitForNoMarkedProcesses } from '../../support/processes.js';

const CLI = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));
const CALL_BUDGET_MS = 30_000;
const tempDir = mkdtempSync(join(tmpdir(), 'mcpctx-store-safety-'));
let fileCount = 0;

afterAll(async () => {
  rmSync(tempDir, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

function freshFile(): string {
  fileCount += 1;
  return join(tempDir, `store-${fileCount}.db`);
}

/** A store with enough records to span many pages, closed. */
function filledStore(records = 400): string {
  const file = freshFile();
  const store = SqliteRecordStore.open(file);
  const messages = Array.from({ length: records }, (_, index) => ({ role: 'user' as const, text: `message ${index}: ${'the parser crashes on empty input '.repeat(8)}` }));
  store.add({ messages, decisions: [{ text: 'Keep the public API', status: 'accepted', id: 'd-1' }] });
  store.close();
  return file;
}

function refusal(work: () => unknown): McpctxError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(McpctxError);
    return error as McpctxError;
  }
  throw new Error('expected a refusal');
}

/** Rewrites one row through raw SQLite, as a bad write or a hand edit would leave it. */
function damageRow(file: string, sql: string): void {
  const db = new Database(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function serve(args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, 'optimizer', 'serve', ...args], { env: markedEnv(), timeout: CALL_BUDGET_MS }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

/** The library refuses with IO 'corrupt', the CLI exits 3 saying so, and the file's bytes never change. */
async function expectRefusedAsCorrupt(file: string, says: string): Promise<void> {
  const before = readFileSync(file);
  const error = refusal(() => SqliteRecordStore.open(file));
  expect(error.code).toBe('IO');
  expect(error.data.reason).toBe('corrupt');
  expect(error.data.file).toBe(file);
  expect(error.message).toContain(file);
  expect(error.message).toContain(says);
  const outcome = await serve(['--store', file]);
  expect(outcome.code).toBe(3);
  expect(outcome.stdout).toBe('');
  expect(outcome.stderr).toContain('is damaged');
  expect(outcome.stderr).toContain(says);
  expect(readFileSync(file).equals(before)).toBe(true);
}

describe('a damaged store is refused at open', () => {
  it('a page overwritten with garbage in the middle of the file: quick_check names it', async () => {
    const file = filledStore();
    const pageSize = 4096;
    const pages = statSync(file).size / pageSize;
    expect(pages).toBeGreaterThan(10);
    const middle = Math.floor(pages / 2);
    const garbage = Buffer.alloc(pageSize);
    for (let i = 0; i < pageSize; i++) garbage[i] = (i * 131 + 17) % 251;
    const fd = openSync(file, 'r+');
    try {
      writeSync(fd, garbage, 0, pageSize, middle * pageSize);
    } finally {
      closeSync(fd);
    }
    await expectRefusedAsCorrupt(file, 'quick_check');
  });

  it('a row whose record is not JSON', async () => {
    const file = filledStore(20);
    damageRow(file, "UPDATE records SET record = '{\"role\": \"user\", \"text\": ' WHERE seq = 7");
    await expectRefusedAsCorrupt(file, 'row 7: the record is not JSON');
  });

  it('a row of an unknown array', async () => {
    const file = filledStore(20);
    damageRow(file, "UPDATE records SET array = 'notes' WHERE seq = 3");
    await expectRefusedAsCorrupt(file, 'row 3: unknown array "notes"');
  });

  it('a row that is JSON but not a record of its array', async () => {
    const file = filledStore(20);
    damageRow(file, `UPDATE records SET record = '{"role": "robot", "text": "x"}' WHERE seq = 5`);
    await expectRefusedAsCorrupt(file, 'row 5: the record is not a messages record');
  });
});

describe('an empty file', () => {
  it('is refused, left empty, unless --create; a missing file is created without it', async () => {
    const empty = freshFile();
    writeFileSync(empty, '');
    const error = refusal(() => SqliteRecordStore.open(empty));
    expect(error.code).toBe('IO');
    expect(error.data.reason).toBe('empty-file');
    expect(error.message).toContain('--create');
    const refused = await serve(['--store', empty]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('empty file (0 bytes)');
    expect(statSync(empty).size).toBe(0);

    const created = await serve(['--store', empty, '--create']);
    expect(created.code, created.stderr).toBe(0);
    expect(statSync(empty).size).toBeGreaterThan(0);
    const reopened = SqliteRecordStore.open(empty);
    expect(reopened.count()).toBe(0);
    reopened.close();

    const missing = join(tempDir, 'new-folder', 'session.db');
    const fresh = await serve(['--store', missing]);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(existsSync(missing)).toBe(true);
  });

  it('--create without --store is a usage error (exit 2)', async () => {
    const outcome = await serve(['--create']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('--create needs --store');
  });
});

describe('a sound store', () => {
  it('opens, and its first read is the rows checked at open', () => {
    const file = filledStore(30);
    const store = SqliteRecordStore.open(file);
    try {
      expect(store.count()).toBe(31);
      expect(store.all().messages).toHaveLength(30);
      expect(store.all().decisions).toEqual([{ text: 'Keep the public API', status: 'accepted', id: 'd-1' }]);
    } finally {
      store.close();
    }
  });
});
