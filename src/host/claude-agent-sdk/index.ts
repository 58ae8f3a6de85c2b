// `mcpctx/host/claude-agent-sdk`: mcpctx/host's rules inside the Claude Agent SDK. A PostToolUse
// hook shapes MCP tool results before the model reads them, and an in-process MCP server gives
// the agent read_result for what went over the cap. The only entry that loads the SDK.
//
//   const shaper = new HostShaper({ rules: await loadHostRules('gateway.yaml') });
//   query({ prompt, options: { hooks: shapingHooks(shaper), mcpServers: { prs: ..., mcpctx: readResultServer(shaper) } } });
export { postToolUseHook, shapingHooks, type ShapedCallReport, type ShapingHookOptions } from './_post-tool-use.js';
export { readResultServer } from './_read-result-server.js';
