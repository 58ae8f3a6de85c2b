import { canonicalJson, countTokens, sha256Hex } from '../tokens/index.js';

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

/**
 * Methodology mcpctx-catalog/v1: the o200k_base count of `JSON.stringify(tools)`, `tools` being
 * every page's array concatenated in server order exactly as parsed.
 */
export function catalogCost(tools: readonly unknown[], instructions: string | null): CatalogCost {
  const canonical = canonicalJson(tools);
  const perTool = tools.map(toolCost);
  const namesTokens = countTokens(canonicalJson(perTool.map((tool) => tool.name)));
  const instructionsTokens = instructions === null ? 0 : countTokens(instructions);
  return {
    totalTokens: countTokens(canonical),
    toolCount: tools.length,
    canonicalSha256: sha256Hex(canonical),
    canonicalBytes: Buffer.byteLength(canonical, 'utf8'),
    perTool,
    sessionStart: { namesTokens, instructionsTokens, total: namesTokens + instructionsTokens },
  };
}

function toolCost(tool: unknown): ToolCost {
  const fields = (typeof tool === 'object' && tool !== null ? tool : {}) as Record<string, unknown>;
  const cost: ToolCost = {
    name: typeof fields.name === 'string' ? fields.name : String(fields.name),
    tokens: countTokens(canonicalJson(tool)),
    descriptionTokens: typeof fields.description === 'string' ? countTokens(fields.description) : 0,
    inputSchemaTokens: fields.inputSchema === undefined ? 0 : countTokens(canonicalJson(fields.inputSchema)),
  };
  if (fields.outputSchema !== undefined) cost.outputSchemaTokens = countTokens(canonicalJson(fields.outputSchema));
  return cost;
}
