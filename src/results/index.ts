// Published results: the files of results/ (history, leaderboard, regressions, capture index, tool
// shape, badges), the sweep that makes them and the static site that shows them.
export type { HistoryRow, IsoDate, PublishedServer, PublishedStatus, ResultsState, ToolTokens, ToolVector, ToolVectorsFile } from './_model.js';
export { STATUS_MEANINGS } from './_model.js';
export { plottableSeries, type PlottableSeries } from './_series.js';
export { EMPTY_RESULTS, applySweep, neverSwept } from './_state.js';
export {
  SWEEP_FILE,
  SWEEP_METHOD,
  readResultsState,
  readSweepRecord,
  replaceResults,
  resultsFiles,
  sweepRecordJson,
  type SweepEntry,
  type SweepRecord,
} from './_store.js';
export { mergeShards } from './_merge.js';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_DOCKER_IMAGE,
  GUARD_MIN_REGRESSED,
  GUARD_MIN_SHARE,
  applyNotApplicable,
  checkHarness,
  dockerLaunch,
  isoWeekNumber,
  measureWithRetries,
  mergeSweep,
  planSweep,
  rotationGroup,
  shardOf,
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
export { CAPTURE_INDEX_FILE, readCaptureIndex, type CaptureIndex } from './history/index.js';
export { TOOL_SHAPE_FILE, readToolShape, type ToolShape } from './leaderboard/index.js';
