// `mcpctx/host/openai-agents`: the host rules in an OpenAI Agents JS run. A callModelInputFilter
// shapes the tool outputs in each model input (once per call) and keeps older turns' large
// outputs behind read_result handles; readResultTool gives the Agent the tool that reads them.
// The only mcpctx entry that loads @openai/agents (an optional peer dependency).
export { shapingInputFilter, type RuledTool, type ShapedCallReport, type ShapingInputFilterOptions } from './_input-filter.js';
export { readResultTool } from './_read-result-tool.js';
