// countTokensStoppable: the exact count in slices, with a stop check between them. The slice
// boundaries must never change the number, so it is checked against countTokens (and, where
// js-tiktoken is fast enough, against js-tiktoken) on generated and real texts with tiny slices,
// which put a boundary at nearly every legal place.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../support/seeded-random.js';
import { countTokens, countTokensStoppable } from '../../src/tokens/index.js';
import { COUNT_SLICE_CHARS } from '../../src/tokens/_count.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const PULLS_BODY = `${FIXTURES}github-pulls-issues/pygithub/openmicroscopy_ome-documentation_pulls_state-closed.body.json`;
const CATALOGS = `${FIXTURES}mcp-tool-catalogs/`;

const reference = getEncoding('o200k_base');
const referenceCount = (text: string): number => reference.encode(text, [], []).length;
const never = (): boolean => false;

// Fragments chosen for where the pre-tokenizer decides: letter case changes, contractions,
// digits in threes, punctuation runs ending in newlines or slashes, whitespace before text and at
// the end (the `\s+(?!\S)` lookahead), the BOM (a token of its own, and JS whitespace), emoji and
// ZWJ sequences, combining marks, CJK, and special-token text.
const FRAGMENTS = [
  'a', 'A', 'word', 'Word', 'WORD', 'wORD', 'é', 'É', 'ß', "'s", "'S", "'ll", "'", '"', 'don\'t', 'I\'M',
  '1', '12', '123', '1234', '3.14', ' ', '  ', '   ', '\t', '\n', '\n\n', '\r\n', ' \n ', '  \n', '\u00a0', '\u2028', '\u3000',
  '{', '}', '":"', '","', ':', ',', '.', '...', '/', '//', '.\n/', '!\n', '?!', '-', '--', '_', '__init__', '<', '>', '<|endoftext|>',
  '<|fim_prefix|>', '\uFEFF', '\uFEFF\uFEFF', '😀', '👍🏽', '👨‍👩‍👧', '🇫🇷', 'e\u0301', '\u0301', '日本語', 'カタカナ', '한국어', 'مرحبا',
  '\u0000', '\u001b[31m', '\uD800', ' x', ' X', '  x', '\tx', '\nx', 'x\n', 'x ', ' 1', '  1', ' .', '  .',
];

function generatedText(random: () => number, pieces: number): string {
  let text = '';
  for (let n = 0; n < pieces; n += 1) text += FRAGMENTS[Math.floor(random() * FRAGMENTS.length)];
  return text;
}

function expectSameAsCountTokens(label: string, text: string, sliceChars: number): void {
  const stoppable = countTokensStoppable(text, { shouldStop: never, sliceChars });
  expect(stoppable, `${label} (slices of ${sliceChars})`).toBe(countTokens(text));
}

describe('countTokensStoppable gives the countTokens number, wherever the slices fall', () => {
  it('on 600 generated texts, slices of 1 to 40 characters', () => {
    const random = seededRandom(20_260_831);
    for (let run = 0; run < 600; run += 1) {
      const text = generatedText(random, 1 + Math.floor(random() * 120));
      const sliceChars = 1 + Math.floor(random() * 40);
      expectSameAsCountTokens(`generated text #${run}: ${JSON.stringify(text)}`, text, sliceChars);
    }
  });

  it('on 100 generated texts, agreeing with js-tiktoken too', () => {
    const random = seededRandom(7);
    for (let run = 0; run < 100; run += 1) {
      const text = generatedText(random, 200);
      const counted = countTokensStoppable(text, { shouldStop: never, sliceChars: 1 + (run % 17) });
      expect(counted, JSON.stringify(text)).toBe(referenceCount(text));
    }
  });

  it.each([
    ['a run of "a"', 'a'.repeat(3000)],
    ['a run of spaces before a word', `${' '.repeat(3000)}word`],
    ['a run of spaces at the end', `word${' '.repeat(3000)}`],
    ['spaces between digits', '1  2   3    4'.repeat(300)],
    ['a run of "-"', '-'.repeat(2000)],
    ['a run of "é"', 'é'.repeat(1500)],
    ['BOM runs', '\uFEFF'.repeat(500) + 'x\uFEFFy '.repeat(300)],
    ['emoji', '😀👍🏽👨‍👩‍👧🇫🇷 '.repeat(300)],
    ['endoftext', 'before <|endoftext|> after<|endoftext|>'.repeat(200)],
    ['newlines and slashes', '}\n/\n//a\r\n\r\n  /x'.repeat(300)],
    ['CJK without spaces', '日本語のテキストです。漢字を混ぜた文章'.repeat(200)],
  ])('%s', (label, text) => {
    for (const sliceChars of [1, 2, 7, 64, 1000]) expectSameAsCountTokens(label, text, sliceChars);
  });

  it('on the real catalogs and the 424 KB pulls payload, slices of 64, 4,096 and the default', () => {
    const texts: Array<[string, string]> = [
      ['pulls body', readFileSync(PULLS_BODY, 'utf8')],
      ...readdirSync(CATALOGS)
        .filter((name) => name.endsWith('.tools.json'))
        .map((name): [string, string] => [name, readFileSync(`${CATALOGS}${name}`, 'utf8')]),
    ];
    for (const [label, text] of texts) {
      for (const sliceChars of [64, 4096, COUNT_SLICE_CHARS]) expectSameAsCountTokens(label, text, sliceChars);
    }
  });
});

describe('stopping', () => {
  const payload = readFileSync(PULLS_BODY, 'utf8');

  it('asks between slices and returns undefined once told to stop', () => {
    let asked = 0;
    const stopAtThird = (): boolean => ++asked >= 3;
    expect(countTokensStoppable(payload, { shouldStop: stopAtThird, sliceChars: 4096 })).toBeUndefined();
    expect(asked).toBe(3);
  });

  it('asks once for a text of at most one slice, and counts it in one go', () => {
    let asked = 0;
    expect(countTokensStoppable('a short description', { shouldStop: () => (asked += 1) < 0 })).toBe(countTokens('a short description'));
    expect(asked).toBe(1);
    expect(countTokensStoppable('a short description', { shouldStop: () => true })).toBeUndefined();
  });

  it('asks inside one long piece, which no slice boundary can cut', () => {
    // 300,000 CJK ideographs are a single pre-tokenizer piece: one BPE job of seconds.
    let text = '';
    for (let n = 0; n < 300_000; n += 1) text += String.fromCharCode(0x4e00 + ((n * 7919) % 20_000));
    let asked = 0;
    expect(countTokensStoppable(text, { shouldStop: () => (asked += 1) < 0 })).toBe(countTokens(text));
    // Once before, then while merging (every 65,536 merges of its ~900,000 bytes), then after.
    expect(asked).toBeGreaterThan(5);
    asked = 0;
    expect(countTokensStoppable(text, { shouldStop: () => ++asked >= 2 })).toBeUndefined();
    expect(asked).toBe(2);
  });

  it('refuses a slice size that is not a positive integer', () => {
    for (const sliceChars of [0, -1, 1.5, Number.NaN]) {
      expect(() => countTokensStoppable('abc', { shouldStop: never, sliceChars })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });
});
