// `mcpctx sweep`: measures a servers file into a results folder (shards, rotation, --only,
// retries, declared not-applicable entries, the harness-fault guard), and merges shard outputs.
export {
  DEFAULT_CONCURRENCY,
  MAX_CONCURRENCY,
  isoDateOf,
  mergeSweep,
  previewSweep,
  sweep,
  type MergeOptions,
  type PreviewOptions,
  type SweepPreview,
  type MergeReport,
  type SweepOptions,
  type SweepProgress,
  type SweepReport,
  type SweptServer,
} from './_sweep.js';
export {
  MAX_ROTATION_WEEKS,
  MAX_SHARDS,
  isoWeekNumber,
  parseShard,
  planSweep,
  rotationFor,
  rotationGroup,
  shardOf,
  type PlanOptions,
  type PlannedEntry,
  type RotationChoice,
  type ShardSpec,
  type SkipReason,
  type SweepPlan,
} from './_plan.js';
export { measureWithRetries, type MeasureFunction, type RetriedMeasurement } from './_retry.js';
export { applyNotApplicable } from './_not-applicable.js';
export { GUARD_MIN_REGRESSED, GUARD_MIN_SHARE, checkHarness, type GuardReport } from './_guard.js';
export { DEFAULT_CONTAINER, DEFAULT_DOCKER_IMAGE, DOCKER_NETWORKS, containerSettings, dockerLaunch, findOnPath } from './_docker.js';
export type { ShardCoverage } from '../_merge.js';
