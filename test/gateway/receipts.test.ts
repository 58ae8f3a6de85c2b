import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGatewayReport } from '../../src/gateway/index.js';
import { LIST_ROW_TOOL, MAX_RECEIPT_ARGS_CHARS, ReceiptWriter, type Receipt } from '../../src/gateway/receipts/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpctx-gw-receipts-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const call = (tool: string, upstreamTokens: number, deliveredTokens: number, extra: Partial<Receipt> = {}): Receipt => ({
  time: '2026-01-02T03:04:05.000Z',
  kind: 'call',
  upstream: 'gh',
  tool,
  upstreamTokens,
  deliveredTokens,
  action: 'passed',
  elapsedMs: 3,
  ...extra,
});

const linesOf = async (file: string): Promise<Record<string, unknown>[]> =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('ReceiptWriter', () => {
  it('appends one JSON line per receipt; a second writer and a reopen append, never overwrite', async () => {
    const file = join(dir, 'append.jsonl');
    const first = await ReceiptWriter.open(file);
    const second = await ReceiptWriter.open(file);
    first.write(call('a', 10, 10));
    second.write(call('b', 20, 5));
    first.write(call('c', 30, 30));
    expect(await first.close()).toEqual({ written: 2, dropped: 0 });
    expect(await second.close()).toEqual({ written: 1, dropped: 0 });
    const third = await ReceiptWriter.open(file);
    third.write(call('d', 1, 1));
    await third.close();
    const lines = await linesOf(file);
    expect(lines.map(({ tool }) => tool).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(lines.at(-1)).toEqual({ time: '2026-01-02T03:04:05.000Z', kind: 'call', upstream: 'gh', tool: 'd', upstreamTokens: 1, deliveredTokens: 1, action: 'passed', elapsedMs: 3 });
  });

  it('writes argument values only with includeArgs, and never oversized ones', async () => {
    const withArgs = call('search', 5, 5, { args: { query: 'canary-arg' }, changes: [{ field: 'description', tokensBefore: 9, tokensAfter: 3 }] });
    const plainFile = join(dir, 'plain.jsonl');
    const plain = await ReceiptWriter.open(plainFile);
    plain.write(withArgs);
    await plain.close();
    expect(await readFile(plainFile, 'utf8')).not.toContain('canary-arg');
    expect((await linesOf(plainFile))[0]).toMatchObject({ changes: [{ field: 'description', tokensBefore: 9, tokensAfter: 3 }] });

    const argsFile = join(dir, 'args.jsonl');
    const writer = await ReceiptWriter.open(argsFile, { includeArgs: true });
    writer.write(withArgs);
    writer.write(call('big', 1, 1, { args: { blob: 'x'.repeat(MAX_RECEIPT_ARGS_CHARS + 1) } }));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    writer.write(call('cyclic', 1, 1, { args: cyclic }));
    expect(await writer.close()).toEqual({ written: 3, dropped: 0 });
    const [small, big, odd] = await linesOf(argsFile);
    expect(small).toMatchObject({ args: { query: 'canary-arg' } });
    expect(big).not.toHaveProperty('args');
    expect(big?.note).toMatch(/args left out/);
    expect(odd?.note).toMatch(/no JSON form/);
  });

  it('never throws into the caller: writes after close are counted as dropped', async () => {
    const writer = await ReceiptWriter.open(join(dir, 'closed.jsonl'));
    writer.write(call('a', 1, 1));
    await writer.close();
    expect(() => writer.write(call('late', 1, 1))).not.toThrow();
    expect(await writer.close()).toEqual({ written: 1, dropped: 0 });
    // close() is settled once; a second writer shows the count.
    const other = await ReceiptWriter.open(join(dir, 'closed.jsonl'));
    const closing = other.close();
    other.write(call('late', 1, 1));
    expect(await closing).toEqual({ written: 0, dropped: 1 });
  });

  it('an unwritable path is IO at open', async () => {
    await expect(ReceiptWriter.open(join(dir, 'no', 'such', 'dir', 'r.jsonl'))).rejects.toMatchObject({ code: 'IO' });
    const locked = join(dir, 'locked');
    await mkdir(locked);
    await chmod(locked, 0o500);
    try {
      // Root ignores permissions; the directory case then still proves IO.
      if (process.getuid?.() !== 0) await expect(ReceiptWriter.open(join(locked, 'r.jsonl'))).rejects.toMatchObject({ code: 'IO' });
      await expect(ReceiptWriter.open(locked)).rejects.toMatchObject({ code: 'IO' });
    } finally {
      await chmod(locked, 0o700);
    }
  });
});

describe('readGatewayReport', () => {
  it('sums per tool, upstream and action, sorted, with totals; bad lines counted', async () => {
    const file = join(dir, 'report.jsonl');
    const writer = await ReceiptWriter.open(file);
    writer.write(call('list_prs', 60000, 1200, { action: 'paged' }));
    writer.write(call('list_prs', 60000, 1100, { action: 'paged' }));
    writer.write(call('get_pr', 300, 300));
    writer.write(call('list_prs', 90000, 400, { action: 'offloaded' }));
    writer.write(call('delete_repo', 0, 40, { action: 'denied', upstream: null }));
    writer.write({ ...call('x', 5000, 3000, { action: 'listed' }), kind: 'list', tool: null });
    await writer.close();
    const good = await readFile(file, 'utf8');
    await writeFile(file, `${good}not json\n{"kind":"call","tool":"a","upstream":"gh","action":"teleported","upstreamTokens":1,"deliveredTokens":1}\n\n{"kind":"call"`);
    const report = await readGatewayReport(file);
    expect(report.badLines).toBe(3);
    expect(report.file).toBe(file);
    expect(report.rows).toEqual([
      { tool: LIST_ROW_TOOL, upstream: 'gh', action: 'listed', calls: 1, upstreamTokens: 5000, deliveredTokens: 3000 },
      { tool: 'delete_repo', upstream: null, action: 'denied', calls: 1, upstreamTokens: 0, deliveredTokens: 40 },
      { tool: 'get_pr', upstream: 'gh', action: 'passed', calls: 1, upstreamTokens: 300, deliveredTokens: 300 },
      { tool: 'list_prs', upstream: 'gh', action: 'offloaded', calls: 1, upstreamTokens: 90000, deliveredTokens: 400 },
      { tool: 'list_prs', upstream: 'gh', action: 'paged', calls: 2, upstreamTokens: 120000, deliveredTokens: 2300 },
    ]);
    expect(report.totals).toEqual({ calls: 5, lists: 1, upstreamTokens: 215300, deliveredTokens: 6040, savedTokens: 209260 });
  });

  it('a missing file is IO', async () => {
    await expect(readGatewayReport(join(dir, 'missing.jsonl'))).rejects.toMatchObject({ code: 'IO' });
    await expect(readGatewayReport(dir)).rejects.toMatchObject({ code: 'IO' });
  });
});
