// Published results: the files of results/ (history, leaderboard, regressions, capture index, tool
// shape, badges), the sweep that makes them and the static site that shows them. The public entry
// `mcpctx/results`: the sweep, reading what it published, and the joins audit makes. The parts
// (state, store, merge, series) stay in their files and subfolder indexes.
export type { HistoryRow, IsoDate, PublishedServer, PublishedStatus, ResultsState, ToolTokens, ToolVector, ToolVectorsFile } from './_model.js';
export { STATUS_MEANINGS } from './_model.js';
export { readResultsState, readSweepRecord, resultsFiles, type SweepEntry, type SweepRecord, type SweepShard } from './_store.js';
export { parseResultsJson, readResultsText } from './_read-file.js';
export {
  mergeSweep,
  sweep,
  type GuardReport,
  type MergeOptions,
  type MergeReport,
  type ShardSpec,
  type SweepOptions,
  type SweepProgress,
  type SweepReport,
  type SweptServer,
} from './sweep/index.js';
export { readCaptureIndex, type CaptureIndex } from './history/index.js';
export { readToolShape, type ToolShape } from './leaderboard/index.js';
