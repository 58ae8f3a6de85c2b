/**
 * The optimizer's data model: what callers hand in (the input format, shared by
 * `buildContext`, `mcpctx optimize --input` and the `ingest_records` tool) and what each stage
 * hands to the next.
 */

// ---------------------------------------------------------------------------------------------
// Input format
// ---------------------------------------------------------------------------------------------

/**
 * Fields every record may carry. `timestamp` is ISO 8601; `priority` is 0..1 (default 0.5);
 * `session` names the coding session the record belongs to (1 to 200 characters).
 */
export interface RecordCommon {
  id?: string;
  timestamp?: string;
  priority?: number;
  session?: string;
}

export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';
export type TestStatus = 'passed' | 'failed' | 'skipped';
export type DecisionStatus = 'accepted' | 'rejected' | 'proposed';

export interface MessageRecord extends RecordCommon {
  role: MessageRole;
  text: string;
}
/** At least one of `tool` and `command`. */
export interface ToolOutputRecord extends RecordCommon {
  tool?: string;
  command?: string;
  output: string;
  exitCode?: number;
}
export interface ErrorRecord extends RecordCommon {
  message: string;
  stack?: string;
}
export interface FileRecord extends RecordCommon {
  path: string;
  content: string;
}
export interface DiffRecord extends RecordCommon {
  path: string;
  diff: string;
}
export interface TestResultRecord extends RecordCommon {
  name: string;
  status: TestStatus;
  output?: string;
}
export interface DecisionRecord extends RecordCommon {
  text: string;
  status: DecisionStatus;
}

/** The record arrays of the input format (`ingest_records` takes exactly this). */
export interface SessionRecords {
  messages?: MessageRecord[];
  toolOutputs?: ToolOutputRecord[];
  errors?: ErrorRecord[];
  files?: FileRecord[];
  diffs?: DiffRecord[];
  testResults?: TestResultRecord[];
  decisions?: DecisionRecord[];
}

/** `buildContext` input: the records plus the task and, optionally, the budget for this call. */
export interface OptimizerInput extends SessionRecords {
  task: string;
  /** Tokens the rendered context may use; defaults to the optimizer's `tokenBudget` option. */
  tokenBudget?: number;
  /** The session the task belongs to (1 to 200 characters); records may carry theirs in `session`. */
  session?: string;
}

/** One build over prepared records (`ContextOptimizer.buildContextFrom`): the task-side fields of `OptimizerInput`. */
export interface ContextRequest {
  task: string;
  /** Tokens the rendered context may use; defaults to the optimizer's `tokenBudget` option. */
  tokenBudget?: number;
  /** The session the task belongs to (1 to 200 characters). */
  session?: string;
}

export type RecordArrayName = keyof SessionRecords;
export type RecordKind = 'message' | 'toolOutput' | 'error' | 'file' | 'diff' | 'testResult' | 'decision';

/** The input arrays in their fixed processing order, with the kind each holds. */
export const RECORD_ARRAYS: readonly { readonly array: RecordArrayName; readonly kind: RecordKind }[] = [
  { array: 'messages', kind: 'message' },
  { array: 'toolOutputs', kind: 'toolOutput' },
  { array: 'errors', kind: 'error' },
  { array: 'files', kind: 'file' },
  { array: 'diffs', kind: 'diff' },
  { array: 'testResults', kind: 'testResult' },
  { array: 'decisions', kind: 'decision' },
];

// ---------------------------------------------------------------------------------------------
// Stage 1: normalized records
// ---------------------------------------------------------------------------------------------

/** One earlier run of a repeated command or test, kept as a line of history on the latest run. */
export interface RunHistoryEntry {
  recordId: string;
  timestamp?: string;
  exitCode?: number;
  status?: TestStatus;
}

/**
 * A validated record in one flat shape. Never the caller's object: normalization copies.
 * `text` is the body the later stages read (line endings `\n`, invalid UTF-16 replaced,
 * runs of identical log lines collapsed except in files and diffs).
 */
export interface NormalizedRecord {
  /**
   * The caller's id, or `<kind>-<12 hex>` of sha256 over the content and the timestamp and priority
   * (each when given); records equal in all of these are interchangeable and are suffixed `~2`,
   * `~3` in input order, so the same contents get the same set of tags whatever the input order.
   */
  readonly id: string;
  readonly kind: RecordKind;
  /** Where the record was in the input: `toolOutputs[3]`. */
  readonly origin: { readonly array: RecordArrayName; readonly index: number };
  /** Position across all arrays in `RECORD_ARRAYS` order: the clock where time is equal or absent (see `_recency.ts`). */
  readonly order: number;
  readonly timestamp?: string;
  /** `Date.parse(timestamp)`; absent when the record has no timestamp. */
  readonly time?: number;
  /** 0..1; 0.5 when the caller gave none. */
  readonly priority: number;
  /** The record's session, when the caller gave one. */
  readonly session?: string;
  /** What the source tag names: the path, the command (or tool), the test name, or the message role. */
  readonly label: string;
  readonly text: string;
  /** How many log lines the collapse of repeated lines removed (0 for files and diffs). */
  readonly collapsedLines: number;
  /** sha256 hex over the kind, the identifying fields (and the session, when given) and `text`: equal hashes are exact duplicates. */
  readonly contentHash: string;
  /** Records with the same run key are runs of one command or test: `command:<cmd>` or `test:<name>`. */
  readonly runKey?: string;
  readonly role?: MessageRole;
  readonly tool?: string;
  readonly command?: string;
  readonly exitCode?: number;
  /**
   * Files and diffs: the path in one spelling (`normalizePath`: `/` separators, `.` and `..` resolved,
   * no leading `./`), which every comparison and merge reads; the caller's spelling stays in `label`.
   */
  readonly path?: string;
  readonly testName?: string;
  readonly testStatus?: TestStatus;
  readonly decisionStatus?: DecisionStatus;
  /** Earlier runs merged into this one by deduplication, oldest first. */
  readonly history: readonly RunHistoryEntry[];
}

// ---------------------------------------------------------------------------------------------
// Stage 2: deduplication
// ---------------------------------------------------------------------------------------------

export type MergeReason = 'exact-duplicate' | 'repeated-run' | 'near-duplicate';

/** One record folded into another; every merge is in the report. */
export interface MergeEntry {
  /** The record that stays (the newest, by the one recency order of `_recency.ts`). */
  kept: string;
  /** The record that is gone from the candidates. */
  merged: string;
  reason: MergeReason;
  /** Trigram containment of the merged record in the kept one, for near duplicates (0..1, 4 decimals). */
  similarity?: number;
  /** One sentence a person can check, e.g. "same command `npm test`, earlier run (exit 1)". */
  detail: string;
}

// ---------------------------------------------------------------------------------------------
// Stage 3: extraction
// ---------------------------------------------------------------------------------------------

/** Where a failure points: a stack frame, or a compiler's, linter's or test runner's location line. */
export interface StackFrame {
  language: 'node' | 'python' | 'rust' | 'jvm' | 'dotnet' | 'tsc' | 'terraform' | 'php' | 'ruby' | 'elixir' | 'eslint' | 'compiler';
  file: string;
  line?: number;
  column?: number;
  fn?: string;
}

export type Outcome = 'success' | 'failure' | 'unknown';

/** Facts found in one piece of text. Arrays are de-duplicated and in order of first appearance. */
export interface Extraction {
  paths: string[];
  symbols: string[];
  frames: StackFrame[];
  /** `TypeError: x is not a function`, `error TS2345: ...`, `AssertionError: ...` */
  errorSignatures: string[];
  /** Names of failing tests found in the text (jest `●`/`✕`, pytest `FAILED a.py::t`, ...). */
  testFailures: string[];
  /** Sentences stating a requirement: must, must not, do not, never, always. */
  requirements: string[];
  /** From exit codes, test status and explicit markers only; an attempt is never a success. */
  outcome: Outcome;
  /** The marker or field the outcome came from, e.g. "exitCode 1" or "Tests: 2 failed". */
  outcomeEvidence?: string;
}

/** What the task names: the identifiers and words relevance is measured against. */
export interface TaskTerms {
  /** Lower-cased words of 2+ characters, stop words removed, de-duplicated. */
  words: string[];
  paths: string[];
  /** Last segment of each path, and file names written alone (`parser.ts`). */
  basenames: string[];
  symbols: string[];
  /** Changes the task names: pull request or issue numbers (`#512`) and commit hashes (`f3a0c9d`). */
  references: string[];
}

// ---------------------------------------------------------------------------------------------
// Stages 4-6: fragments, scores, selection
// ---------------------------------------------------------------------------------------------

export type SignalName =
  | 'lexical'
  | 'identifier'
  | 'error'
  | 'constraint'
  | 'failure'
  | 'failing'
  | 'recency'
  | 'role'
  | 'redundancy'
  | 'repeat'
  | 'ignored'
  | 'priority';

export type ScoringWeights = Record<SignalName, number>;

export interface SignalScore {
  value: number;
  weight: number;
  contribution: number;
}

/** A piece of one record: small records are one fragment; long unstructured text is split at blank lines. */
export interface Fragment {
  /** `<record id>#<n>`, n from 1; a requirement sentence split out of a long message is `<record id>#<n>.<k>`. */
  readonly id: string;
  readonly recordId: string;
  /** 1-based position within the record. */
  readonly index: number;
  /** The record line (1-based) the fragment's text starts on: where a location's line number falls. */
  readonly firstLine: number;
  readonly text: string;
  /** Set when a large fragment is shown as the lines that bear on the task: `text` then has markers for the rest. */
  readonly excerpt?: Excerpt;
}

export interface Excerpt {
  shownLines: number;
  totalLines: number;
}

export type OmissionReason =
  | 'exact-duplicate'
  | 'repeated-run'
  | 'near-duplicate'
  | 'low-relevance'
  | 'redundant'
  | 'over-budget';

export interface SourceEntry {
  fragmentId: string;
  recordId: string;
  kind: RecordKind;
  /** `toolOutputs[3]` */
  origin: string;
  label: string;
  timestamp?: string;
  tokens: number;
  score: number;
  mandatory: boolean;
  /** Why it is mandatory, when it is: "constraint", "accepted decision", "newest failure of a test", "error naming a task identifier". */
  mandatoryReason?: string;
  /** Present when only part of the fragment's lines are shown (the rest is marked in the text). */
  excerpt?: Excerpt;
  signals: Record<SignalName, SignalScore>;
}

export interface OmittedEntry {
  /** Absent when a whole record was dropped before it was split (duplicates). */
  fragmentId?: string;
  recordId: string;
  origin: string;
  reason: OmissionReason;
  /** For merges, the record it was folded into. */
  keptAs?: string;
  score?: number;
  tokens?: number;
  detail: string;
}

export interface TokenCounter {
  /** `o200k` or `chars/4`. */
  readonly name: string;
  /** False for estimates; the report labels their numbers as estimates. */
  readonly exact: boolean;
  count(text: string): number;
}

// ---------------------------------------------------------------------------------------------
// The public surface: options and results
// ---------------------------------------------------------------------------------------------

export interface OptimizerOptions {
  /** Default budget when the input gives none. Default 8,000. */
  tokenBudget?: number;
  /** `o200k` (default, exact) or `chars/4` (an estimate, labelled as such), or a counter of your own. */
  counter?: 'o200k' | 'chars/4' | TokenCounter;
  /** Overrides for any of the signal weights. */
  weights?: Partial<ScoringWeights>;
  /** A fragment whose relevance contributions (lexical + identifier + constraint) sum below this is omitted as low relevance. Default 0.5. */
  minRelevance?: number;
  /** Largest text field accepted, in UTF-16 code units. Default 4,194,304. */
  maxRecordChars?: number;
  /** Near-duplicate threshold: trigram containment of the older record in the newer. Default 0.9. */
  nearDuplicateThreshold?: number;
  /**
   * When the mandatory fragments alone are over the budget: `include-all` (default) keeps every one
   * and goes over, reporting a BUDGET_CONFLICT; `best-first` keeps them in rank order while they
   * fit, lists the rest as omitted (over-budget) and reports the conflict with how many were left
   * out: for a caller whose budget is a hard limit (the compaction hook).
   */
  mandatoryOverBudget?: 'include-all' | 'best-first';
}

export interface BudgetConflict {
  code: 'BUDGET_CONFLICT';
  budget: number;
  mandatoryTokens: number;
  /** Mandatory fragments left out (`mandatoryOverBudget: 'best-first'` only; each is in `omitted`). */
  mandatoryOmitted?: number;
  message: string;
}

export interface ContextStats {
  counter: string;
  exact: boolean;
  /** Tokens of every input record's text as given (before any normalization). */
  tokensIn: number;
  /** Tokens of `context`. */
  tokensOut: number;
  /** 1 - tokensOut / tokensIn, 4 decimals (0 when tokensIn is 0). */
  reduction: number;
  budget: number;
  withinBudget: boolean;
  records: number;
  fragments: number;
  selected: number;
  omitted: number;
}

/** What mandatory content is scoped to (`_scope.ts`). */
export interface MandatoryScope {
  /** `session`: records of the task's session; `time-window`: records since `since`; `all`: nothing to scope by. */
  rule: 'session' | 'time-window' | 'all';
  session?: string;
  /** ISO time the window starts at (the newest record's time less the window). */
  since?: string;
  windowHours?: number;
}

/** A fragment that was mandatory and is optional for this task, with why. */
export interface DemotedEntry {
  fragmentId: string;
  recordId: string;
  /** Why it was mandatory: "constraint", "accepted decision", ... */
  was: string;
  reason: string;
}

export interface ContextReport {
  version: 1;
  counter: { name: string; exact: boolean; note?: string };
  weights: ScoringWeights;
  minRelevance: number;
  budget: number;
  task: TaskTerms;
  /** Modules reached from the failures and the task's identifiers through stack frames and imports, with hop counts. */
  related: Array<{ stem: string; hops: number }>;
  normalize: { records: number; collapsedLines: number; replacedInvalidUtf16: number };
  dedupe: { merges: MergeEntry[] };
  selection: {
    mandatoryTokens: number;
    selectedTokens: number;
    renderedTokens: number;
    conflict?: BudgetConflict;
  };
  /** What mandatory content was scoped to (the task's session or a time window), and each fragment demoted from it with why. */
  mandatory: { scope: MandatoryScope; demoted: DemotedEntry[] };
  /** Words the user's messages set aside ("ignore the lint output"): output whose label carries one ranks against. */
  setAside: string[];
}

export interface ContextResult {
  context: string;
  sources: SourceEntry[];
  omitted: OmittedEntry[];
  report: ContextReport;
  stats: ContextStats;
}

/** A ranked fragment for search: its provenance and score breakdown, and its text. */
export interface SearchHit extends SourceEntry {
  text: string;
}

/** A fragment with its record, its facts and its score: what the selection stages pass along. */
export interface ScoredFragment {
  fragment: Fragment;
  record: NormalizedRecord;
  facts: Extraction;
  signals: Record<SignalName, SignalScore>;
  score: number;
  /** The weighted sum of the relevance signals alone. */
  relevance: number;
  mandatoryReason?: string;
  /** Names the task's identifiers or shares enough of its words: stays mandatory outside the task's scope. */
  touchesTask: boolean;
  /** Record lines (1-based) in this fragment that a failure's location names: kept in any excerpt. */
  namedLines?: number[];
  /** The identifier value the record earns by its path or command alone, the same on every fragment of it. */
  recordIdentifier: number;
}
