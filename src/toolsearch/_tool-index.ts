import type MiniSearch from 'minisearch';
import { McpctxError } from '../errors/index.js';
import { lazyRequire } from '../lazy/index.js';
import { schemaWords } from './_parameter-names.js';
import { indexTerms, queryTerms, searchTerms } from './_terms.js';

/** Loaded when the first index is built: a gateway without search_tools never needs it. */
const miniSearch = lazyRequire<typeof MiniSearch>('minisearch');

/** What the index reads of a tool: an MCP `Tool` fits as it is. */
export interface SearchableTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly title?: string;
  /** MCP puts a display title here too; read when `title` is absent. */
  readonly annotations?: { readonly title?: string };
}

export interface ToolMatch {
  readonly name: string;
  /**
   * BM25 score in units of one rare word: the field-boosted BM25 sum (minisearch, times the number
   * of query words the tool matched), divided by the weight a word found in only one tool has in
   * this catalog. So ~1.5 is one distinctive word in a description, ~4.5 one in a name, whatever
   * the catalog's size. Rounded to 4 decimals.
   */
  readonly score: number;
}

export interface ToolIndexOptions {
  /** Matches scoring below this are not returned; default `DEFAULT_MIN_SCORE`. */
  minScore?: number;
  /**
   * Also search for the catalog words that everyday words in the query stand for ("inbox" →
   * notification, "sign off" → approve), at a reduced weight; default true. False searches the
   * words typed only (catalogs in another language, or an experiment without the bridge).
   */
  vocabulary?: boolean;
}

export interface ToolSearchOptions {
  /** Most matches returned; default `DEFAULT_SEARCH_LIMIT`. */
  limit?: number;
}

/**
 * Default score floor (see `ToolMatch.score`): a tool must match at least one query word as a
 * whole word in its description, or better. What only matches by prefix, by a synonym, in a
 * parameter's description, or through a word most tools share, falls below, so a query about
 * something else ("bake a chocolate cake", "translate this into French") finds no tool.
 */
export const DEFAULT_MIN_SCORE = 1;
export const DEFAULT_SEARCH_LIMIT = 10;
/** Characters of one field (name, title, description) that are indexed; the rest is not searched. */
export const MAX_FIELD_CHARS = 16_384;
/** Longest query accepted, in characters, and most distinct words in it after normalization. */
export const MAX_QUERY_CHARS = 4_096;
export const MAX_QUERY_TERMS = 64;

// Where a query word is found says how much it is about the tool: a word of the name is the
// tool's verb or object, a title restates it, a description is prose; parameter names and their
// descriptions and enum values (`notes`: a consolidated tool's `method: get_diff | get_files`)
// are hints. Tuned on test/toolsearch/tuning-queries.ts.
const FIELD_BOOSTS = { name: 3, title: 2, description: 1, parameters: 0.5, notes: 0.5 } as const;
type Field = keyof typeof FIELD_BOOSTS;
const FIELDS = Object.keys(FIELD_BOOSTS) as Field[];
// A query word of this length or more also matches longer words it begins (`react` → reaction),
// at minisearch's reduced prefix weight; shorter ones matched too much by accident (`mile` → milestone).
const MIN_PREFIX_LENGTH = 5;

interface IndexedTool {
  readonly id: number;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly parameters: string;
  readonly notes: string;
}

function fieldText(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, MAX_FIELD_CHARS) : '';
}

function indexedTool(tool: SearchableTool, id: number): IndexedTool {
  const title = tool.title ?? tool.annotations?.title;
  const schema = schemaWords(tool.inputSchema);
  return {
    id,
    name: fieldText(tool.name),
    title: fieldText(title),
    description: fieldText(tool.description),
    parameters: schema.names.join(' '),
    notes: schema.notes,
  };
}

/** Code-unit order, the same in every locale (`localeCompare` is not). */
function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function invalid(message: string, data: Record<string, unknown>): McpctxError {
  return new McpctxError('INVALID_ARGUMENT', message, data);
}

/**
 * BM25 ranking of tool definitions (minisearch), over the name split into words, the title, the
 * description and the parameter names. Pure: no I/O, built once per catalog, searched many times.
 */
export class ToolIndex {
  readonly size: number;
  readonly #tools: readonly IndexedTool[];
  readonly #search: MiniSearch<IndexedTool>;
  readonly #minScore: number;
  readonly #rareWordWeight: number;
  readonly #vocabulary: boolean;
  // Each tool's name words, as searched: a query made of one tool's name words names that tool.
  readonly #nameTerms: ReadonlyArray<ReadonlySet<string>>;

  constructor(tools: readonly SearchableTool[], options: ToolIndexOptions = {}) {
    const minScore = options.minScore ?? DEFAULT_MIN_SCORE;
    if (typeof minScore !== 'number' || !Number.isFinite(minScore)) {
      throw invalid(`ToolIndex: minScore must be a finite number, got ${String(minScore)}`, { minScore });
    }
    const vocabulary = options.vocabulary ?? true;
    if (typeof vocabulary !== 'boolean') {
      throw invalid(`ToolIndex: vocabulary must be true or false, got ${String(vocabulary)}`, { vocabulary });
    }
    const seen = new Set<string>();
    for (const [position, tool] of tools.entries()) {
      if (typeof tool?.name !== 'string' || tool.name === '') {
        throw invalid(`ToolIndex: the tool at position ${position} has no name; every tool needs a non-empty string name`, { position });
      }
      if (seen.has(tool.name)) {
        throw invalid(`ToolIndex: two tools are named "${tool.name}"; names must be unique (prefix them per server)`, { name: tool.name });
      }
      seen.add(tool.name);
    }
    // Indexed in name order: BM25's running field-length averages are summed in insertion order,
    // so a fixed order makes every score bit-identical whatever order the catalog came in.
    this.#tools = [...tools].sort(byName).map(indexedTool);
    this.#minScore = minScore;
    this.size = this.#tools.length;
    this.#rareWordWeight = Math.log(1 + (this.size - 0.5) / 1.5);
    this.#vocabulary = vocabulary;
    this.#nameTerms = vocabulary ? this.#tools.map((tool) => new Set(indexTerms(tool.name).flatMap(searchTerms))) : [];
    const Index = miniSearch();
    this.#search = new Index<IndexedTool>({
      idField: 'id',
      fields: FIELDS,
      tokenize: indexTerms,
      processTerm: searchTerms,
      searchOptions: { boost: FIELD_BOOSTS, combineWith: 'OR' },
    });
    this.#search.addAll(this.#tools);
  }

  /** Top matches, best first; ties broken by name so results are deterministic; [] = no tool matches. */
  search(query: string, options: ToolSearchOptions = {}): ToolMatch[] {
    const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw invalid(`ToolIndex.search: limit must be a positive integer, got ${String(limit)}`, { limit });
    }
    if (typeof query !== 'string') throw invalid('ToolIndex.search: query must be a string', {});
    if (query.length > MAX_QUERY_CHARS) {
      throw invalid(`ToolIndex.search: the query has ${query.length} characters, at most ${MAX_QUERY_CHARS}; describe the task in a sentence`, {
        length: query.length,
        limit: MAX_QUERY_CHARS,
      });
    }
    // Judged by the words typed: what the vocabulary adds is bounded by the vocabulary itself.
    let { weights, typed } = queryTerms(query, false);
    // A query that names a tool in the catalog's own words ("read file") gets no everyday
    // meanings added: the bridge is for what the catalog does not say.
    if (this.#vocabulary && !this.#namesTool(weights)) ({ weights, typed } = queryTerms(query, true));
    if (typed > MAX_QUERY_TERMS) {
      throw invalid(`ToolIndex.search: the query has ${typed} distinct words, at most ${MAX_QUERY_TERMS}; describe the task in a sentence`, {
        terms: typed,
        limit: MAX_QUERY_TERMS,
      });
    }
    if (weights.size === 0 || this.size === 0) return [];
    // The words are already normalized: hand them over as they are, each with its weight.
    const found = this.#search.search([...weights.keys()].join(' '), {
      tokenize: (text) => text.split(' '),
      processTerm: (term) => term,
      boostTerm: (term) => weights.get(term) ?? 1,
      prefix: (term) => term.length >= MIN_PREFIX_LENGTH,
    });
    const matches: ToolMatch[] = [];
    for (const result of found) {
      const score = Math.round((result.score / this.#rareWordWeight) * 10_000) / 10_000;
      if (score >= this.#minScore) matches.push({ name: this.#tools[result.id as number]!.name, score });
    }
    matches.sort((a, b) => b.score - a.score || byName(a, b));
    return matches.slice(0, limit);
  }

  #namesTool(typed: ReadonlyMap<string, number>): boolean {
    return typed.size > 0 && this.#nameTerms.some((name) => [...typed.keys()].every((term) => name.has(term)));
  }
}
