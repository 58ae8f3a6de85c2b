// The catalog the client sees: namespaced names, per-tool rules on definitions, search_tools.
export { buildCatalog, catalogChanges, type Catalog, type CatalogTool, type UpstreamTools } from './_catalog.js';
export { applyToolRules, capTextTokens, listsWithoutOutputSchema, type ToolChange } from './_tool-rules.js';
export { SEARCH_TOOL_NAME, searchToolDefinition, searchToolResult } from './_search-tool.js';
