import { countTokens } from '../tokens/index.js';
import { conditionTools } from './_catalogs.js';
import { renderedCatalog } from './_protocols.js';
import type { Condition, DistractorKind, RoutingTools } from './_types.js';

/** What a condition's whole catalog costs in o200k tokens, as the native tools field and as the constrained listing. */
export interface CatalogCost {
  readonly kind: DistractorKind;
  readonly size: number;
  readonly nativeTokens: number;
  readonly constrainedTokens: number;
  readonly nativeTokensPerTool: number;
  readonly constrainedTokensPerTool: number;
}

/** Counted on the condition's tools in one fixed order (domain first, then distractors as taken). */
export function catalogCosts(conditions: readonly Condition[], tools: RoutingTools): CatalogCost[] {
  return conditions.map((condition) => {
    const offered = conditionTools(condition, tools);
    const nativeTokens = countTokens(renderedCatalog('native', offered));
    const constrainedTokens = countTokens(renderedCatalog('constrained', offered));
    const perTool = (tokens: number): number => (offered.length === 0 ? 0 : Math.round((tokens / offered.length) * 10) / 10);
    return {
      kind: condition.kind,
      size: condition.size,
      nativeTokens,
      constrainedTokens,
      nativeTokensPerTool: perTool(nativeTokens),
      constrainedTokensPerTool: perTool(constrainedTokens),
    };
  });
}
