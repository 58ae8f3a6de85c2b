// The context optimizer's pure half: no processes, files, sockets or native addons are reachable
// from here (test/entries/pure-entries.test.ts reads the import graph). The SQLite store and the
// MCP server are `mcpctx/optimizer/server`. Public: `ContextOptimizer` and `PreparedRecords`, the
// in-memory record store (pure; the SQLite one is on the server entry), the input and result types, and what the CLI and the benchmarks read (input parsing, normalized
// records, source tags). The stages' functions and their internal types stay in their files.
export { McpctxError, isMcpctxError, type McpctxErrorCode } from '../errors/index.js';
export { ContextOptimizer, DEFAULT_TOKEN_BUDGET, PreparedRecords } from './_optimizer.js';
export { parseOptimizerInput } from './_validate.js';
export { normalizeRecords } from './_normalize.js';
export { parseSourceTags } from './_render.js';
export { MemoryRecordStore, type RecordStore } from './_store.js';
export { detectTranscriptFormat, importTranscript, type ImportTranscriptOptions, type TranscriptFormat, type TranscriptImport } from './transcripts/index.js';
export type {
  BudgetConflict,
  ContextReport,
  ContextRequest,
  ContextResult,
  ContextStats,
  DecisionRecord,
  DecisionStatus,
  DemotedEntry,
  DiffRecord,
  ErrorRecord,
  Excerpt,
  FileRecord,
  MandatoryScope,
  MergeEntry,
  MergeReason,
  MessageRecord,
  MessageRole,
  OmissionReason,
  OmittedEntry,
  OptimizerInput,
  OptimizerOptions,
  RecordCommon,
  RecordKind,
  ScoringWeights,
  SearchHit,
  SessionRecords,
  SignalName,
  SignalScore,
  SourceEntry,
  TaskTerms,
  TestResultRecord,
  TestStatus,
  TokenCounter,
  ToolOutputRecord,
} from './_types.js';
