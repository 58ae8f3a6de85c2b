// `mcpctx/host/claude-code`: Claude Code's side of mcpctx/host. A PostToolUse command hook that
// shapes MCP tool results by the rules (`mcpctx hook post-tool-use`), the read_result server that
// reads what it kept (`mcpctx hook results-server`), and the install that adds both to Claude
// Code's settings and MCP config and takes them out again byte for byte. No framework is imported:
// Claude Code speaks JSON on stdin and stdout.
export { MAX_HOOK_INPUT_BYTES, mcpToolOf, parseHookInput, readBoundedInput, type HookInputRead, type PostToolUseInput } from './_hook-input.js';
export { HOOK_SESSION_ID, hookStoreDir, openHookShaper, type HookPlaces } from './_hook-shaper.js';
export type { HookLogEntry } from './_hook-log.js';
export { runPostToolUse, type PostToolUseAnswer, type PostToolUseOptions, type PostToolUseOutcome } from './_post-tool-use.js';
export { RESULTS_SERVER_NAME, createResultsServer, serveResultsStdio } from './_results-server.js';
export {
  LIMIT_NOTE,
  claudeCodeFiles,
  installClaudeCode,
  uninstallClaudeCode,
  type FileReport,
  type InstallOptions,
  type InstallReport,
  type InstallScope,
  type McpctxProgram,
  type UninstallOptions,
} from './_install.js';
export { installCompactionHook, uninstallCompactionHook, type CompactionHookInstallOptions, type CompactionHookUninstallOptions } from './_install-compaction.js';
