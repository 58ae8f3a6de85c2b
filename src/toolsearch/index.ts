/**
 * mcpctx/toolsearch: BM25 ranking of tool definitions, one module for the gateway's `search_tools`
 * and the routing experiment's retrieval. Pure: no I/O, no Node built-ins.
 */
export {
  MAX_QUERY_CHARS,
  ToolIndex,
  type SearchableTool,
  type ToolIndexOptions,
  type ToolMatch,
  type ToolSearchOptions,
} from './_tool-index.js';
export { toolTerms } from './_terms.js';
