import { McpctxError } from '../errors/index.js';
import { canonicalJson, countTokens, countTokensStoppable, sha256Hex } from '../tokens/index.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json/index.js';

export interface ToolCost {
  name: string;
  /** Tokens of `JSON.stringify(tool)`: the tool as the model receives it. */
  tokens: number;
  /** Tokens of the description text itself (0 when there is none). */
  descriptionTokens: number;
  /** Tokens of `JSON.stringify(inputSchema)` (0 when there is none). */
  inputSchemaTokens: number;
  /** Tokens of `JSON.stringify(outputSchema)`, only when the tool has one. */
  outputSchemaTokens?: number;
}

export interface SessionStartLoad {
  /** Tokens of `JSON.stringify` of the array of tool names. */
  namesTokens: number;
  /** Tokens of the server's `instructions` text (0 when there is none). */
  instructionsTokens: number;
  total: number;
}

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
 * every page's array concatenated in server order exactly as parsed. A catalog nested deeper than
 * MAX_JSON_DEPTH is refused (`NESTING_TOO_DEEP`) before anything recursive touches it. With
 * `shouldStop`, the counting can be ended (a deadline): the result is then `undefined`.
 */
export function catalogCost(tools: readonly unknown[], instructions: string | null): CatalogCost;
export function catalogCost(tools: readonly unknown[], instructions: string | null, options: CatalogCostOptions): CatalogCost | undefined;
export function catalogCost(tools: readonly unknown[], instructions: string | null, options?: CatalogCostOptions): CatalogCost | undefined {
  refuseDeepNesting(tools, 'the tool catalog');
  const stopped = Symbol('stopped');
  const count = (text: string): number => {
    if (!options) return countTokens(text);
    const tokens = countTokensStoppable(text, options);
    if (tokens === undefined) throw stopped;
    return tokens;
  };
  try {
    const canonical = canonicalJson(tools);
    const totalTokens = count(canonical);
    const perTool = tools.map((tool) => toolCost(tool, count));
    const namesTokens = count(canonicalJson(perTool.map((tool) => tool.name)));
    const cost: CatalogCost = {
      totalTokens,
      toolCount: tools.length,
      canonicalSha256: sha256Hex(canonical),
      canonicalBytes: Buffer.byteLength(canonical, 'utf8'),
      perTool,
      sessionStart: { namesTokens, instructionsTokens: 0, total: namesTokens },
    };
    if (instructions === null) return cost;
    const instructionsTokens = count(instructions);
    return { ...cost, sessionStart: { namesTokens, instructionsTokens, total: namesTokens + instructionsTokens } };
  } catch (error) {
    if (error === stopped) return undefined;
    throw error;
  }
}

/** Throws `NESTING_TOO_DEEP`, naming `what` and the bound, for a value nested deeper than MAX_JSON_DEPTH. */
function refuseDeepNesting(value: unknown, what: string): void {
  if (nestsDeeperThan(value)) throw nestingError(what);
}

function nestingError(what: string): McpctxError {
  return new McpctxError('NESTING_TOO_DEEP', `${what} nests deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH); refused`, {
    limit: MAX_JSON_DEPTH,
    what,
  });
}

function toolCost(tool: unknown, count: (text: string) => number): ToolCost {
  const fields = (typeof tool === 'object' && tool !== null ? tool : {}) as Record<string, unknown>;
  const cost: ToolCost = {
    name: typeof fields.name === 'string' ? fields.name : String(fields.name),
    tokens: count(canonicalJson(tool)),
    descriptionTokens: typeof fields.description === 'string' ? count(fields.description) : 0,
    inputSchemaTokens: fields.inputSchema === undefined ? 0 : count(canonicalJson(fields.inputSchema)),
  };
  if (fields.outputSchema !== undefined) cost.outputSchemaTokens = count(canonicalJson(fields.outputSchema));
  return cost;
}
