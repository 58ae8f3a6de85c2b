// mcpctx/shape/files: the parts of mcpctx/shape that read files (node:fs). The root entry
// `mcpctx/shape` stays free of file, process and database access.
export { FrozenRecords, parseFlatRecords, type FlatRecord, type FlatRecordsBytes, type FrozenRecordsOptions, type FrozenSnapshot } from './_frozen-records.js';
