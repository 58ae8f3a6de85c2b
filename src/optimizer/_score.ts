import { McpctxError } from '../errors/index.js';
import { extractFacts, tokenizeWords } from './_extract.js';
import { IDENTIFIER_VALUE, RelatedModules, TaskIdentifiers, type IdentifierSubject } from './_identifiers.js';
import { isNewerRecord } from './_recency.js';
import { describeValue } from './_validate.js';
import type {
  Extraction,
  Fragment,
  NormalizedRecord,
  ScoringWeights,
  SignalName,
  SignalScore,
  TaskTerms,
} from './_types.js';

export const DEFAULT_WEIGHTS: Readonly<ScoringWeights> = Object.freeze({
  lexical: 3,
  identifier: 4,
  error: 3,
  constraint: 5,
  failure: 2,
  recency: 1.5,
  role: 1,
  redundancy: -2,
  priority: 1,
});

export const SIGNAL_NAMES: readonly SignalName[] = Object.keys(DEFAULT_WEIGHTS) as SignalName[];
/**
 * The signals that say a fragment bears on this task. Error and failure do not: an unrelated
 * failure is still unrelated; they rank what is relevant. Recency, role and priority only order.
 */
export const RELEVANCE_SIGNALS: readonly SignalName[] = ['lexical', 'identifier', 'constraint'];
/** A failing fragment sharing this much of the task's vocabulary leads to the code worth seeing. */
const SEED_LEXICAL = 0.05;

const HALF_LIFE_MS = 7 * 24 * 60 * 60 * 1000;
const DECISION_RECENCY_FLOOR = 0.7;
/** Recency of a record without a timestamp: neither fresh nor stale. */
const UNDATED_RECENCY = 0.5;
const ROLE_VALUE = { user: 1, system: 1, assistant: 0.6, tool: 0.4 } as const;
/** Tool output, errors, tests, files and diffs are machine output: the weight of the tool role. */
const MACHINE_ROLE_VALUE = ROLE_VALUE.tool;

export interface ScoredFragment {
  fragment: Fragment;
  record: NormalizedRecord;
  facts: Extraction;
  signals: Record<SignalName, SignalScore>;
  score: number;
  /** The weighted sum of the relevance signals alone. */
  relevance: number;
  mandatoryReason?: string;
}

export function resolveWeights(overrides: Partial<ScoringWeights> | undefined): ScoringWeights {
  const weights: ScoringWeights = { ...DEFAULT_WEIGHTS };
  for (const [name, weight] of Object.entries(overrides ?? {})) {
    if (!(name in DEFAULT_WEIGHTS)) {
      throw new McpctxError('INVALID_ARGUMENT', `unknown weight '${name}'; the signals are ${SIGNAL_NAMES.join(', ')}`);
    }
    if (typeof weight !== 'number' || !Number.isFinite(weight)) {
      throw new McpctxError('INVALID_ARGUMENT', `weight '${name}' must be a finite number, got ${describeValue(weight)}`);
    }
    weights[name as SignalName] = weight;
  }
  return weights;
}

export function round4(value: number): number {
  // `+ 0` turns -0 into 0, so JSON and equality see one zero.
  return Math.round(value * 10_000) / 10_000 + 0;
}

/** How much of the task's vocabulary a fragment shares, weighted by inverse document frequency. */
class LexicalIndex {
  private readonly idf = new Map<string, number>();
  private readonly total: number;

  constructor(taskWords: readonly string[], fragmentWords: readonly ReadonlySet<string>[]) {
    const documentFrequency = new Map<string, number>(taskWords.map((word) => [word, 0]));
    for (const words of fragmentWords) {
      for (const word of taskWords) if (words.has(word)) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    }
    const n = fragmentWords.length;
    let total = 0;
    for (const word of taskWords) {
      const idf = Math.log(1 + n / (1 + (documentFrequency.get(word) ?? 0)));
      this.idf.set(word, idf);
      total += idf;
    }
    this.total = total;
  }

  /** Each task word's IDF weight over this session's fragments. */
  get weights(): ReadonlyMap<string, number> {
    return this.idf;
  }

  overlap(words: ReadonlySet<string>): number {
    if (this.total === 0) return 0;
    let shared = 0;
    for (const [word, idf] of this.idf) if (words.has(word)) shared += idf;
    return shared / this.total;
  }
}

function constraintValue(record: NormalizedRecord, facts: Extraction): number {
  if (record.kind === 'decision') return record.decisionStatus === 'accepted' ? 1 : record.decisionStatus === 'rejected' ? 0.6 : 0.2;
  if (record.kind === 'message' && facts.requirements.length > 0) return record.role === 'user' || record.role === 'system' ? 1 : 0.3;
  return 0;
}

function hasErrorEvidence(record: NormalizedRecord, facts: Extraction): boolean {
  return record.kind === 'error' || facts.errorSignatures.length > 0 || facts.frames.length > 0 || facts.testFailures.length > 0;
}

function failureValue(record: NormalizedRecord, facts: Extraction): number {
  if (record.kind === 'error' || record.testStatus === 'failed' || facts.outcome === 'failure') return 1;
  return 0;
}

function recencyValue(record: NormalizedRecord, newestTime: number | undefined, floored: boolean): number {
  const value = record.time === undefined || newestTime === undefined ? UNDATED_RECENCY : 0.5 ** ((newestTime - record.time) / HALF_LIFE_MS);
  return floored ? Math.max(value, DECISION_RECENCY_FLOOR) : value;
}

function roleValue(record: NormalizedRecord): number {
  if (record.kind === 'message') return ROLE_VALUE[record.role ?? 'tool'];
  if (record.kind === 'decision') return ROLE_VALUE.user;
  return MACHINE_ROLE_VALUE;
}

function mandatoryReasonOf(record: NormalizedRecord, facts: Extraction, identifier: number): string | undefined {
  if (record.kind === 'decision' && record.decisionStatus === 'accepted') return 'accepted decision';
  if (record.kind === 'message' && (record.role === 'user' || record.role === 'system') && facts.requirements.length > 0) return 'constraint';
  if (record.kind === 'testResult' && record.testStatus === 'failed') return 'newest failure of a test';
  const failing = record.kind === 'error' || facts.outcome === 'failure';
  if (failing && hasErrorEvidence(record, facts) && identifier >= IDENTIFIER_VALUE.symbol) return ERROR_NAMING_TASK;
  return undefined;
}

const ERROR_NAMING_TASK = 'error naming a task identifier';

/** Digits vary between occurrences of one error (line numbers, ids); the rest identifies it. */
function errorKey(item: ScoredFragment): string {
  const signature = item.facts.errorSignatures[0] ?? item.facts.testFailures[0] ?? item.record.label;
  return signature.replace(/\d+/g, '#');
}

/** The newest item for each key (`compareRecency` of their records); items whose key is undefined are skipped. */
export function newestByKey(items: Iterable<ScoredFragment>, keyOf: (item: ScoredFragment) => string | undefined): Map<string, ScoredFragment> {
  const newest = new Map<string, ScoredFragment>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    const current = newest.get(key);
    if (current === undefined || isNewerRecord(item.record, current.record)) newest.set(key, item);
  }
  return newest;
}

/**
 * Of the errors that name the task's identifiers, only the newest occurrence of each error is
 * mandatory: a session that hit the same error forty times needs it once, not forty times.
 */
function keepNewestMandatoryErrors(scored: ScoredFragment[]): void {
  const isError = (item: ScoredFragment): boolean => item.mandatoryReason === ERROR_NAMING_TASK;
  const keep = new Set(newestByKey(scored, (item) => (isError(item) ? errorKey(item) : undefined)).values());
  for (const item of scored) if (isError(item) && !keep.has(item)) delete item.mandatoryReason;
}

export interface ScoringInput {
  fragment: Fragment;
  record: NormalizedRecord;
}

export interface Scoring {
  scored: ScoredFragment[];
  /** Modules reached from the seeds, with their hop counts (for the report). */
  related: Array<{ stem: string; hops: number }>;
  /** Each task word's IDF weight over the session, for finding the lines of a fragment that matter. */
  taskWordWeights: ReadonlyMap<string, number>;
}

function isSeed(subject: IdentifierSubject, taskIdentifier: number, lexical: number): boolean {
  const { record, facts } = subject;
  if (taskIdentifier >= IDENTIFIER_VALUE.symbol) return true;
  if (record.kind === 'testResult' && record.testStatus === 'failed') return true;
  return failureValue(record, facts) > 0 && hasErrorEvidence(record, facts) && (taskIdentifier > 0 || lexical >= SEED_LEXICAL);
}

/**
 * Stage 4: every fragment's signals, each with value, weight and contribution. Redundancy is left at
 * 0 here: it depends on what ranks above, and selection fills it in.
 */
export function scoreFragments(items: readonly ScoringInput[], task: TaskTerms, weights: ScoringWeights): Scoring {
  let newestTime: number | undefined;
  for (const { record } of items) if (record.time !== undefined && (newestTime === undefined || record.time > newestTime)) newestTime = record.time;
  const taskWords = new Set(task.words);
  const wordSets = items.map(({ fragment }) => new Set(tokenizeWords(fragment.text).filter((word) => taskWords.has(word))));
  const lexicalIndex = new LexicalIndex(task.words, wordSets);
  const taskIdentifiers = new TaskIdentifiers(task);

  const subjects = items.map(({ fragment, record }, i) => {
    const facts = extractFacts(fragment.text, { kind: record.kind, exitCode: record.exitCode, testStatus: record.testStatus, path: record.path });
    const subject: IdentifierSubject = { record, text: fragment.text, facts };
    return { fragment, subject, lexical: lexicalIndex.overlap(wordSets[i] as Set<string>), taskIdentifier: taskIdentifiers.match(subject) };
  });
  const seeds = subjects.filter((s) => isSeed(s.subject, s.taskIdentifier, s.lexical)).map((s) => s.subject);
  const files = [...new Set(items.filter(({ record }) => record.kind === 'file' || record.kind === 'diff').map(({ record }) => record))];
  const changes = subjects.filter((s) => taskIdentifiers.namesChange(s.subject)).map((s) => s.subject);
  const related = new RelatedModules(seeds, files, changes);

  const scored = subjects.map(({ fragment, subject, lexical, taskIdentifier }) => {
    const { record, facts } = subject;
    const identifier = Math.max(taskIdentifier, related.value(subject));
    const errorValue = hasErrorEvidence(record, facts) ? (identifier > 0 || lexical >= 0.25 ? 1 : 0.4) : 0;
    const constraint = constraintValue(record, facts);
    const values: Record<SignalName, number> = {
      lexical,
      identifier,
      error: errorValue,
      constraint,
      failure: failureValue(record, facts),
      recency: recencyValue(record, newestTime, record.kind === 'decision' || constraint > 0),
      role: roleValue(record),
      redundancy: 0,
      priority: record.priority,
    };
    const signals = {} as Record<SignalName, SignalScore>;
    let score = 0;
    let relevance = 0;
    for (const name of SIGNAL_NAMES) {
      const value = round4(values[name]);
      const contribution = round4(value * weights[name]);
      signals[name] = { value, weight: weights[name], contribution };
      score += contribution;
      if (RELEVANCE_SIGNALS.includes(name)) relevance += contribution;
    }
    const item: ScoredFragment = { fragment, record, facts, signals, score: round4(score), relevance: round4(relevance) };
    const mandatoryReason = mandatoryReasonOf(record, facts, taskIdentifier);
    if (mandatoryReason !== undefined) item.mandatoryReason = mandatoryReason;
    return item;
  });
  keepNewestMandatoryErrors(scored);
  return { scored, related: related.list(), taskWordWeights: lexicalIndex.weights };
}

/**
 * The fragment with one signal's value changed (the redundancy found at selection, a constraint
 * carried by split-out sentences): contribution, score and relevance follow.
 */
export function withSignal(scored: ScoredFragment, name: SignalName, rawValue: number): ScoredFragment {
  const value = round4(rawValue);
  const previous = scored.signals[name];
  if (value === previous.value) return scored;
  const contribution = round4(value * previous.weight);
  const delta = contribution - previous.contribution;
  return {
    ...scored,
    signals: { ...scored.signals, [name]: { value, weight: previous.weight, contribution } },
    score: round4(scored.score + delta),
    relevance: RELEVANCE_SIGNALS.includes(name) ? round4(scored.relevance + delta) : scored.relevance,
  };
}
