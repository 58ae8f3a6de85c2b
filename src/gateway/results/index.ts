// The result rules: projection, format, token pages served from the store, offload behind bound handles, read_result.
export { ResultShaper, DEFAULT_MAX_BINARY_BYTES } from './_result-shaper.js';
export type { ResultAction, ResultContext, ResultRules, ShapeOutcome } from './_result-types.js';
export { createMemoryStore, storeSettings, DEFAULT_MAX_BYTES, DEFAULT_TTL_MS, type OffloadStore, type OffloadStoreOptions, type SharedOffloadStore, type AnyOffloadStore, type StorePut } from './_offload-store.js';
export { createSqliteStore } from './_sqlite-store.js';
export { READ_PAGE_TOKENS, READ_RESULT_TOOL } from './_read-result.js';
export { runQuery, selectPath } from './_json-select.js';
export { QUERY_DEADLINE_MS, QUERY_RESULT_CHARS, QUERY_STEP_BUDGET } from './_query-budget.js';
