import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { CursorCodec, type CursorBinding } from '../../src/shape/index.js';

const binding: CursorBinding = { query: { tool: 'find_records', field: 'state', value: 'open', fields: ['id', 'title'] }, revision: 'rev-1' };

function codeOf(action: () => unknown): { code: string; message: string; data: Readonly<Record<string, unknown>> } {
  try {
    action();
  } catch (error) {
    if (isMcpctxError(error)) return { code: error.code, message: error.message, data: error.data };
    throw error;
  }
  throw new Error('expected the cursor to be rejected');
}

describe('CursorCodec', () => {
  it('opens its own cursor at the position it was issued for', () => {
    const codec = new CursorCodec();
    for (const position of [0, 1, 5, 12_345, 0xffff_ffff]) {
      const cursor = codec.issue(binding, position);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(codec.open(cursor, binding)).toBe(position);
    }
  });

  it('binds the query regardless of key order', () => {
    const codec = new CursorCodec();
    const cursor = codec.issue(binding, 5);
    const reordered = { query: { fields: ['id', 'title'], value: 'open', field: 'state', tool: 'find_records' }, revision: 'rev-1' };
    expect(codec.open(cursor, reordered)).toBe(5);
  });

  it('rejects malformed input as INVALID_CURSOR with a remedy', () => {
    const codec = new CursorCodec();
    for (const bad of ['', 'not a cursor', '!!!!', 'a'.repeat(10_000), 42, null, { position: 5 }]) {
      const rejected = codeOf(() => codec.open(bad, binding));
      expect(rejected.code).toBe('INVALID_CURSOR');
      expect(rejected.data).toMatchObject({ reason: 'malformed', rpcCode: -32602 });
      expect(rejected.message).toMatch(/omit cursor/);
    }
  });

  it('rejects every one-character edit as a bad signature, never as another position', () => {
    const codec = new CursorCodec();
    const cursor = codec.issue(binding, 5);
    for (let index = 0; index < cursor.length; index += 1) {
      const original = cursor[index] ?? '';
      const replacement = original === 'A' ? 'B' : 'A';
      const edited = cursor.slice(0, index) + replacement + cursor.slice(index + 1);
      const rejected = codeOf(() => codec.open(edited, binding));
      expect(rejected.code).toBe('INVALID_CURSOR');
      expect(rejected.data.reason).toBe('signature');
    }
  });

  it('rejects a cursor signed with another key', () => {
    const cursor = new CursorCodec({ key: 'server-one-secret-key' }).issue(binding, 5);
    const rejected = codeOf(() => new CursorCodec({ key: 'server-two-secret-key' }).open(cursor, binding));
    expect(rejected.code).toBe('INVALID_CURSOR');
    expect(rejected.data.reason).toBe('signature');
    expect(new CursorCodec({ key: 'server-one-secret-key' }).open(cursor, binding)).toBe(5);
  });

  it('tells a foreign cursor from a stale one, each with its own remedy', () => {
    const codec = new CursorCodec();
    const cursor = codec.issue(binding, 5);
    const foreign = codeOf(() => codec.open(cursor, { ...binding, query: { ...(binding.query as object), value: 'closed' } }));
    const stale = codeOf(() => codec.open(cursor, { ...binding, revision: 'rev-2' }));
    const tampered = codeOf(() => codec.open(`${cursor.slice(0, 10)}${cursor[10] === 'x' ? 'y' : 'x'}${cursor.slice(11)}`, binding));
    const malformed = codeOf(() => codec.open('garbage', binding));
    expect(foreign.code).toBe('FOREIGN_CURSOR');
    expect(foreign.message).toMatch(/different query/);
    expect(stale.code).toBe('STALE_CURSOR');
    expect(stale.message).toMatch(/data changed/);
    expect(new Set([foreign.message, stale.message, tampered.message, malformed.message]).size).toBe(4);
  });

  it('refuses a short key', () => {
    expect(() => new CursorCodec({ key: 'short' })).toThrow(/at least 16 bytes/);
  });
});
