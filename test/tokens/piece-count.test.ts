// countTokens counts piece by piece and remembers short pieces (src/tokens/_piece-count.ts): the
// memo must never change a count, whether a piece is remembered, new, or was dropped when the memo
// filled up. js-tiktoken is the independent reference, as in tokens.test.ts.
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../src/tokens/index.js';
import { pieceEnd } from '../../src/tokens/_exact-bpe.js';

const reference = getEncoding('o200k_base');
const referenceCount = (text: string): number => reference.encode(text, [], []).length;

/** 0 -> "a", 25 -> "z", 26 -> "ba": a distinct lower-case word per number. */
function lettersOf(index: number): string {
  let word = '';
  let rest = index;
  do {
    word = String.fromCharCode(97 + (rest % 26)) + word;
    rest = Math.floor(rest / 26);
  } while (rest > 0);
  return word;
}

describe('counting by remembered pieces', () => {
  it('gives the same count the first time and every later time', () => {
    const text = 'const retryLease = await leases.renew(tenantId, { timeoutMs: 1500 });\n'.repeat(20);
    const first = countTokens(text);
    expect(first).toBe(referenceCount(text));
    expect(countTokens(text)).toBe(first);
    expect(countTokens(`${text}${text}`)).toBe(referenceCount(`${text}${text}`));
  });

  it('stays exact after the memo fills and is cleared (over 131,072 distinct short pieces)', () => {
    // Letters only, so that each word is one piece: 200,000 distinct pieces.
    const words = Array.from({ length: 200_000 }, (_, index) => ` zq${lettersOf(index)}`);
    const text = words.join('');
    expect(countTokens(text)).toBe(referenceCount(text));
    // Pieces seen before the clear and after it, in one text.
    const mixed = `${words.slice(0, 500).join('')}${words.slice(199_500).join('')}`;
    expect(countTokens(mixed)).toBe(referenceCount(mixed));
  });

  it('counts long pieces (not remembered) and short ones in one text exactly', () => {
    const text = `id ${'f'.repeat(300)} sha ${'0123456789abcdef'.repeat(8)} ${'x'.repeat(48)} ${'y'.repeat(49)} end`;
    expect(countTokens(text)).toBe(referenceCount(text));
    expect(countTokens(text)).toBe(referenceCount(text));
  });

  it('counts a piece the same whatever text it first appeared in', () => {
    // " the" is one piece after a letter run and two after a newline-run boundary; both orders agree.
    for (const text of ['a the\n\n the', '\n\n the a the', ' \n \n  the', 'the\r\n\r\n  \tthe']) {
      expect(countTokens(text), JSON.stringify(text)).toBe(referenceCount(text));
    }
  });
});

// V8's regex keeps a backtracking stack as long as the piece: on a run of millions of letters in
// both of the pattern's letter classes (CJK ideographs are `Lo`) it threw RangeError, and the
// count with it (a 15 MB tool description, or a tool result).
describe('a piece too long for the regex stack', () => {
  const run = '中'.repeat(5_000_000);

  it('is read in windows of 1,048,576 characters, every character in some piece', () => {
    const ends: number[] = [];
    for (let start = 0; start < run.length; start = ends[ends.length - 1] as number) ends.push(pieceEnd(run, start));
    expect(ends[0]).toBe(1 << 20);
    expect(ends[ends.length - 1]).toBe(run.length);
  });

  it('is counted, not thrown (one token per ideograph here)', () => {
    expect(countTokens(run)).toBe(5_000_000);
  });
});
