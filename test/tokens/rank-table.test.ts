// The built rank table (dist/o200k_base.ranks.json, written by `npm run build`, which `npm test`
// runs first): gpt-tokenizer's own o200k_base table, byte for byte; the built library loads it
// instead of the package's module and counts the same; a table written from another gpt-tokenizer
// version is never trusted.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getEncoding } from 'js-tiktoken';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = join(ROOT, 'dist', 'o200k_base.ranks.json');
const require = createRequire(import.meta.url);

interface RankTableModule {
  o200kRanks(): unknown[];
  rankTableSource(): string | undefined;
}
interface CountModule {
  countTokens(text: string): number;
}

/** Texts that take both paths of the counter: gpt-tokenizer's encoder, and the exact BPE built from the same table (long runs, the BOM). */
const SAMPLES = [
  'hello world <|endoftext|> {"id": 42}',
  `{"name":"read_file","description":"Read a file ${'é'.repeat(40)} 日本語のテキスト"}`,
  `\uFEFF${'a'.repeat(600)}`,
  `${'!?'.repeat(400)} ${' '.repeat(300)}x`,
];

const scratch: string[] = [];
afterAll(() => {
  for (const folder of scratch) rmSync(folder, { recursive: true, force: true });
});

/** A copy of the built library's tokens folder (and what it imports) under test-output/, beside a rank table file of our choosing. */
function libraryCopy(table: unknown): string {
  const folder = join(ROOT, 'test-output', `rank-table-${process.pid}-${scratch.length}`);
  scratch.push(folder);
  mkdirSync(folder, { recursive: true });
  for (const part of ['tokens', 'json', 'lazy', 'errors']) cpSync(join(ROOT, 'dist', part), join(folder, part), { recursive: true, filter: (source) => !source.endsWith('.map') });
  writeFileSync(join(folder, 'o200k_base.ranks.json'), JSON.stringify(table));
  return folder;
}

describe('the built o200k_base rank table', () => {
  it('holds exactly the table and the version of the gpt-tokenizer installed', () => {
    const built = JSON.parse(readFileSync(BUILT, 'utf8')) as { package: string; version: string; encoding: string; ranks: unknown[] };
    expect(built.package).toBe('gpt-tokenizer');
    expect(built.encoding).toBe('o200k_base');
    expect(built.version).toBe((require('gpt-tokenizer/package.json') as { version: string }).version);
    const shipped = (require('gpt-tokenizer/bpeRanks/o200k_base') as { default: unknown[] }).default;
    expect(built.ranks.length).toBe(shipped.length);
    expect(built.ranks).toEqual(shipped);
  });

  it('is what the built library loads, and it counts as js-tiktoken does', async () => {
    const ranks = (await import(pathToFileURL(join(ROOT, 'dist', 'tokens', '_rank-table.js')).href)) as RankTableModule;
    const counter = (await import(pathToFileURL(join(ROOT, 'dist', 'tokens', 'index.js')).href)) as CountModule;
    const reference = getEncoding('o200k_base');
    for (const text of SAMPLES) expect(counter.countTokens(text), text.slice(0, 40)).toBe(reference.encode(text, [], []).length);
    expect(ranks.rankTableSource()).toBe('built');
  });

  it('is left aside when it was written from another gpt-tokenizer version', async () => {
    const built = JSON.parse(readFileSync(BUILT, 'utf8')) as { version: string; ranks: unknown[] };
    // A table that would count wrong if it were used: every token renamed.
    const folder = libraryCopy({ ...built, version: `${built.version}-other`, ranks: built.ranks.map((_, rank) => `#${rank}`) });
    const ranks = (await import(pathToFileURL(join(folder, 'tokens', '_rank-table.js')).href)) as RankTableModule;
    const counter = (await import(pathToFileURL(join(folder, 'tokens', 'index.js')).href)) as CountModule;
    const reference = getEncoding('o200k_base');
    for (const text of SAMPLES) expect(counter.countTokens(text)).toBe(reference.encode(text, [], []).length);
    expect(ranks.rankTableSource()).toBe('package');
    expect(ranks.o200kRanks()[0]).toBe('!');
  });
});
