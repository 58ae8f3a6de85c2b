/**
 * The text the instruction rules read: what a model reads once the disguise is off. Compatibility
 * forms (full-width letters, ligatures, mathematical letters) decomposed (NFKD), accents and other
 * combining marks dropped (so `précédentes` reads `precedentes` and one rule spelling fits), letters
 * of other scripts that pass for Latin ones folded (`foldLookAlikes`), and characters that render as
 * nothing removed: soft hyphens, zero-width and bidi controls, tag characters, variation selectors
 * and every other default-ignorable code point. Each character of the result remembers where it
 * came from, so an excerpt still shows the raw text.
 */
import { foldLookAlikes } from '../../../text/index.js';

export interface NormalizedText {
  text: string;
  /** Where the character at `index` of `text` starts in the raw text (`text.length` maps to its end). */
  rawIndex: (index: number) => number;
}

// Marks (combining accents, variation selectors), format characters (soft hyphen, zero-width,
// bidi, tags) and the rest of what Unicode says to render as nothing when unsupported.
const INVISIBLE = /[\p{Mn}\p{Me}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
// Fillers that render as a blank (Hangul fillers, the blank Braille pattern): a space, not nothing,
// or two words written with one between them would run together.
const BLANK_FILLERS = /[\u115F\u1160\u2800\u3164\uFFA0]/u;
// Text that needs none of this: the common case, kept on a fast path with raw offsets as they are.
// eslint-disable-next-line no-control-regex -- plain ASCII, controls included
const PLAIN = /^[\u0000-\u007f]*$/;

// A code point folds the same way every time: remember the ones met (few distinct ones per catalog).
const FOLDED = new Map<string, string>();
const MAX_REMEMBERED = 4_096;

function foldCodePoint(char: string): string {
  const known = FOLDED.get(char);
  if (known !== undefined) return known;
  const folded = BLANK_FILLERS.test(char) ? ' ' : foldLookAlikes(char.normalize('NFKD').replace(INVISIBLE, ''));
  if (FOLDED.size >= MAX_REMEMBERED) FOLDED.clear();
  FOLDED.set(char, folded);
  return folded;
}

// eslint-disable-next-line no-control-regex -- everything but ASCII, controls included
const NON_ASCII = /[^\u0000-\u007f]/gu;

/** `raw` as the instruction rules read it, with the way back to raw offsets. */
export function normalizeForMatching(raw: string): NormalizedText {
  if (PLAIN.test(raw)) return { text: raw, rawIndex: (index) => index };
  // One entry per non-ASCII code point, in order: where its folded form starts in `text` and in
  // `raw`, and how long each is. ASCII between two entries is copied as it is.
  const textStarts: number[] = [];
  const rawStarts: number[] = [];
  const textLengths: number[] = [];
  const rawLengths: number[] = [];
  let shift = 0;
  const text = raw.replace(NON_ASCII, (char: string, offset: number) => {
    const folded = foldCodePoint(char);
    textStarts.push(offset + shift);
    rawStarts.push(offset);
    textLengths.push(folded.length);
    rawLengths.push(char.length);
    shift += folded.length - char.length;
    return folded;
  });
  const rawIndex = (index: number): number => {
    // The last folded code point that starts at or before `index`.
    let low = 0;
    let high = textStarts.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if ((textStarts[middle] as number) <= index) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    if (found < 0) return index;
    const textStart = textStarts[found] as number;
    const rawStart = rawStarts[found] as number;
    const textLength = textLengths[found] as number;
    if (index < textStart + textLength) return rawStart;
    return rawStart + (rawLengths[found] as number) + (index - textStart - textLength);
  };
  return { text, rawIndex };
}
