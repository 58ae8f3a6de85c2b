/**
 * mcpctx/toolsearch: BM25 ranking of tool definitions, one module for the gateway's `search_tools`
 * and the routing experiment's retrieval. Pure: no I/O, no Node built-ins.
 */
export {
  DEFAULT_MIN_SCORE,
  DEFAULT_SEARCH_LIMIT,
  MAX_FIELD_CHARS,
  MAX_QUERY_CHARS,
  MAX_QUERY_TERMS,
  ToolIndex,
  type SearchableTool,
  type ToolIndexOptions,
  type ToolMatch,
  type ToolSearchOptions,
} from './_tool-index.js';
export { MAX_PARAMETER_NAMES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from './_parameter-names.js';
export { toolTerms } from './_terms.js';
