/**
 * Folding text so that what renders alike compares alike: compatibility forms (full-width
 * letters, ligatures) through NFKC, then letters of other scripts that render like Latin ones.
 * Shared by the shadowing check (tool names a model can take for one another), name rules and
 * the poisoning scan, so a look-alike that one of them sees through, all of them do.
 */

/**
 * Letters from other scripts (and a few Latin ones NFKC leaves alone) that render like Latin
 * ones: a small, common set, in both cases so that text keeps reading as it renders (names are
 * folded to lower case first, so only the lower-case half matters for them).
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', х: 'x', у: 'y', і: 'i', ј: 'j', ѕ: 's', һ: 'h', ԁ: 'd', ԛ: 'q', ԝ: 'w', к: 'k', м: 'm', т: 't', в: 'b', н: 'h',
  ӏ: 'l', ԍ: 'g', ѵ: 'v', ү: 'y',
  А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', Х: 'X', У: 'Y', І: 'I', Ј: 'J', Ѕ: 'S', Ԛ: 'Q', Ԝ: 'W', Ӏ: 'I', Һ: 'H', Ү: 'Y',
  // Greek
  α: 'a', ο: 'o', ρ: 'p', ν: 'v', τ: 't', υ: 'u', ι: 'i', κ: 'k', χ: 'x', ε: 'e', ϲ: 'c', ϳ: 'j',
  Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X', Ϲ: 'C',
  // Armenian
  օ: 'o', ս: 'u', հ: 'h', ո: 'n', ց: 'g', զ: 'q', Օ: 'O', Ս: 'U',
  // Latin letters without a decomposition
  ı: 'i', ȷ: 'j', ɑ: 'a', ɡ: 'g', ł: 'l', ø: 'o', đ: 'd', ħ: 'h',
};

const NAME_SEPARATORS = /[\s_.-]+/g;

/** `text` with compatibility forms and look-alike letters replaced by the Latin letters they pass for (case kept otherwise). */
export function foldLookAlikes(text: string): string {
  let out = '';
  for (const char of text.normalize('NFKC')) out += Object.hasOwn(LOOK_ALIKES, char) ? LOOK_ALIKES[char] : char;
  return out;
}

/** A name without case and separators (`_`, `-`, `.`, spaces): `List-Inbox` and `list_inbox` fold alike. */
export function foldCaseAndSeparators(name: string): string {
  return name.toLowerCase().replace(NAME_SEPARATORS, '');
}

/** The form two names share when a model could take one for the other: case, separators and look-alikes set aside. */
export function foldName(name: string): string {
  return foldLookAlikes(foldCaseAndSeparators(name.normalize('NFKC')));
}
