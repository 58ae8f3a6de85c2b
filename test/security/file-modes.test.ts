// Files that hold whole tool results or session records are the owner's alone (issue 30, item 10):
// the gateway's --store (and SQLite's -wal and -shm beside it), its --receipts, the optimizer
// server's --store. An existing file keeps its mode, and the gateway says so when others can read it.
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptWriter } from '../../src/gateway/receipts/index.js';
import { createSqliteStore } from '../../src/gateway/results/index.js';
import { SqliteRecordStore } from '../../src/optimizer/server/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { relayEntry, writeConfig } from '../gateway/_gateway-process.js';
import { withInProcessGateway } from '../gateway/_in-process.js';

const posix = process.platform !== 'win32';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpctx-modes-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

function modeOf(file: string): string {
  return (statSync(file).mode & 0o777).toString(8);
}

describe.runIf(posix)('files that hold tool results are created 0600', () => {
  it('the offload store, its -wal and its -shm', () => {
    const file = join(dir, 'store.db');
    const store = createSqliteStore(file);
    try {
      store.put('h1', JSON.stringify({ secret: 'a whole tool result' }));
      expect(store.get('h1')).toContain('a whole tool result');
      // Checked while open: SQLite removes -wal and -shm when the last connection closes.
      expect([modeOf(file), modeOf(`${file}-wal`), modeOf(`${file}-shm`)]).toEqual(['600', '600', '600']);
    } finally {
      store.close();
    }
  });

  it('the receipts file', async () => {
    const file = join(dir, 'receipts.jsonl');
    const writer = await ReceiptWriter.open(file);
    await writer.close();
    expect(modeOf(file)).toBe('600');
  });

  it("the optimizer server's record store and its -wal and -shm", () => {
    const file = join(dir, 'records', 'records.db');
    const store = SqliteRecordStore.open(file);
    try {
      store.add({ messages: [{ role: 'user', text: 'the password is hunter2' }] });
      const present = [file, `${file}-wal`, `${file}-shm`].filter((path) => {
        try {
          statSync(path);
          return true;
        } catch {
          return false;
        }
      });
      expect(present).toContain(file);
      expect(present.map(modeOf)).toEqual(present.map(() => '600'));
    } finally {
      store.close();
    }
  });

  it('an existing file keeps its mode, and the gateway warns at start when others can read it', async () => {
    const receipts = join(dir, 'shared-receipts.jsonl');
    writeFileSync(receipts, '');
    chmodSync(receipts, 0o644);
    const config = writeConfig({ mcpServers: { one: relayEntry('one') } });
    await withInProcessGateway({ config, receipts }, async (gateway) => {
      await gateway.initialize();
      expect(gateway.stderr()).toContain(`${receipts} can be read by other users (mode 0644)`);
      expect(gateway.stderr()).toContain('chmod 600');
    });
    expect(modeOf(receipts)).toBe('644');
    const privateReceipts = join(dir, 'private-receipts.jsonl');
    await withInProcessGateway({ config, receipts: privateReceipts }, async (gateway) => {
      await gateway.initialize();
      expect(gateway.stderr()).not.toContain('can be read by other users');
    });
    expect(modeOf(privateReceipts)).toBe('600');
  }, 60_000);
});
