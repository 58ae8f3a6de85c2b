import { McpctxError } from '../errors/index.js';
import { extractFacts, extractTaskTerms, tokenizeWords } from './_extract.js';
import { failingValue, failureRanks, isFailingRecord, isFailureTask, isGenericFailureTask, showsError } from './_failure.js';
import { IDENTIFIER_VALUE, RelatedModules, TaskIdentifiers, type IdentifierSubject } from './_identifiers.js';
import { isSetAside, sessionSetAsideWords } from './_negative.js';
import { isNewerRecord } from './_recency.js';
import { mandatoryScope, outOfScope, scopeMandatory } from './_scope.js';
import { describeValue } from '../json/index.js';
import type {
  DemotedEntry,
  MandatoryScope,
  Extraction,
  Fragment,
  NormalizedRecord,
  ScoringWeights,
  SignalName,
  SignalScore,
  ScoredFragment,
  TaskTerms,
} from './_types.js';

export const DEFAULT_WEIGHTS: Readonly<ScoringWeights> = Object.freeze({
  lexical: 3,
  identifier: 4,
  error: 3,
  constraint: 5,
  failure: 2,
  failing: 2,
  recency: 1.5,
  role: 1,
  redundancy: -2,
  repeat: -4,
  ignored: -8,
  priority: 1,
});

export const SIGNAL_NAMES: readonly SignalName[] = Object.keys(DEFAULT_WEIGHTS) as SignalName[];
/**
 * The signals that say a fragment bears on this task, for or against. Error and failure do not:
 * an unrelated failure is still unrelated; they rank what is relevant. Failing does, and is 0 unless
 * the task is about making something pass. Repeat (a record's later fragments) and ignored (output
 * the user set aside) count against. Recency, role and priority only order.
 */
export const RELEVANCE_SIGNALS: readonly SignalName[] = ['lexical', 'identifier', 'constraint', 'failing', 'repeat', 'ignored'];
/** Lexical overlap from which a fragment touches the task (with any identifier match): it then stays mandatory out of scope. */
const TOUCHES_LEXICAL = 0.15;
/** The k-th best fragment of one record (k from 0) loses 1 - REPEAT_DECAY^k of what the record's own name earns it: diminishing returns. */
const REPEAT_DECAY = 0.5;
/** A task that names what it is about still follows a failure that does not touch it, at this share. */
const UNTOUCHED_FAILURE_SHARE = 0.5;
/** Failing records from the newest down to this rank value lead to the code they name (0.6^2: the three newest). */
const SEED_FAILURE_VALUE = 0.36;
/** A failing fragment sharing this much of the task's vocabulary leads to the code worth seeing. */
const SEED_LEXICAL = 0.05;

const HALF_LIFE_MS = 7 * 24 * 60 * 60 * 1000;
const DECISION_RECENCY_FLOOR = 0.7;
/** Recency of a record without a timestamp: neither fresh nor stale. */
const UNDATED_RECENCY = 0.5;
const ROLE_VALUE = { user: 1, system: 1, assistant: 0.6, tool: 0.4 } as const;
/** Tool output, errors, tests, files and diffs are machine output: the weight of the tool role. */
const MACHINE_ROLE_VALUE = ROLE_VALUE.tool;


export function resolveWeights(overrides: Partial<ScoringWeights> | undefined): ScoringWeights {
  const weights: ScoringWeights = { ...DEFAULT_WEIGHTS };
  for (const [name, weight] of Object.entries(overrides ?? {})) {
    if (!Object.hasOwn(DEFAULT_WEIGHTS, name)) {
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

  /** `documentFrequency(word)`: how many of the `fragments` fragments hold the word. */
  constructor(taskWords: readonly string[], fragments: number, documentFrequency: (word: string) => number) {
    let total = 0;
    for (const word of taskWords) {
      const idf = Math.log(1 + fragments / (1 + documentFrequency(word)));
      this.idf.set(word, idf);
      total += idf;
    }
    this.total = total;
  }

  /** Each task word's IDF weight over this session's fragments. */
  get weights(): ReadonlyMap<string, number> {
    return this.idf;
  }

  /** `words` holds task words only, added in the task's order: the same sum, in the same order, as going through the task's words. */
  overlap(words: ReadonlySet<string> | undefined): number {
    if (this.total === 0 || words === undefined) return 0;
    let shared = 0;
    for (const word of words) shared += this.idf.get(word) ?? 0;
    return shared / this.total;
  }
}

function constraintValue(record: NormalizedRecord, facts: Extraction): number {
  if (record.kind === 'decision') return record.decisionStatus === 'accepted' ? 1 : record.decisionStatus === 'rejected' ? 0.6 : 0.2;
  if (record.kind === 'message' && facts.requirements.length > 0) return record.role === 'user' || record.role === 'system' ? 1 : 0.3;
  return 0;
}


/** The fragment states an error (a signature, a failing test, an error record), not only where one happened. */
function statesError(record: NormalizedRecord, facts: Extraction): boolean {
  return record.kind === 'error' || facts.errorSignatures.length > 0 || facts.testFailures.length > 0;
}

function failureValue(record: NormalizedRecord, facts: Extraction): number {
  return isFailingRecord(record, facts) ? 1 : 0;
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
  if (record.kind === 'testResult' && record.testStatus === 'failed') return NEWEST_TEST_FAILURE;
  const failing = record.kind === 'error' || facts.outcome === 'failure';
  // The fragment must state the error itself; stack frames and locations alone are where, not what.
  if (failing && statesError(record, facts) && identifier >= IDENTIFIER_VALUE.symbol) return ERROR_NAMING_TASK;
  return undefined;
}

const ERROR_NAMING_TASK = 'error naming a task identifier';
const NEWEST_TEST_FAILURE = 'newest failure of a test';

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

/** The failures a fragment shows, digits masked (timings, line numbers); '' when it shows none. */
export function failuresKey(item: ScoredFragment): string {
  const { testFailures, errorSignatures } = item.facts;
  if (testFailures.length === 0 && errorSignatures.length === 0) return '';
  return [...testFailures, '\u0000', ...errorSignatures].map((line) => line.replace(/\d+/g, '#')).join('\n');
}

/**
 * Of the failing test runs, only the newest that shows a given set of failures is mandatory: an
 * agent that ran the same failing spec four ways (with and without a filter, under another
 * wrapper) needs the newest run, not four. A run whose failures cannot be read stays mandatory.
 */
function keepNewestMandatoryTestFailures(scored: ScoredFragment[]): void {
  const keys = new Map<ScoredFragment, string>();
  for (const item of scored) {
    const key = item.mandatoryReason === NEWEST_TEST_FAILURE ? failuresKey(item) : '';
    if (key !== '') keys.set(item, key);
  }
  const keep = new Set(newestByKey(keys.keys(), (item) => keys.get(item)).values());
  for (const item of keys.keys()) if (!keep.has(item)) delete item.mandatoryReason;
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
  facts: Extraction;
}

/** The task-independent reading of the session (`prepareRecords`) that scoring starts from. */
export interface ScoringSource {
  fragments: readonly ScoringInput[];
  /** The records of `fragments`, each once, in their order. */
  records: readonly NormalizedRecord[];
  /** For each word, the positions in `fragments` of the fragments holding it. */
  words: ReadonlyMap<string, readonly number[]>;
}

export interface Scoring {
  scored: ScoredFragment[];
  /** What mandatory content was scoped to, and what was demoted from it. */
  scope: MandatoryScope;
  demoted: DemotedEntry[];
  /** Words the user's messages set aside ("ignore the lint output"). */
  setAside: string[];
  /** Modules reached from the seeds, with their hop counts (for the report). */
  related: Array<{ stem: string; hops: number }>;
  /** Each task word's IDF weight over the session, for finding the lines of a fragment that matter. */
  taskWordWeights: ReadonlyMap<string, number>;
  /** The words of the accepted decisions in the task's scope, for the same (`decisionWordsOf`). */
  decisionWords: ReadonlyMap<string, number>;
}

function isSeed(subject: IdentifierSubject, taskIdentifier: number, lexical: number, failing: number): boolean {
  const { record, facts } = subject;
  if (taskIdentifier >= IDENTIFIER_VALUE.symbol) return true;
  if (record.kind === 'testResult' && record.testStatus === 'failed') return true;
  if (!(failureValue(record, facts) > 0 && showsError(record, facts))) return false;
  return taskIdentifier > 0 || lexical >= SEED_LEXICAL || failing >= SEED_FAILURE_VALUE;
}

function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1;
  return lines;
}

/**
 * Diminishing returns within a record: its optional fragments, best first, take a growing share of
 * the identifier value the record's name gives each of them away (the repeat signal), so a long
 * output whose name matches the task (every fragment of `Cargo.lock` for a task that says "cargo")
 * does not take the budget from a better record. What a fragment earns by its own text stays.
 */
function withDiminishingReturns(scored: readonly ScoredFragment[]): ScoredFragment[] {
  const byRecord = new Map<string, ScoredFragment[]>();
  for (const item of scored) {
    if (item.mandatoryReason !== undefined) continue;
    const list = byRecord.get(item.record.id) ?? [];
    list.push(item);
    byRecord.set(item.record.id, list);
  }
  const penalized = new Map<ScoredFragment, ScoredFragment>();
  for (const list of byRecord.values()) {
    if (list.length < 2) continue;
    list.sort((a, b) => b.score - a.score || a.fragment.index - b.fragment.index);
    list.forEach((item, k) => {
      if (k > 0 && item.recordIdentifier > 0) penalized.set(item, withSignal(item, 'repeat', (1 - REPEAT_DECAY ** k) * item.recordIdentifier));
    });
  }
  return scored.map((item) => penalized.get(item) ?? item);
}

/**
 * Stage 4: every fragment's signals, each with value, weight and contribution. Redundancy is left at
 * 0 here: it depends on what ranks above, and selection fills it in.
 */
export function scoreFragments(source: ScoringSource, task: TaskTerms, weights: ScoringWeights, options: { session?: string } = {}): Scoring {
  const items = source.fragments;
  let newestTime: number | undefined;
  for (const { record } of items) if (record.time !== undefined && (newestTime === undefined || record.time > newestTime)) newestTime = record.time;
  // Each fragment's share of the task's words, from the word postings: only fragments holding one are visited.
  const taskWordsIn: Array<Set<string> | undefined> = new Array<Set<string> | undefined>(items.length);
  for (const word of task.words) {
    for (const position of source.words.get(word) ?? []) (taskWordsIn[position] ??= new Set<string>()).add(word);
  }
  const lexicalIndex = new LexicalIndex(task.words, items.length, (word) => source.words.get(word)?.length ?? 0);
  const taskIdentifiers = new TaskIdentifiers(task);

  const records = source.records;
  const scope = mandatoryScope(records, options.session);
  const decided = acceptedInScope(records, scope);
  const decisionIdentifiers = decided.length === 0 ? undefined : decisionIdentifiersOf(decided);
  const setAside = sessionSetAsideWords(records, task.words);
  const failureTask = isFailureTask(task);

  const extracted = items.map(({ fragment, record, facts }, i) => {
    const subject: IdentifierSubject = { record, text: fragment.text, facts };
    return {
      fragment,
      subject,
      lexical: lexicalIndex.overlap(taskWordsIn[i]),
      taskIdentifier: taskIdentifiers.match(subject),
      decided: decisionIdentifiers === undefined ? 0 : DECIDED_SHARE * decisionIdentifiers.match(subject),
      failing: 0,
    };
  });
  // Output the user set aside is not the failure the task is about.
  const ranks = failureRanks(extracted.filter((s) => isFailingRecord(s.subject.record, s.subject.facts) && !isSetAside(s.subject.record, setAside)).map((s) => s.subject.record));

  // A task that names its identifiers is about the failures that touch them; one that names none
  // ("the build is broken") is about the newest failures, whatever they say.
  const followsAnyFailure = isGenericFailureTask(task, taskIdentifiers.namesAny);
  // Filled in place: one object per fragment, not a copy each (100,000 records have 50,000 fragments).
  const subjects = extracted;
  for (const s of subjects) {
    const rank = ranks.get(s.subject.record.id);
    if (!failureTask || rank === undefined) continue;
    const touches = s.taskIdentifier > 0 || s.lexical >= TOUCHES_LEXICAL;
    s.failing = failingValue(rank, s.subject.record, s.subject.facts) * (followsAnyFailure || touches ? 1 : UNTOUCHED_FAILURE_SHARE);
  }
  const seeds = subjects.filter((s) => isSeed(s.subject, s.taskIdentifier, s.lexical, s.failing)).map((s) => s.subject);
  const files = [...new Set(items.filter(({ record }) => record.kind === 'file' || record.kind === 'diff').map(({ record }) => record))];
  const changes = subjects.filter((s) => taskIdentifiers.namesChange(s.subject)).map((s) => s.subject);
  const related = new RelatedModules(seeds, files, changes);
  // What a record's name alone (its path or command) earns each of its fragments.
  const recordLevel = new Map<NormalizedRecord, number>();
  const noFacts = new Map<string, Extraction>();
  for (const record of records) {
    let facts = noFacts.get(record.kind);
    if (facts === undefined) {
      facts = extractFacts('', { kind: record.kind });
      noFacts.set(record.kind, facts);
    }
    const nameOnly: IdentifierSubject = { record, text: '', facts };
    recordLevel.set(record, Math.max(taskIdentifiers.match(nameOnly), related.value(nameOnly)));
  }

  // Most signals of most fragments are 0: those share one entry per signal (tens of MB on 100k records).
  const zeroSignals = Object.fromEntries(SIGNAL_NAMES.map((name) => [name, { value: 0, weight: weights[name], contribution: round4(0 * weights[name]) }])) as Record<SignalName, SignalScore>;
  const scored = subjects.map(({ fragment, subject, lexical, taskIdentifier, decided, failing }) => {
    const { record, facts } = subject;
    const firstLine = fragment.firstLine;
    const lastLine = firstLine + lineCount(fragment.text) - 1;
    const namedLines = related.namedLines(record).filter((line) => line >= firstLine && line <= lastLine);
    // The fragment holding the line a failure names is the place to look, above the rest of its file.
    const identifier = namedLines.length > 0 ? IDENTIFIER_VALUE.path : Math.max(taskIdentifier, related.value(subject), decided);
    const ignored = isSetAside(record, setAside);
    // Full value for a fragment that states an error bearing on the task; where only frames and locations show, less.
    // A fragment holding the line a failure points at is where the error is, as much as the error's own text.
    const errorValue =
      namedLines.length > 0 || (statesError(record, facts) && (identifier > 0 || lexical >= 0.25)) ? 1 : showsError(record, facts) ? 0.4 : 0;
    const constraint = constraintValue(record, facts);
    const values: Record<SignalName, number> = {
      lexical,
      identifier,
      error: errorValue,
      constraint,
      failure: failureValue(record, facts),
      failing,
      recency: recencyValue(record, newestTime, record.kind === 'decision' || constraint > 0),
      role: roleValue(record),
      redundancy: 0,
      repeat: 0,
      ignored: ignored ? 1 : 0,
      priority: record.priority,
    };
    const signals = {} as Record<SignalName, SignalScore>;
    let score = 0;
    let relevance = 0;
    for (const name of SIGNAL_NAMES) {
      const value = round4(values[name]);
      const zero = zeroSignals[name];
      const contribution = Object.is(value, 0) ? zero.contribution : round4(value * weights[name]);
      signals[name] = Object.is(value, 0) ? zero : { value, weight: weights[name], contribution };
      score += contribution;
      if (RELEVANCE_SIGNALS.includes(name)) relevance += contribution;
    }
    const touchesTask = taskIdentifier > 0 || lexical >= TOUCHES_LEXICAL;
    // What the fragment's own text adds above its record's name is its own; only the name's share repeats.
    const recordIdentifier = Math.min(identifier, recordLevel.get(record) ?? 0);
    const item: ScoredFragment = { fragment, record, facts, signals, score: round4(score), relevance: round4(relevance), touchesTask, recordIdentifier };
    if (namedLines.length > 0) item.namedLines = namedLines;
    // What the user set aside is never mandatory, whatever it names.
    const mandatoryReason = ignored ? undefined : mandatoryReasonOf(record, facts, taskIdentifier);
    if (mandatoryReason !== undefined) item.mandatoryReason = mandatoryReason;
    return item;
  });
  keepNewestMandatoryErrors(scored);
  keepNewestMandatoryTestFailures(scored);
  const demoted = scopeMandatory(scored, scope);
  return {
    scored: withDiminishingReturns(scored),
    scope,
    demoted,
    setAside: [...setAside],
    related: related.list(),
    taskWordWeights: lexicalIndex.weights,
    decisionWords: decisionWordsOf(decided),
  };
}

/** What naming an accepted decision's identifier earns a fragment, as a share of naming the task's. */
const DECIDED_SHARE = 0.5;

/** The accepted decisions in the task's scope: what the session settled on doing. */
function acceptedInScope(records: readonly NormalizedRecord[], scope: MandatoryScope): NormalizedRecord[] {
  return records.filter((record) => record.kind === 'decision' && record.decisionStatus === 'accepted' && outOfScope(record, scope) === undefined);
}

/**
 * The identifiers (paths, files, symbols) the accepted decisions name: a decision says where the
 * change goes ("give unique_constraint the index name in Membership.changeset/2"), so a fragment
 * naming them bears on the task at half the value of one naming the task's own. Their plain words
 * are left out here: a decision's prose names no file.
 */
function decisionIdentifiersOf(decided: readonly NormalizedRecord[]): TaskIdentifiers {
  const terms = extractTaskTerms(decided.map((record) => record.text).join('\n'));
  return new TaskIdentifiers({ ...terms, words: [] });
}

/**
 * The accepted decisions' words, each weighing 1, for excerpts: the lines of a file that best match
 * a decision ("parse the since/until strings in for_job/2") are where the change goes, even when the
 * task's own words are elsewhere in the file. Excerpts show them beside the lines that best match the task.
 */
function decisionWordsOf(decided: readonly NormalizedRecord[]): ReadonlyMap<string, number> {
  const words = new Map<string, number>();
  for (const record of decided) for (const word of tokenizeWords(record.text)) words.set(word, 1);
  return words;
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
