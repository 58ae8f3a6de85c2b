// `mcpctx/optimizer/server`: the optimizer's impure half, a SQLite record store (better-sqlite3,
// node:fs) and the MCP server over stdio. Kept off `mcpctx/optimizer` so that importing the
// optimizer never loads a native addon or touches the disk. This folder is part of the optimizer
// and reads its private modules (`../_store.js`, ...); nothing in the parent imports from here.
export { MemoryRecordStore, type RecordStore } from '../_store.js';
export { SqliteRecordStore } from './_sqlite-store.js';
export { createOptimizerServer, serveOptimizerStdio, OPTIMIZER_TOOLS, MAX_RESULT_TOKENS, type OptimizerServerOptions, type StdioServeOptions } from './_server.js';
export {
  CLAUDE_CODE_CONTEXT_CHARS,
  MAX_COMPACTION_HOOK_INPUT_BYTES,
  MAX_TRANSCRIPT_BYTES,
  readTranscriptFile,
  runCompactionHook,
  type CompactionHookOptions,
  type CompactionHookOutcome,
  type TranscriptImporter,
} from './_compaction-hook.js';
