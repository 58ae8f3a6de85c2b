// `mcpctx/host`: the gateway's result rules inside an agent host. One rules object (the gateway's
// `tools:` entries and cap), one shaper that applies it to an MCP tool result in whatever form the
// host hands it over, a store for what goes over the cap (memory, or a 0600 folder several
// processes share) and the read_result tool that reads it. No framework is imported here: each
// framework's adapter is an entry of its own (mcpctx/host/ai-sdk, ...), loaded only when used.
export { McpctxError, isMcpctxError, type McpctxErrorCode } from '../errors/index.js';
export { defineHostRules, hostRulesFromGateway, loadHostRules, parseHostRules, type HostRules, type HostRulesInput } from './_rules.js';
export { HostShaper, shapedReport, type HostCall, type HostReadResult, type HostShaped, type HostShaperOptions, type ShapedReport } from './_host-shaper.js';
export { hostNotice, readHostOutput, resultText, type HostForm, type HostNotice } from './_forms.js';
export { createFileStore, defaultHostStoreDir, fileStoreKey } from './_file-store.js';
export { createMemoryStore, type OffloadStore, type OffloadStoreOptions } from '../gateway/results/index.js';
export type { ToolRules } from '../gateway/config/index.js';
