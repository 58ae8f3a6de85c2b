import { execFileSync } from 'node:child_process';
import type * as FsPromises from 'node:fs/promises';
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isMcpctxError } from '../../../src/errors/index.js';
import { FrozenRecords } from '../../../src/shape/files/index.js';
import { sha256Hex } from '../../../src/tokens/index.js';
import { markedEnv } from '../../support/processes.js';

// Every byte FrozenRecords reads from disk, through whichever node:fs/promises call it uses.
const disk = vi.hoisted(() => ({ opens: 0, bytesRead: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  return {
    ...actual,
    readFile: async (...args: Parameters<typeof actual.readFile>) => {
      disk.opens += 1;
      const bytes = await actual.readFile(...args);
      disk.bytesRead += bytes.length;
      return bytes;
    },
    open: async (...args: Parameters<typeof actual.open>) => {
      disk.opens += 1;
      const handle = await actual.open(...args);
      const read = handle.read.bind(handle) as (...readArgs: unknown[]) => Promise<{ bytesRead: number }>;
      Object.assign(handle, {
        read: async (...readArgs: unknown[]) => {
          const outcome = await read(...readArgs);
          disk.bytesRead += outcome.bytesRead;
          return outcome;
        },
      });
      return handle;
    },
  };
});

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpctx-frozen-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const records = [
  { id: 'a1', revision: '1', state: 'open', title: 'first' },
  { id: 'a2', revision: '1', state: 'closed', title: 'second' },
];

function write(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

/** A read that blocks (a FIFO, a device) fails the test instead of hanging it. */
async function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('the read did not return within 10 s')), 10_000);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function failure(action: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await action();
  } catch (error) {
    if (isMcpctxError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('FrozenRecords', () => {
  it('loads flat records, with the hash of the bytes as revision', async () => {
    const path = write('snapshot.json', records);
    const source = await FrozenRecords.load({ path });
    const snapshot = await source.current();
    expect(snapshot.records).toEqual(records);
    expect(snapshot.fields).toEqual(['id', 'revision', 'state', 'title']);
    expect(snapshot.presentFields).toEqual(['id', 'revision', 'state', 'title']);
    // A name that Object.prototype has is not a field of a record that lacks it.
    expect(snapshot.records[0]?.constructor).toBeUndefined();
    expect(snapshot.revision).toMatch(/^[0-9a-f]{64}$/);
    const sameBytes = await FrozenRecords.load({ path: write('copy.json', records) });
    expect(sameBytes.snapshot.revision).toBe(snapshot.revision);
    expect(snapshot.revision).not.toBe(sha256Hex(''));
  });

  it.each([
    ['not JSON', '[{', /not valid UTF-8 JSON/],
    ['not an array', { id: 'a' }, /must be a JSON array/],
    ['a record that is not an object', [records[0], 'x'], /record 1 is not an object/],
    ['a missing id', [{ revision: '1' }], /record 0: "id" must be a non-empty string/],
    ['an empty id', [{ id: '', revision: '1' }], /"id" must be a non-empty string/],
    ['a repeated id', [records[0], { ...records[1], id: 'a1' }], /record 1 \(id "a1"\): "id" repeats/],
    ['a missing revision', [{ id: 'a' }], /record 0 \(id "a"\): "revision" must be a string/],
    ['a number value', [{ ...records[0], votes: 3 }], /field "votes" is not a string/],
    ['a nested value', [{ ...records[0], user: { login: 'x' } }], /field "user" is not a string/],
    ['a bad field name', [{ ...records[0], 'first name': 'x' }], /field name "first name" is not like an identifier/],
    ['a field over the length limit', [{ ...records[0], title: 'x'.repeat(101) }], /"title" has 101 characters, over the limit of 100/],
    ['too many records', [records[0], records[1], { ...records[0], id: 'a3' }], /holds 3 records, over the limit of 2/],
  ])('refuses %s, naming the record and the rule', async (_name, content, message) => {
    const path = write('bad.json', content);
    const rejected = await failure(() => FrozenRecords.load({ path, maxFieldChars: 100, maxRecords: 2 }));
    expect(rejected.code).toBe('INVALID_RECORDS');
    expect(rejected.message).toMatch(message);
    expect(rejected.message).toContain(path);
  });

  it('checks an allowlist: id and revision required, only fields the snapshot has', async () => {
    const path = write('snapshot.json', records);
    const good = await FrozenRecords.load({ path, fieldsPath: write('fields.json', ['id', 'revision', 'title']) });
    expect(good.snapshot.fields).toEqual(['id', 'revision', 'title']);
    const wrapped = await FrozenRecords.load({ path, fieldsPath: write('wrapped.json', { fields: ['id', 'revision'] }) });
    expect(wrapped.snapshot.fields).toEqual(['id', 'revision']);
    expect((await failure(() => FrozenRecords.load({ path, fieldsPath: write('f1.json', ['id', 'title']) }))).message).toMatch(/must include "revision"/);
    expect((await failure(() => FrozenRecords.load({ path, fieldsPath: write('f2.json', ['id', 'revision', 'body']) }))).message).toMatch(/does not have: "body"/);
    expect((await failure(() => FrozenRecords.load({ path, fieldsPath: write('f3.json', [1]) }))).message).toMatch(/array of field names/);
  });

  it('fails the first call after the file changes with SOURCE_CHANGED, then serves the new data', async () => {
    const path = write('snapshot.json', records);
    let changes = 0;
    const source = await FrozenRecords.load({ path, onChange: () => (changes += 1) });
    const before = (await source.current()).revision;
    write('snapshot.json', [records[0]]);
    const changed = await failure(() => source.current());
    expect(changed.code).toBe('SOURCE_CHANGED');
    expect(changed.message).toMatch(/repeat the query without a cursor/);
    expect(changes).toBe(1);
    const after = await source.current();
    expect(after.records).toEqual([records[0]]);
    expect(after.revision).not.toBe(before);
    expect(changes).toBe(1);
  });

  it('fails the call when the allowlist changes', async () => {
    const path = write('snapshot.json', records);
    const fieldsPath = write('fields.json', ['id', 'revision', 'title']);
    const source = await FrozenRecords.load({ path, fieldsPath });
    write('fields.json', ['id', 'revision', 'state']);
    expect((await failure(() => source.current())).code).toBe('SOURCE_CHANGED');
    expect((await source.current()).fields).toEqual(['id', 'revision', 'state']);
  });

  it('keeps failing while the changed file is broken, and never serves the old data meanwhile', async () => {
    const path = write('snapshot.json', records);
    const source = await FrozenRecords.load({ path });
    write('snapshot.json', '[{"id": 1}]');
    const broken = await failure(() => source.current());
    expect(broken.code).toBe('INVALID_RECORDS');
    expect(broken.message).toMatch(/changed during this session and is now invalid \(.*field "id" is not a string.*\)\. Nothing can be served.*report this/);
    expect((await failure(() => source.current())).code).toBe('INVALID_RECORDS');
    write('snapshot.json', [records[1]]);
    expect((await failure(() => source.current())).code).toBe('SOURCE_CHANGED');
    expect((await source.current()).records).toEqual([records[1]]);
  });

  it('reads and hashes unchanged files once, however often current() is called', async () => {
    const path = write('snapshot.json', records);
    const fieldsPath = write('fields.json', ['id', 'revision', 'title']);
    const source = await FrozenRecords.load({ path, fieldsPath });
    const opens = disk.opens;
    for (let call = 0; call < 5; call += 1) expect((await source.current()).records).toHaveLength(2);
    expect(disk.opens).toBe(opens);
    // Touched (a new mtime) but the same bytes: read and hashed once more, no change reported.
    const later = new Date(statSync(path).mtimeMs + 5_000);
    utimesSync(path, later, later);
    expect((await source.current()).records).toHaveLength(2);
    expect(disk.opens).toBe(opens + 2);
    await source.current();
    expect(disk.opens).toBe(opens + 2);
  });

  it('sees a rewrite of the same size through its new modification time', async () => {
    const path = write('snapshot.json', records);
    const source = await FrozenRecords.load({ path });
    const { mtime } = statSync(path);
    write('snapshot.json', [records[0], { ...records[1], title: 'secunD' }]);
    expect(statSync(path).size).toBe(JSON.stringify(records).length);
    utimesSync(path, mtime, new Date(mtime.getTime() + 1_000));
    expect((await failure(() => source.current())).code).toBe('SOURCE_CHANGED');
    expect((await source.current()).records[1]?.title).toBe('secunD');
  });

  it('refuses a file over maxBytes from its size, before reading it', async () => {
    const path = join(dir, 'huge.json');
    writeFileSync(path, '');
    truncateSync(path, 1.5 * 1024 ** 3); // sparse: 1.5 GB that take no disk
    const before = disk.bytesRead;
    const rejected = await failure(() => FrozenRecords.load({ path, maxBytes: 1024 * 1024 }));
    expect(rejected.code).toBe('INVALID_RECORDS');
    expect(rejected.message).toContain('is 1,610,612,736 bytes, over the limit of 1,048,576');
    expect(disk.bytesRead - before).toBeLessThanOrEqual(1024 * 1024 + 1);
  });

  it('refuses what is not a regular file without reading from it: a directory, a device, a FIFO', async () => {
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo], { env: markedEnv() }); // ends before it returns
    for (const [path, kind] of [
      [folder, 'a directory'],
      ['/dev/zero', 'a character device'],
      [fifo, 'a FIFO'],
    ] as const) {
      const rejected = await bounded(failure(() => FrozenRecords.load({ path })));
      expect(rejected.code, path).toBe('IO');
      expect(rejected.message).toContain(`${path} is not a regular file (it is ${kind}`);
    }
  });

  it('refuses a FIFO put in place of the snapshot during a session', async () => {
    const path = write('snapshot.json', records);
    const source = await FrozenRecords.load({ path });
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo], { env: markedEnv() });
    renameSync(fifo, path);
    const rejected = await bounded(failure(() => source.current()));
    expect(rejected.code).toBe('IO');
    expect(rejected.message).toMatch(/not a regular file \(it is a FIFO/);
  });

  it('reports a missing file as IO', async () => {
    expect((await failure(() => FrozenRecords.load({ path: join(dir, 'missing.json') }))).code).toBe('IO');
  });
});
