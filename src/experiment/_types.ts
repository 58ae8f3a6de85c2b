/**
 * The shapes of an answer-checked experiment: its config, its tasks, and the receipt it writes.
 * The receipt is the experiment's only output of record: every figure in the report is derived
 * from rows it holds, so `verifyReceipt` can recompute them all from the file alone.
 */
import type { LaunchSpec } from '../mcp/index.js';
import type { ModelPrice, PriceRecord } from '../pricing/index.js';
import type { ContentBlock, ExchangeTiming, ProviderName, ProviderTool, RawExchange, RetriedAttempt, StopReason, Usage } from '../providers/index.js';
import type { ConditionTime, QuestionTiming, StepTiming } from './_timing-types.js';

export const CONDITIONS = ['baseline', 'optimized'] as const;
export type Condition = (typeof CONDITIONS)[number];

export const TASK_KINDS = ['lookup', 'aggregate', 'later_page'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

/** One question with its human-checked answer key (the seed's tasks.json entry, plus an id). */
export interface Task {
  /** Unique in the file; default `<kind>-<index>` (index from 1). */
  id: string;
  kind: TaskKind;
  question: string;
  /** The exact string expected in the answer JSON's `answer`. */
  expectedAnswer: string;
  /** Ids the answer must cite (every one of them; more are allowed). */
  evidenceIds: string[];
  /** Strings each of which some returned caveat must contain (case-insensitive). */
  requiredCaveats: string[];
  /** lookup: the allowed field (not id or revision) that only the detail call returns. */
  detailField?: string;
  /** aggregate: the count is of records whose `aggregateField` equals `aggregateValue`. */
  aggregateField?: string;
  aggregateValue?: string;
  /**
   * later_page: the query whose matches the evidence is among (`pageField` equals `pageValue`);
   * both or neither: without them (the seed's format) the evidence position is not checked.
   */
  pageField?: string;
  pageValue?: string;
}

/** A flat record of the snapshot: string fields, `id` and `revision` among them. */
export type SnapshotRecord = Readonly<Record<string, string>>;

/** One condition: the server to launch, and how its results become model-facing text. */
export interface ConditionSpec {
  launch: LaunchSpec;
  /** Tools offered to the model, in this order; default every tool the server lists. */
  tools?: string[];
  /** Top-level keys removed from a JSON text block before the model sees it (e.g. a cache disposition). */
  dropResultKeys: string[];
}

/** The tool path the optimized condition must take per task kind (tool and argument names). */
export interface ToolPaths {
  lookup: { search: string; matchArgument: string; fieldsArgument: string; detail: string; idArgument: string };
  aggregate: { count: string };
  later_page: { page: string; cursorArgument: string };
}

/** The warm-cache probe: the same direct call twice on one fresh server, excluded from totals. */
export interface ProbeSpec {
  condition: Condition;
  tool: string;
  /**
   * The call's arguments; null when the config gave none: then they need the snapshot, and
   * `resolveProbe` (in _inputs) fills in `{ field: "id", value: <first snapshot id in id order> }`.
   */
  arguments: Record<string, unknown> | null;
  /** Top-level key of the result JSON that says "hit" or "miss"; null when the server says nothing. */
  cacheKey: string | null;
}

export interface ModelSpec {
  provider: ProviderName;
  model: string;
  maxTokens: number;
  /** scripted: the turns file. */
  script?: string;
  /** HTTP providers: base URL (required for openai-compatible). */
  baseUrl?: string;
  /** HTTP providers: NAME of the env variable holding the key. */
  keyEnv?: string;
  temperature?: number;
  /** Deadline of one model call, retries included, in ms. */
  timeoutMs: number;
}

/** A loaded, checked config; every path absolute. */
export interface ExperimentConfig {
  /** The config file itself, and the sha256 and UTF-8 size of the text it was parsed from. */
  file: string;
  source: { sha256: string; bytes: number };
  snapshot: string;
  fields: string;
  tasks: string;
  /** Records per page of the optimized server (a later_page task needs a match past this many). */
  pageSize: number;
  conditions: Record<Condition, ConditionSpec>;
  paths: ToolPaths;
  probe: ProbeSpec | null;
  model: ModelSpec;
  system: string;
  /** Most model turns per question before TURN_LIMIT. */
  maxTurns: number;
  /** Deadline of one MCP request (start, list, call), in ms. */
  toolTimeoutMs: number;
  /** Times each question is asked per condition (`repeat`, `--repeat`), each on a fresh server. */
  repeat: number;
  /** Model prices over the bundled table's (`prices:`); empty when the config gives none. */
  prices: ModelPrice[];
}

// ---- the receipt -----------------------------------------------------------------------------------

/**
 * v2 (issue 33): the tasks file's text, every attempt's timing, the spend, repetitions and their
 * statistics are recorded, and verify requires them; v1 receipts lack them and are refused.
 */
export const RECEIPT_FORMAT = 'mcpctx-experiment-receipt/v2';

export type RunStatus = 'starting' | 'running' | 'completed' | 'failed';
export type StageName = 'start' | 'inputs' | 'validate' | 'questions' | 'probe' | 'report';

export interface StageRecord {
  stage: StageName;
  status: 'ok' | 'failed';
  at: string;
  /** The failure of that stage: an McpctxError code or a check's code, and its message. */
  error?: { code: string; message: string };
}

export interface InputFile {
  path: string;
  sha256: string;
  bytes: number;
}

export interface TaskValidation {
  taskId: string;
  kind: TaskKind;
  ok: boolean;
  /** Why the task was refused, each a sentence naming the field. */
  problems: string[];
  /** aggregate: matches counted in the snapshot, independently of any server. */
  independentCount?: number;
  /** later_page: ids matching the page query, in the server's id order, and the evidence's positions in them. */
  matchingIds?: string[];
  evidencePositions?: number[];
  /**
   * What validation could not check, each a sentence starting with what (a later_page task
   * without pageField/pageValue: its evidence position); said to the reader, never a pass.
   */
  notChecked?: string[];
}

/** A JSON-RPC frame as it crossed stdio, text exact. */
export interface Frame {
  direction: 'sent' | 'received';
  text: string;
}

export interface ServerRecord {
  launch: { command: string; args: string[]; envNames: string[] };
  protocolVersion: string;
  serverInfo: unknown;
  /** The tools offered to the model (MCP name, description, inputSchema). */
  tools: ProviderTool[];
  /** sha256 of canonicalJson(tools). */
  toolsSha256: string;
  frames: Frame[];
  /** sha256 over `${direction} ${text}\n` of every frame, in order. */
  framesSha256: string;
}

export interface ToolCallRecord {
  toolUseId: string;
  name: string;
  arguments: unknown;
  /** JSON-RPC id of the tools/call request (to find its frames); null when no request was sent. */
  rpcId: number | string | null;
  isError: boolean;
  /** The result's `content` array as received; null when the call failed before a result. */
  rawContent: unknown;
  /** UTF-8 bytes and sha256 of JSON.stringify(rawContent) ('' when null). */
  rawContentBytes: number;
  rawContentSha256: string;
  /** What the model got as the tool_result's content. */
  modelFacingText: string;
  modelFacingBytes: number;
  modelFacingSha256: string;
  /** o200k_base tokens of modelFacingText. */
  modelFacingTokens: number;
  /** Why the call produced no result (unadvertised tool, timeout, transport), when it did not. */
  error?: string;
  /** When the call ran (absent in receipts from before timings were recorded). */
  timing?: StepTiming;
}

export interface TurnRecord {
  raw: RawExchange;
  rawRequestSha256: string;
  rawResponseSha256: string;
  content: ContentBlock[];
  stopReason: StopReason;
  rawStopReason: string | null;
  /** As the provider reported it; null when it reported none (unknown, never 0). Receipts before this were never null. */
  usage: Usage | null;
  /** The model the provider says answered. */
  model: string;
  attempts: number;
  tools: ToolCallRecord[];
  /** The attempt that answered: start, first byte, end (absent in receipts from before timings were recorded). */
  timing?: ExchangeTiming;
  /** The attempts retried before it (attempts − 1), with their bytes (absent in receipts from before). */
  retries?: RetriedAttempt[];
  /**
   * Set on resume: this turn is the stopped run's (its record is in `resume.replaced`), used again
   * instead of a paid call; its bytes, usage and timing are that run's. Its tool calls ran anew.
   */
  replayed?: true;
}

export type QuestionStatus = 'running' | 'passed' | 'failed' | 'skipped';

/**
 * The model call that failed (a provider failure): its last attempt's bytes as sent and as
 * received (a cut stream's part included), the usage that part announced (null when none) and
 * when it went out, its first byte came and it ended. A failed call is billed for what it read.
 */
export interface FailedCallRecord {
  code: string;
  attempts: number;
  raw: RawExchange;
  rawRequestSha256: string;
  rawResponseSha256: string;
  announcedUsage: Usage | null;
  /** null when the call failed before its request went out. */
  timing: ExchangeTiming | null;
  /** The attempts retried before the last (absent in receipts from before they were recorded). */
  retries?: RetriedAttempt[];
}

/**
 * What became of a question, kept apart: answered right; answered wrong (the check failed, or the
 * model ended otherwise: a refusal, a tool's error answer or an unoffered tool call); no answer
 * within limits (max_tokens, maxTurns); provider failure (the model call failed: HTTP error, cut
 * stream, deadline); harness failure (an input changed, a server failed, a tool call got no
 * result); not run (skipped, or the run
 * was killed while it ran). Only the first three are verdicts on an answer.
 */
export type QuestionOutcome = 'right' | 'wrong' | 'no-answer' | 'provider-failure' | 'harness-failure' | 'not-run';

export interface AnswerChecks {
  /** The final text parsed as the answer JSON (null when it did not parse). */
  parsed: { answer: unknown; evidenceIds: unknown; caveats: unknown } | null;
  answerMatches: boolean;
  missingEvidenceIds: string[];
  /** Cited ids that are not expected ones (at most MAX_EXTRA_EVIDENCE_IDS pass). */
  extraEvidenceIds: string[];
  /** The extras no tool returned in this question. */
  unreturnedEvidenceIds: string[];
  missingCaveats: string[];
  /** The tool path the condition requires was taken (always true for the baseline). */
  pathOk: boolean;
  /** Why the path check failed, when it did. */
  pathProblem?: string;
}

/** Token sums are null (unknown) when any turn's usage is unknown: a partial sum is not a total. */
export interface QuestionTotals {
  /** input + cache read + cache write tokens over every turn (the context the model read). */
  contextTokens: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  turns: number;
  toolCalls: number;
  rawToolBytes: number;
  modelFacingBytes: number;
  modelFacingTokens: number;
}

export interface QuestionRecord {
  taskId: string;
  kind: TaskKind;
  condition: Condition;
  /** Which asking of the task in this condition, 1..repeat (absent in receipts from before repetitions: 1). */
  repetition?: number;
  question: string;
  status: QuestionStatus;
  /** Set once the question ended (absent while it runs, and in receipts from before outcomes were recorded). */
  outcome?: QuestionOutcome;
  /** Set when status is failed or skipped: a code (STOP_max_tokens, ANSWER_MISMATCH, PRIOR_FAILURE, ...) and a sentence. */
  failure?: { code: string; message: string };
  server?: ServerRecord;
  turns: TurnRecord[];
  /** The model call that failed, when one did (outcome provider-failure). */
  failedCall?: FailedCallRecord;
  /** The text of the final end_turn answer. */
  finalText?: string;
  checks?: AnswerChecks;
  totals: QuestionTotals;
  /** From before its server started to after it closed (absent in receipts from before timings were recorded). */
  timing?: QuestionTiming;
  /** Skipped because an earlier question's failure stopped the run: that question and its failure. */
  skippedAfter?: StopCause;
}

/** The question whose failure stopped the run (a provider or harness failure, a budget stop), as what it skipped names it. */
export interface StopCause {
  taskId: string;
  repetition: number;
  condition: Condition;
  code: string;
  message: string;
}

export interface ProbeCall {
  rawContent: unknown;
  rawContentBytes: number;
  modelFacingTokens: number;
  /** The cache disposition the server reported, or null. */
  cache: string | null;
}

export interface ProbeRecord {
  status: 'passed' | 'failed' | 'skipped';
  condition: Condition;
  tool: string;
  arguments: Record<string, unknown>;
  first?: ProbeCall;
  repeat?: ProbeCall;
  server?: ServerRecord;
  failure?: { code: string; message: string };
  /** Skipped because a question's failure stopped the run first. */
  skippedAfter?: StopCause;
  note: string;
}

/**
 * A task's verdict, from its two outcomes when both are verdicts (right, wrong, no answer within
 * limits); `not-compared` when either side failed otherwise (provider, harness) or was not run.
 */
export type Verdict = 'compared' | 'cut-lost-answer' | 'baseline-failed' | 'both-failed' | 'not-compared';

export interface ConditionRow {
  status: QuestionStatus;
  outcome: QuestionOutcome;
  failure?: { code: string; message: string };
  totals: QuestionTotals;
  /** Wall-clock times, when the question recorded its timing. */
  time?: ConditionTime;
}

export interface ReportRow {
  taskId: string;
  /** 1..repeat: a row pairs the two conditions' questions of one task and repetition. */
  repetition: number;
  kind: TaskKind;
  baseline: ConditionRow;
  optimized: ConditionRow;
  verdict: Verdict;
  /** Why the task has no verdict: the first side (baseline, then optimized) without one. */
  notCompared?: { condition: Condition; outcome: QuestionOutcome; code: string; message: string };
}

/** A sum over the compared questions, and what the optimized condition changed (null when nothing was compared). */
export interface Reduction {
  /** null when a compared question's sum is unknown (a turn without usage); the reduction is null then too. */
  baseline: number | null;
  optimized: number | null;
  /** (baseline − optimized) / baseline, as a fraction; negative when optimized cost more. */
  reduction: number | null;
}

export interface ExperimentReport {
  /** Questions both conditions answered correctly: the only ones whose tokens are compared. */
  compared: number;
  tasks: number;
  rows: ReportRow[];
  /**
   * Task ids the baseline answered right and the optimized condition answered wrong or gave no
   * answer within the same limits; never one where either side failed otherwise (`not-compared`).
   */
  lostAnswers: string[];
  /** Tasks without a verdict (a provider or harness failure, or not run): each row says why. */
  notCompared: number;
  totals: Record<'contextTokens' | 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'turns' | 'rawToolBytes' | 'modelFacingBytes' | 'modelFacingTokens', Reduction>;
  /** Every question passed in both conditions, and none was skipped. */
  allPassed: boolean;
  /** Rates with intervals, the paired test and the reduction's interval, over every repetition. */
  statistics: RepetitionStatistics;
}

/** A condition's rate of right answers among its questions with a verdict, with its 95% Wilson interval. */
export interface RateInterval {
  right: number;
  /** Questions answered right, wrong or without an answer within limits: the rate's denominator. */
  verdicts: number;
  /** Questions without a verdict (provider or harness failure, not run): left out of the rate. */
  withoutVerdict: number;
  /** null when no question has a verdict. */
  rate: number | null;
  low: number | null;
  high: number | null;
}

/** The two conditions' verdicts paired by task and repetition, and McNemar's exact test on them. */
export interface PairedTest {
  /** Pairs where both sides have a verdict. */
  pairs: number;
  /** Pairs left out because a side has no verdict. */
  excluded: number;
  bothRight: number;
  /** Discordant pairs: only the baseline right (b), only the optimized right (c). */
  baselineOnly: number;
  optimizedOnly: number;
  neitherRight: number;
  /** Two-sided exact p of b against c (1 when no pair is discordant). */
  mcnemarP: number;
}

/** The context-token reduction over the pairs answered right in both, with its paired bootstrap 95% interval. */
export interface ReductionInterval {
  /** Pairs in it (both right), and the tasks the bootstrap resamples (each with its repetitions). */
  pairs: number;
  tasks: number;
  /** (Σ baseline − Σ optimized) / Σ baseline; null when nothing is compared or a sum is unknown. */
  reduction: number | null;
  low: number | null;
  high: number | null;
  /** What the interval is drawn with: verify draws it again from these. */
  seed: number;
  resamples: number;
}

export interface RepetitionStatistics {
  repeat: number;
  rates: Record<Condition, RateInterval>;
  paired: PairedTest;
  contextTokens: ReductionInterval;
  /** The same bootstrap (same seed, same draws of tasks) for the output tokens and the o200k tokens of the tool results the model read. */
  outputTokens: ReductionInterval;
  modelFacingTokens: ReductionInterval;
}

/** The token totals whose reduction carries a bootstrap interval. */
export const INTERVAL_TOTALS = ['contextTokens', 'outputTokens', 'modelFacingTokens'] as const;

export interface ExperimentReceipt {
  format: typeof RECEIPT_FORMAT;
  warning: string;
  status: RunStatus;
  startedAt: string;
  updatedAt: string;
  stages: StageRecord[];
  errors: { at: string; stage: StageName; code: string; message: string }[];
  config?: InputFile & { pageSize: number; maxTurns: number; /** Absent in receipts from before repetitions: 1. */ repeat?: number; conditions: Record<Condition, { tools: string[] | null; dropResultKeys: string[] }>; paths: ToolPaths };
  inputs?: {
    snapshot: InputFile & { records: number };
    fields: InputFile & { allowed: string[] };
    /** `text`: the tasks file as read, from which `verifyReceipt` re-derives `tasks` (absent in receipts written before it). */
    tasks: InputFile & { count: number; text?: string };
    script?: InputFile;
  };
  runtime?: { node: string; mcpctx: string; packages: Record<string, string>; lockfileSha256: string | null; platform: string };
  model?: { provider: ProviderName; model: string; baseUrl: string | null; maxTokens: number; temperature: number | null; system: string; systemSha256: string };
  tasks?: Task[];
  validation?: TaskValidation[];
  questions: QuestionRecord[];
  probe?: ProbeRecord;
  report?: ExperimentReport;
  /** What the run spent, derived from the questions' usage at the recorded price (receipts from before it have none). */
  cost?: RunCost;
  /** Set when the run resumed a stopped one: what it read, and the question records it re-asked (their paid calls stay counted). */
  resume?: ResumeRecord;
}

export interface ResumeRecord {
  /** The stopped receipt, and the sha256 of its text as read. */
  from: string;
  receiptSha256: string;
  /** Question records kept from it as they were (finished: right, wrong, no answer). */
  kept: number;
  /** Records it held for questions asked again (a provider or harness failure, not run), as they were. */
  replaced: QuestionRecord[];
}

export interface QuestionCost {
  taskId: string;
  /** 1..repeat (1 in receipts from before repetitions). */
  repetition: number;
  condition: Condition;
  /** One per turn, in order: its usage at the price (null: usage or price unknown). */
  turnsUsd: (number | null)[];
  /** The failed call's, when the question has one (its announced usage; 0 for an HTTP error answer). */
  failedCallUsd?: number | null;
  usd: number | null;
}

/** What a run spent (receipt/_cost.ts derives it): unknown (null) wherever a usage or the price is, never 0. */
export interface RunCost {
  /** The price every call was reckoned at (the run's model), or null when none is known. */
  price: PriceRecord | null;
  /** `--max-usd`, when the run had a budget. */
  maxUsd: number | null;
  /** One per recorded question, in the receipt's order. */
  questions: QuestionCost[];
  /** Calls paid for by question records a resume replaced (`resume.replaced`) and did not carry over. */
  replacedUsd: number | null;
  conditions: Record<Condition, number | null>;
  totalUsd: number | null;
}
