// `mcpctx/host/langchain`: the host's result rules in LangChain.js through @langchain/mcp-adapters.
// `shapingHooks(shaper)` is MultiServerMCPClient's `afterToolCall`: each MCP tool result is shaped
// by the rules before its ToolMessage is made; `readResultTool(shaper)` is read_result as a
// LangChain tool for the agent. The only entry that imports LangChain (optional peers).
export { shapingHooks, type AfterToolCall, type ShapedCallReport, type ShapingHooksOptions } from './_shaping-hooks.js';
export { readResultTool } from './_read-result-tool.js';
