// `mcpctx/host/ai-sdk`: the host rules in the Vercel AI SDK (`ai` 7). shapeMcpTools gives the
// tools of an MCP client a toModelOutput that hands the model the shaped result (the app keeps the
// whole one) and adds read_result; pruneToolResults is a prepareStep that keeps older tool
// results under an o200k token budget. The only entry that imports `ai`: mcpctx/host never does.
export { shapeMcpTools, type AiSdkShapedReport, type ReadResultInput, type ShapeMcpToolsOptions } from './_mcp-tools.js';
export { pruneToolResults, type PruneToolResultsOptions, type PrunedToolResult } from './_prune.js';
