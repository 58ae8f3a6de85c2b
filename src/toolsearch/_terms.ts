/**
 * The words of a tool's text and of a query, and how each word is normalized before BM25 sees it.
 * Index and query go through the same two steps (`toolTerms`, then `searchTerms`), so whatever a
 * step does to a word it does on both sides.
 */

import { VOCABULARY } from './_vocabulary.js';

// Runs of letters and digits (any script); everything else (`_ - . / :` space, punctuation) separates.
const WORD = /[\p{L}\p{N}]+/gu;
// Case boundaries inside a run: `getFile` → get|File, `sha256Hex` → sha256|Hex, `HTMLParser` →
// HTML|Parser, but an acronym's plural stays whole (`PRs`, `URLs`). Digits stay attached to what
// precedes them (`o200k`, `sha256`, `v2`): they are usually part of one identifier.
const CASE_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})(?!\p{Lu}s(?:$|\p{Lu}|\p{N}))/u;

/**
 * The tokenizer: splits on `_ - . /`, spaces and punctuation, and on camelCase / PascalCase
 * boundaries; lowercases; keeps digits. `list_pull_requests` → list pull requests,
 * `getFileContents` → get file contents, `HTMLParser2` → html parser2, `PRs` → prs.
 */
export function toolTerms(text: string): string[] {
  return splitTerms(text, false);
}

/**
 * `toolTerms`, plus each mixed-case word whole: prose writes `JavaScript` and `GitHub` where a
 * query says "javascript", and a query may name a tool `getFileContents` in one word.
 */
export function indexTerms(text: string): string[] {
  return splitTerms(text, true);
}

function splitTerms(text: string, keepWhole: boolean): string[] {
  const terms: string[] = [];
  for (const [run] of text.matchAll(WORD)) {
    const parts = run.split(CASE_BOUNDARY);
    for (const part of parts) terms.push(part.toLowerCase());
    if (keepWhole && parts.length > 1) terms.push(run.toLowerCase());
  }
  return terms;
}

// Words that say nothing about which tool fits. Without them a query such as "bake a chocolate
// cake" would match every description that contains "a". Kept small on purpose: domain words
// ("get", "list", "file") are signal.
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been but by can could do does did for from had has have how i if in into is it its ' +
    'me my of on or our should so than that the their them then there these this those to was we were what ' +
    'when where which while who will with would you your please want need'
  ).split(' '),
);

// Abbreviations developers type for words tool catalogs spell out. Expanded on both sides, so a
// parameter named `repo` and a query saying "PR" meet the descriptions' "repository" and "pull request".
const ABBREVIATIONS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ['repo', ['repository']],
  ['repos', ['repository']],
  ['pr', ['pull', 'request']],
  ['prs', ['pull', 'request']],
  ['dir', ['directory']],
  ['dirs', ['directory']],
  ['info', ['information']],
  ['config', ['configuration']],
  ['env', ['environment']],
  ['msg', ['message']],
  ['img', ['image']],
  ['doc', ['document']],
  ['docs', ['document']],
  ['param', ['parameter']],
  ['params', ['parameter']],
]);

const VOWEL = /[aeiouy]/;

/** Undo a doubled final consonant left by a suffix: `stopp` → stop, `runn` → run (not `pull`, `pass`). */
function undouble(stem: string): string {
  const last = stem.at(-1);
  return last !== undefined && stem.at(-2) === last && !'lsz'.includes(last) && !VOWEL.test(last) ? stem.slice(0, -1) : stem;
}

/**
 * Light stemming, so inflections of one word meet: plural -s/-es/-ies, -ing, -ed, and a final -e
 * (`create`, `creates`, `created`, `creating` → creat; `repositories`, `repository` → repository;
 * `branches` → branch). Conservative: a stem keeps at least three letters and a vowel, and words
 * in -ss, -us, -is keep their s. The stems are index keys, not words anyone reads.
 */
export function stem(term: string): string {
  if (term.length <= 3 || /\d/.test(term)) return term;
  let word = term;
  if (word.endsWith('ies') && word.length > 4) word = `${word.slice(0, -3)}y`;
  else if (word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) word = word.slice(0, -1);
  else if (word.endsWith('ing') && word.length >= 6 && VOWEL.test(word.slice(0, -3))) word = undouble(word.slice(0, -3));
  else if (word.endsWith('ed') && word.length >= 5 && VOWEL.test(word.slice(0, -2))) word = undouble(word.slice(0, -2));
  if (word.endsWith('e') && word.length >= 5) word = word.slice(0, -1);
  return word;
}

/** One word from `toolTerms` as BM25 indexes and queries it: no stop words, abbreviations expanded, stemmed. */
export function searchTerms(term: string): string[] {
  if (STOP_WORDS.has(term)) return [];
  const expanded = ABBREVIATIONS.get(term) ?? [term];
  return expanded.map(stem);
}

/** How much a bridged word's match counts against a typed word's (see `_vocabulary.ts`). */
export const SYNONYM_WEIGHT = 0.4;
/** A phrase ("sign off", "bug report") says more than one of its words, so its concepts weigh more. */
export const PHRASE_WEIGHT = 0.6;

interface Bridge {
  /** The everyday words, stemmed, in order: one for a word, more for a phrase. */
  readonly words: readonly string[];
  /** The search terms of the concepts it stands for. */
  readonly terms: readonly string[];
}

// Everyday words and phrases keyed by their first stemmed word; all that match fire. Built once: the
// vocabulary is fixed, so what any one query word can add is bounded by it.
const BRIDGES: ReadonlyMap<string, readonly Bridge[]> = buildBridges(VOCABULARY);

function buildBridges(vocabulary: Readonly<Record<string, readonly string[]>>): Map<string, Bridge[]> {
  const byWords = new Map<string, { words: string[]; terms: Set<string> }>();
  for (const [concept, everyday] of Object.entries(vocabulary)) {
    const terms = toolTerms(concept).flatMap(searchTerms);
    for (const phrase of everyday) {
      const words = toolTerms(phrase).map(stem);
      // A lone stop word would fire on every query; the vocabulary test keeps such entries out.
      if (words.length === 0 || (words.length === 1 && STOP_WORDS.has(toolTerms(phrase)[0]!))) continue;
      const key = words.join(' ');
      const bridge = byWords.get(key) ?? { words, terms: new Set<string>() };
      for (const term of terms) bridge.terms.add(term);
      byWords.set(key, bridge);
    }
  }
  const bridges = new Map<string, Bridge[]>();
  for (const { words, terms } of byWords.values()) {
    const first = words[0]!;
    bridges.set(first, [...(bridges.get(first) ?? []), { words, terms: [...terms] }]);
  }
  return bridges;
}

/**
 * A query's search words, each once, with its weight: 1 for what was typed; for the catalog words
 * the vocabulary bridges the typed words and phrases to, less (`SYNONYM_WEIGHT` for a word,
 * `PHRASE_WEIGHT` for a phrase), so the words typed still decide between tools that have them.
 * `typed` counts the terms typed, the ones a query's size is judged by. `bridge: false` leaves
 * the vocabulary out (typed words only).
 */
export function queryTerms(query: string, bridge: boolean): { weights: Map<string, number>; typed: number } {
  const weights = new Map<string, number>();
  const words = toolTerms(query);
  for (const word of words) for (const term of searchTerms(word)) weights.set(term, 1);
  const typed = weights.size;
  if (!bridge) return { weights, typed };
  const stems = words.map(stem);
  for (const [position, first] of stems.entries()) {
    for (const entry of BRIDGES.get(first) ?? []) {
      if (!entry.words.every((word, offset) => stems[position + offset] === word)) continue;
      const weight = entry.words.length > 1 ? PHRASE_WEIGHT : SYNONYM_WEIGHT;
      for (const term of entry.terms) weights.set(term, Math.max(weights.get(term) ?? 0, weight));
    }
  }
  return { weights, typed };
}
