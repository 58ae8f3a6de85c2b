// The context optimizer's pure half: no processes, files, sockets or native addons are reachable
// from here (test/entries/pure-entries.test.ts reads the import graph). The SQLite store and the
// MCP server are `mcpctx/optimizer/server`.
export { McpctxError, isMcpctxError, type McpctxErrorCode } from '../errors/index.js';
export { ContextOptimizer, DEFAULT_TOKEN_BUDGET, PreparedRecords } from './_optimizer.js';
export { parseOptimizerInput, parseSessionRecords, DEFAULT_MAX_RECORD_CHARS, type ValidationOptions } from './_validate.js';
export { normalizeRecords, collapseRepeatedLines, type NormalizedSession } from './_normalize.js';
export { dedupeRecords } from './_dedupe.js';
export { basename, extractFacts, extractTaskTerms, tokenizeWords } from './_extract.js';
export { fragmentRecord } from './_fragments.js';
export { DEFAULT_WEIGHTS, SIGNAL_NAMES } from './_score.js';
export { parseSourceTags, sourceTag } from './_render.js';
export { CHARS4_COUNTER, O200K_COUNTER } from './_counter.js';
export * from './_types.js';
export { MemoryRecordStore, type RecordStore } from './_store.js';
