import { ToolIndex, toolTerms } from '../../toolsearch/index.js';
import type { DistractorKind, RoutingTool } from '../_types.js';

/**
 * Ranks a catalog's tools for a request. Each retriever is one way of choosing which tools to
 * offer; recall@k says how often the right tool is among the first k it ranks, and that recall
 * is the ceiling of any model offered only those k.
 */
export interface Retriever {
  readonly name: string;
  /**
   * Tool names best first; a tool the retriever finds nothing for may be left out: the run puts
   * it after the ones ranked (see `completeRanking`), so k tools are always offered.
   */
  rank(query: string, tools: readonly RoutingTool[]): Promise<string[]>;
  /** The vectors it ranked with, by text (an embeddings retriever): kept so verify can rank again. */
  embedded?(): EmbeddedText[];
}

/** One text an embeddings retriever embedded, and the vector the endpoint gave it. */
export interface EmbeddedText {
  readonly text: string;
  readonly vector: readonly number[];
}

/**
 * A whole ranking of a catalog: the retriever's own (names of the catalog, each once), then every
 * tool it left out, in the request's seeded catalog order. That order favours no tool, domain or
 * distractor, so offering k tools never hands the right one over for free. `matched` is how many
 * came from the retriever itself.
 */
export function completeRanking(ranked: readonly string[], catalogOrder: readonly string[]): { ranking: string[]; matched: number } {
  const inCatalog = new Set(catalogOrder);
  const ranking: string[] = [];
  for (const name of ranked) if (inCatalog.has(name) && !ranking.includes(name)) ranking.push(name);
  const matched = ranking.length;
  const taken = new Set(ranking);
  for (const name of catalogOrder) if (!taken.has(name)) ranking.push(name);
  return { ranking, matched };
}

/**
 * BM25 through the gateway's own `ToolIndex` (names split on `_`, `-` and case, title,
 * description, parameter names), so what routing measures is what `search_tools` serves. One
 * index per tool list, reused for every request of a condition: the index sorts the tools by name
 * itself, so a request's own order cannot change a score.
 */
export function bm25Retriever(options: { vocabulary: boolean; minScore: number }): Retriever {
  const indexes = new WeakMap<readonly RoutingTool[], ToolIndex>();
  return {
    name: 'bm25',
    rank(query, tools) {
      if (tools.length === 0) return Promise.resolve([]);
      let index = indexes.get(tools);
      if (!index) {
        index = new ToolIndex(tools, { vocabulary: options.vocabulary, minScore: options.minScore });
        indexes.set(tools, index);
      }
      return Promise.resolve(bm25Ranking(index, query));
    },
  };
}

/** The tools an index matches for a query, best first: what the bm25 retriever ranks, and what verify re-ranks. */
export function bm25Ranking(index: ToolIndex, query: string): string[] {
  return index.size === 0 ? [] : index.search(query, { limit: index.size }).map((match) => match.name);
}

/** The text an embedding model reads for a tool: its name as words, its title and its description. */
export function toolText(tool: RoutingTool): string {
  return [toolTerms(tool.name).join(' '), tool.title, tool.description].filter((part) => part !== undefined && part !== '').join('. ');
}

/** Where one request's right tool came in one retriever's ranking of one condition. */
export interface RetrievalRow {
  readonly retriever: string;
  readonly kind: DistractorKind;
  readonly size: number;
  readonly requestId: string;
  /** The right tool, or null for a request that needs none (left out of recall). */
  readonly expected: string | null;
  /** The first tools of the whole ranking (as many as the largest k or the retrieval protocol's top k, at most the catalog). */
  readonly top: readonly string[];
  /** How many of the ranking's tools the retriever ranked itself; the rest follow in the request's catalog order. */
  readonly matched: number;
  /** 1-based position of the right tool in the whole ranking; null when no tool is right. */
  readonly rank: number | null;
}

/** Recall@k of one retriever in one condition. */
export interface RecallCell {
  readonly retriever: string;
  readonly kind: DistractorKind;
  readonly size: number;
  /** Requests with a right tool (the denominator); requests that need none are not counted. */
  readonly requests: number;
  /** For each k: requests whose right tool was within the first k. */
  readonly hits: ReadonlyArray<{ readonly k: number; readonly hits: number; readonly recall: number | null }>;
}

/** Recall@k per retriever, kind and size, computed from the rows alone (the receipt's verify recomputes it so). */
export function recallTable(rows: readonly RetrievalRow[], recallAt: readonly number[]): RecallCell[] {
  const groups = new Map<string, RetrievalRow[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.retriever, row.kind, row.size]);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const cells: RecallCell[] = [];
  for (const group of groups.values()) {
    const first = group[0]!;
    const scored = group.filter((row) => row.expected !== null);
    cells.push({
      retriever: first.retriever,
      kind: first.kind,
      size: first.size,
      requests: scored.length,
      hits: recallAt.map((k) => {
        const hits = scored.filter((row) => row.rank !== null && row.rank <= k).length;
        return { k, hits, recall: scored.length === 0 ? null : round(hits / scored.length) };
      }),
    });
  }
  return cells;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
