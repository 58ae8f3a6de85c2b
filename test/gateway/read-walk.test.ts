// Issue 31, item 5: an offloaded result is walked by the cursor its preview gives, page by page, to
// its last character. The preview of a 1 MB file said to read on with next_cursor; that page held
// one item cut to 8,000 characters with truncated: false, next_cursor: null and "This is the last
// page". Here the real filesystem server's read_text_file (text + structuredContent {content})
// and the scripted result server's JSON (an array with an item larger than a page, an object of
// large members) are offloaded through the gateway in this process, then walked from the handle
// alone: every character comes back, every page is within its budget in o200k tokens, no
// surrogate pair is split, and only the last page says it is the last.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/tokens/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { PROJECT_ROOT } from '../support/real-servers.js';
import type { Message } from '../support/wire-client.js';
import { markEnvEntries, tempDir, writeConfig } from './_gateway-process.js';
import { withInProcessGateway, type InProcessGateway } from './_in-process.js';
import { WalkedItems } from './_walked-items.js';

const FILESYSTEM = `${PROJECT_ROOT}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;
const RESULT_SERVER = new URL('../servers/result-server.mjs', import.meta.url).pathname;
const CALL_TIMEOUT_MS = 120_000;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

/** A text the same on every run (an LCG): lines of words, some lines longer than a 1,000-character piece. */
function asciiText(chars: number): string {
  let state = 31;
  const next = (): number => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) >>> 16;
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const words = next() % 17 === 0 ? 400 : 1 + (next() % 14);
    const line = Array.from({ length: words }, () => String.fromCharCode(...Array.from({ length: 1 + (next() % 9) }, () => 0x61 + (next() % 26)))).join(' ') + '\n';
    parts.push(line);
    length += line.length;
  }
  return parts.join('').slice(0, chars);
}

/** CJK, emoji (surrogate pairs) and accented Latin, in long lines: multi-byte everywhere. */
function multiByteText(chars: number): string {
  const alphabet = ['漢', '字', '東', '京', '日', '本', '語', '😀', '🚀', '👩‍💻', 'é', 'ß', ' ', '한', '국', '\n'];
  let state = 7;
  let text = '';
  while (text.length < chars) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    text += alphabet[(state >>> 16) % alphabet.length];
  }
  return text;
}

function textOf(response: Message): string {
  return (response.result as { content: Array<{ text: string }> }).content[0]?.text ?? '';
}

/**
 * Walks a handle from the preview's next_cursor to the end. Items of item pages are kept as they
 * are; the parts of an item too large for a page are joined and given back as one entry: its text
 * (parts of a string) or its parsed JSON.
 */
async function walk(gateway: InProcessGateway, preview: { handle: string; items: unknown[]; next_cursor: string | null }, budget: number): Promise<{ items: unknown[]; pages: number }> {
  const walked = new WalkedItems();
  walked.items.push(...preview.items);
  let cursor = preview.next_cursor;
  let pages = 0;
  while (cursor !== null) {
    const response = await gateway.request('tools/call', { name: 'read_result', arguments: { handle: preview.handle, cursor } }, CALL_TIMEOUT_MS);
    const text = textOf(response);
    expect((response.result as { isError?: boolean }).isError, text).toBeUndefined();
    expect(countTokens(text)).toBeLessThanOrEqual(budget);
    const page = walked.add(text);
    pages += 1;
    for (const piece of [page.text ?? '', ...(page.items ?? [])]) if (typeof piece === 'string') expect(LONE_SURROGATE.test(piece)).toBe(false);
    // Nothing is called last while anything is left: the walk ends only where the value ends.
    const last = page.next_cursor === null;
    expect({ truncated: page.truncated, lastSaid: page.note.includes('This is the last page') }).toEqual({ truncated: !last, lastSaid: last });
    cursor = page.next_cursor;
  }
  expect(walked.inside).toBe(false);
  return { items: walked.items, pages };
}

async function offloaded(gateway: InProcessGateway, name: string, args: Record<string, unknown>): Promise<{ handle: string; tokens: number; items: unknown[]; next_cursor: string | null; note: string }> {
  const response = await gateway.request('tools/call', { name, arguments: args }, CALL_TIMEOUT_MS);
  const text = textOf(response);
  const preview = JSON.parse(text) as { handle?: string; tokens: number; items: unknown[]; next_cursor: string | null; note: string };
  expect(typeof preview.handle, text.slice(0, 300)).toBe('string');
  return preview as { handle: string; tokens: number; items: unknown[]; next_cursor: string | null; note: string };
}

describe('an offloaded text is walked from its preview to the last character (real filesystem server)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-walk-fs-'));
  const ascii = asciiText(1024 * 1024);
  const multi = multiByteText(60_000);
  writeFileSync(join(dir, 'big.txt'), ascii);
  writeFileSync(join(dir, 'multi.txt'), multi);
  const fs = { command: process.execPath, args: [FILESYSTEM, dir], env: markEnvEntries() };

  it('a 1 MB file: the preview says read on with next_cursor, and the pages give every character', { timeout: 300_000 }, async () => {
    const config = writeConfig({ mcpServers: { fs } }, tempDir());
    await withInProcessGateway({ config }, async (gateway) => {
      await gateway.initialize();
      const preview = await offloaded(gateway, 'read_text_file', { path: join(dir, 'big.txt') });
      expect(preview.next_cursor).not.toBeNull();
      expect(preview.note).toMatch(/cursor set to next_cursor/);
      const { items, pages } = await walk(gateway, preview, 4000);
      expect(items.every((item) => typeof item === 'string')).toBe(true);
      expect((items as string[]).join('') === ascii).toBe(true);
      expect(pages).toBeGreaterThan(20);
    });
  });

  it('CJK and emoji, read in pages of 300 tokens (pageTokens): every character, no pair split', { timeout: 300_000 }, async () => {
    const config = writeConfig({ mcpServers: { fs }, tools: { read_text_file: { pageTokens: 300 } } }, tempDir());
    await withInProcessGateway({ config }, async (gateway) => {
      await gateway.initialize();
      const preview = await offloaded(gateway, 'read_text_file', { path: join(dir, 'multi.txt') });
      const { items } = await walk(gateway, preview, 300);
      // Pieces of 1,000 characters are over 300 tokens: each comes in parts, joined back here.
      expect((items as string[]).join('') === multi).toBe(true);
    });
  });
});

describe('an offloaded JSON value is walked whole: never truncated: false with data left out (scripted result server)', () => {
  const big = (seed: number): string => multiByteText(40_000 + seed).replaceAll('\n', ' ');
  const array = [{ id: 1, body: big(1) }, ...Array.from({ length: 300 }, (_, index) => ({ id: index + 2, title: `item ${index + 2}` })), { id: 999, body: big(2) }];
  const list = Array.from({ length: 2000 }, (_, index) => index);
  // `expected`: the items of the walk. An object's one list comes first, then the members beside
  // it ({key: value} each); an object without one list is walked by its members.
  const CASES: ReadonlyArray<{ name: string; value: unknown; expected: unknown[] }> = [
    { name: 'array', value: array, expected: array },
    { name: 'object with one list', value: { first: big(3), list, last: { nested: big(4) } }, expected: [...list, { first: big(3) }, { last: { nested: big(4) } }] },
    { name: 'object with two lists', value: { entities: array, relations: list }, expected: [{ entities: array }, { relations: list }] },
  ];

  it.each(CASES)('$name: the walked items are the value', { timeout: 300_000 }, async ({ value, expected }) => {
    const dir = tempDir('mcpctx-walk-json-');
    const file = join(dir, 'value.json');
    writeFileSync(file, JSON.stringify(value));
    const config = writeConfig({ mcpServers: { json: { command: process.execPath, args: [RESULT_SERVER], env: { ...markEnvEntries(), RESULT_FILE: file } } } }, dir);
    await withInProcessGateway({ config }, async (gateway) => {
      await gateway.initialize();
      const preview = await offloaded(gateway, 'get_result', {});
      const { items } = await walk(gateway, preview, 4000);
      expect(items).toEqual(expected);
    });
  });
});
