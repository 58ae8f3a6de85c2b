// The token figures of methodology mcpctx-catalog/v1, with no Node module on the way: `catalogCost`
// (the CLI's measure and verify) adds the hash and byte length with node:crypto, and the site's
// in-browser verify (src/results/site/browser) adds them with SubtleCrypto, so both count with
// this code.
import { McpctxError } from '../errors/index.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json/index.js';
import { canonicalJson } from '../tokens/index.js';

/** The methodology every figure here follows; a record naming another is not re-derived by this code. */
export const METHODOLOGY = 'mcpctx-catalog/v1';

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

export interface CatalogTokens {
  /** `JSON.stringify(tools)`: the text counted, hashed and measured in bytes. */
  canonical: string;
  totalTokens: number;
  toolCount: number;
  perTool: ToolCost[];
  sessionStart: SessionStartLoad;
}

/**
 * Every token figure of the catalog `tools` (every page's array concatenated in server order,
 * exactly as parsed) and the server's `instructions`, each text counted by `count`. A catalog
 * nested deeper than MAX_JSON_DEPTH is refused (`NESTING_TOO_DEEP`) before anything recursive
 * touches it. Whatever `count` throws goes through (a stopped count).
 */
export function catalogTokens(tools: readonly unknown[], instructions: string | null, count: (text: string) => number): CatalogTokens {
  if (nestsDeeperThan(tools)) {
    throw new McpctxError('NESTING_TOO_DEEP', `the tool catalog nests deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH); refused`, {
      limit: MAX_JSON_DEPTH,
      what: 'the tool catalog',
    });
  }
  const canonical = canonicalJson(tools);
  const totalTokens = count(canonical);
  const perTool = tools.map((tool) => toolCost(tool, count));
  const namesTokens = count(canonicalJson(perTool.map((tool) => tool.name)));
  const instructionsTokens = instructions === null ? 0 : count(instructions);
  return {
    canonical,
    totalTokens,
    toolCount: tools.length,
    perTool,
    sessionStart: { namesTokens, instructionsTokens, total: namesTokens + instructionsTokens },
  };
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
