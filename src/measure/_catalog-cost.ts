import { countTokens, countTokensStoppable, sha256Hex } from '../tokens/index.js';
import { catalogTokens, type SessionStartLoad, type ToolCost } from './_catalog-tokens.js';

export type { SessionStartLoad, ToolCost };

export interface CatalogCost {
  totalTokens: number;
  toolCount: number;
  canonicalSha256: string;
  canonicalBytes: number;
  perTool: ToolCost[];
  sessionStart: SessionStartLoad;
}

export interface CatalogCostOptions {
  /** Asked between slices of the counting; `true` stops it and the result is `undefined`. */
  shouldStop: () => boolean;
}

/**
 * Methodology mcpctx-catalog/v1: the o200k_base count of `JSON.stringify(tools)`, `tools` being
 * every page's array concatenated in server order exactly as parsed, with its sha256 and UTF-8
 * length (the token figures come from `catalogTokens`). A catalog nested deeper than
 * MAX_JSON_DEPTH is refused (`NESTING_TOO_DEEP`) before anything recursive touches it. With
 * `shouldStop`, the counting can be ended (a deadline): the result is then `undefined`.
 */
export function catalogCost(tools: readonly unknown[], instructions: string | null): CatalogCost;
export function catalogCost(tools: readonly unknown[], instructions: string | null, options: CatalogCostOptions): CatalogCost | undefined;
export function catalogCost(tools: readonly unknown[], instructions: string | null, options?: CatalogCostOptions): CatalogCost | undefined {
  const stopped = Symbol('stopped');
  const count = (text: string): number => {
    if (!options) return countTokens(text);
    const tokens = countTokensStoppable(text, options);
    if (tokens === undefined) throw stopped;
    return tokens;
  };
  try {
    const { canonical, totalTokens, toolCount, perTool, sessionStart } = catalogTokens(tools, instructions, count);
    return {
      totalTokens,
      toolCount,
      canonicalSha256: sha256Hex(canonical),
      canonicalBytes: Buffer.byteLength(canonical, 'utf8'),
      perTool,
      sessionStart,
    };
  } catch (error) {
    if (error === stopped) return undefined;
    throw error;
  }
}
