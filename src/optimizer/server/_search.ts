// search_context's ranking: BM25 over the stored fragments (minisearch), by the query alone, not
// by the task signals build_context scores with. A fragment that holds the query's phrase verbatim
// (a quoted part, or the whole query when it has several words) ranks above every one that does not.
import type MiniSearch from 'minisearch';
import { lazyRequire } from '../../lazy/index.js';
import type { Fragment, NormalizedRecord } from '../_types.js';

/** Label matches count more than text matches: a label is a path, a command, a test name. */
const LABEL_BOOST = 1.5;

interface IndexedFragment {
  id: string;
  text: string;
  label: string;
}

export interface FragmentMatch {
  fragment: Fragment;
  record: NormalizedRecord;
  /** BM25 score, plus the phrase bonus when `phrase`. */
  score: number;
  /** Whether the fragment holds one of the query's phrases verbatim (case and spacing aside). */
  phrase: boolean;
}

const WORD = /[\p{L}\p{N}_\-./]+/gu;
const SPLIT_HINT = /[_\-./]|[a-z][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z][0-9]|[0-9][A-Za-z]/;

/**
 * Words of prose and code: `parseExpression`, `src/parser.ts` and `user_id` are kept whole and
 * also split at `_ - . /` and camelCase, so `parse`, `parser` or `id` find them too. Plain
 * regular expressions and a test before splitting: this runs over every stored fragment.
 */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = trimSeparators(match[0]);
    if (word === '') continue;
    terms.push(word.toLowerCase());
    if (!SPLIT_HINT.test(word)) continue;
    const parts = word
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
      .replace(/([A-Za-z])([0-9])/g, '$1 $2')
      .replace(/([0-9])([A-Za-z])/g, '$1 $2')
      .toLowerCase()
      .split(/[\s_\-./]+/)
      .filter((part) => part !== '');
    if (parts.length > 1) for (const part of parts) terms.push(part);
  }
  return terms;
}

function trimSeparators(word: string): string {
  let start = 0;
  let end = word.length;
  while (start < end && '-./'.includes(word[start] as string)) start++;
  while (end > start && '-./'.includes(word[end - 1] as string)) end--;
  return start === 0 && end === word.length ? word : word.slice(start, end);
}

/** Lowercase, runs of whitespace as one space: how phrases are compared. */
function flat(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The quoted parts of the query; with none, the whole query when it has more than one word. */
export function queryPhrases(query: string): string[] {
  const quoted = [...query.matchAll(/"([^"]+)"|'([^']+)'|“([^”]+)”/g)].map((match) => flat(match[1] ?? match[2] ?? match[3] ?? '')).filter((phrase) => phrase !== '');
  if (quoted.length > 0) return quoted;
  const whole = flat(query);
  return whole.includes(' ') ? [whole] : [];
}

// The same CommonJS build the tool search loads (`lazyRequire`'s rule: one way per package).
const miniSearch = lazyRequire<typeof MiniSearch>('minisearch');

export class FragmentIndex {
  readonly #search = new (miniSearch())<IndexedFragment>({
    fields: ['text', 'label'],
    idField: 'id',
    tokenize: searchTerms,
    processTerm: (term) => term,
    searchOptions: { boost: { label: LABEL_BOOST } },
  });
  readonly #entries = new Map<string, { fragment: Fragment; record: NormalizedRecord; flatText: string }>();

  get size(): number {
    return this.#entries.size;
  }

  add(record: NormalizedRecord, fragments: readonly Fragment[]): void {
    for (const fragment of fragments) {
      this.#entries.set(fragment.id, { fragment, record, flatText: flat(fragment.text) });
      this.#search.add({ id: fragment.id, text: fragment.text, label: record.label });
    }
  }

  remove(fragmentIds: Iterable<string>): void {
    for (const id of fragmentIds) {
      if (!this.#entries.delete(id)) continue;
      this.#search.discard(id);
    }
  }

  /** Best first; ties broken by fragment id so the order never depends on insertion. */
  search(query: string, accept: (record: NormalizedRecord) => boolean = () => true): FragmentMatch[] {
    const phrases = queryPhrases(query);
    const matches: FragmentMatch[] = [];
    let best = 0;
    for (const hit of this.#search.search(query)) {
      const entry = this.#entries.get(hit.id as string);
      if (entry === undefined || !accept(entry.record)) continue;
      const phrase = phrases.some((text) => entry.flatText.includes(text));
      best = Math.max(best, hit.score);
      matches.push({ fragment: entry.fragment, record: entry.record, score: hit.score, phrase });
    }
    // The phrase bonus lifts every phrase match above the best match without it.
    for (const match of matches) if (match.phrase) match.score += best;
    return matches.sort((a, b) => b.score - a.score || (a.fragment.id < b.fragment.id ? -1 : a.fragment.id > b.fragment.id ? 1 : 0));
  }
}
