// countTokensAsync and countTokensEach: the count in turns that give the event loop back. The
// turns must never change the number: it is checked against countTokens and js-tiktoken (exact
// reference) on the real texts of test/fixtures and on generated texts of ordinary size, and
// against the closed form on runs too long for js-tiktoken. And the event loop must get turns
// while one long piece is merged.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../support/seeded-random.js';
import { countTokens, countTokensAsync, countTokensEach } from '../../src/tokens/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const CATALOGS = `${FIXTURES}mcp-tool-catalogs/`;
const PULLS_DIR = `${FIXTURES}github-pulls-issues/pygithub/`;

const reference = getEncoding('o200k_base');
const referenceCount = (text: string): number => reference.encode(text, [], []).length;

// Where the pre-tokenizer decides (case changes, contractions, digit groups, punctuation runs
// before newlines, trailing whitespace, BOM, emoji, marks, CJK, special-token text), plus runs
// just past the length where the exact merge takes over from gpt-tokenizer.
const FRAGMENTS = [
  'a', 'Word', 'WORD', "'s", "don't", '123', '1234', ' ', '   ', '\t', '\n', '\r\n', ' \n ', '\u00a0', '{', '":"', '...', '.\n/',
  '<|endoftext|>', '\uFEFF', '😀', '👨‍👩‍👧', 'e\u0301', '日本語', 'مرحبا', '\u001b[31m', ' x', 'x ',
  'a'.repeat(300), ' '.repeat(300), '='.repeat(257), 'é'.repeat(260), '\n'.repeat(400),
];

function generatedText(random: () => number, pieces: number): string {
  let text = '';
  for (let n = 0; n < pieces; n += 1) text += FRAGMENTS[Math.floor(random() * FRAGMENTS.length)];
  return text;
}

const realTexts = (): string[] => [
  ...readdirSync(PULLS_DIR).filter((name) => name.endsWith('.json')).map((name) => readFileSync(`${PULLS_DIR}${name}`, 'utf8')),
  ...readdirSync(CATALOGS).filter((name) => name.endsWith('.json')).map((name) => readFileSync(`${CATALOGS}${name}`, 'utf8')),
];

describe('countTokensAsync gives the exact count', () => {
  it('on every real text of test/fixtures, as countTokens and js-tiktoken do', async () => {
    const texts = realTexts();
    expect(texts.length).toBeGreaterThanOrEqual(10);
    const counts = await countTokensEach(texts);
    expect(counts).toEqual(texts.map(countTokens));
    expect(counts).toEqual(texts.map(referenceCount));
  });

  it('on 300 generated texts of ordinary size (the first 60 against js-tiktoken too, which merges long runs slowly)', async () => {
    const random = seededRandom(20_260_901);
    const texts = Array.from({ length: 300 }, () => generatedText(random, 1 + Math.floor(random() * 40)));
    const counts = await countTokensEach(texts);
    for (const [index, text] of texts.entries()) {
      const expected = index < 60 ? referenceCount(text) : countTokens(text);
      expect({ text, count: counts[index] }).toEqual({ text, count: expected });
    }
  });

  it.each([
    ['a', 1024 * 1024, 8],
    [' ', 1024 * 1024, 128],
    ['\n', 256 * 1024, 16],
    ['=', 256 * 1024, 64],
    ['-', 256 * 1024, 64],
  ] as const)('on a run of %j, %i long (one token per %i)', async (char, length, per) => {
    expect(await countTokensAsync(char.repeat(length))).toBe(length / per);
  });
});

describe('countTokensAsync gives the event loop turns', () => {
  it('while one long piece is merged (256 KiB of one word)', async () => {
    const random = seededRandom(3);
    const word = Array.from({ length: 256 * 1024 }, () => String.fromCharCode(0x61 + Math.floor(random() * 26))).join('');
    countTokens('a'.repeat(300)); // the tables the exact merge uses, built before the count is watched
    let turns = 0;
    const timer = setInterval(() => (turns += 1), 1);
    try {
      const count = await countTokensAsync(word);
      expect(count).toBe(countTokens(word));
    } finally {
      clearInterval(timer);
    }
    // Merging 256 K letters is a few hundred milliseconds of work, so turns of about 10 ms are many.
    expect(turns).toBeGreaterThanOrEqual(5);
  });

  it('rejects with the reason once its signal aborts', async () => {
    const controller = new AbortController();
    const counting = countTokensAsync(' '.repeat(1024 * 1024), { signal: controller.signal });
    setImmediate(() => controller.abort(new Error('enough')));
    await expect(counting).rejects.toThrow('enough');
  });

  it('refuses what is not text with INVALID_ARGUMENT', async () => {
    await expect(countTokensEach([12 as unknown as string])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
