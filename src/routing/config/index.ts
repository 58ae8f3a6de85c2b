// The routing config and the tools it names: parsing with every problem collected, loading from catalog files, inline lists or an MCP server.
export {
  DEFAULT_BM25_MIN_SCORE,
  DEFAULT_RECALL_AT,
  DEFAULT_SIZES,
  DEFAULT_TOP_K,
  MAX_CATALOG_SIZE,
  MAX_CONFIG_BYTES,
  MAX_REQUESTS,
  MAX_ROUTING_REPEAT,
  NO_TOOL,
  invalidConfig,
  loadRoutingConfig,
  parseRoutingConfig,
  type ConfigProblem,
} from './_config.js';
export { MAX_CATALOG_FILE_BYTES, MAX_SOURCE_TOOLS, loadRoutingTools, toolsOfCatalog } from './_tools.js';
