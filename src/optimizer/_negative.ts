import { STOP_WORDS } from './_extract-code.js';
import type { NormalizedRecord } from './_types.js';

// "Ignore the lint output", "don't worry about the checkov findings", "the e2e failures are a red
// herring": the user saying what not to look at. The words such a sentence points at (`lint`,
// `checkov`, `e2e`) are read from the user's and system's messages and the task; a record whose
// label (its command, tool or path) carries one of them is output the user set aside.

/** A verb phrase whose object is what to set aside: "ignore the lint output". */
const SET_ASIDE_BEFORE = /\b(?:ignore|disregard|skip|forget about|never mind|don'?t (?:worry|bother) about|do not (?:worry|bother) about|no need to (?:look at|fix|worry about)|leave out|leave aside)\s+(?:the\s+|those\s+|these\s+|any\s+|all\s+(?:the\s+)?)?([^.,;:!?()\n]{1,80})/gi;
/** A clause that says its subject is beside the point: "the e2e failures are a red herring". */
const SET_ASIDE_AFTER = /(?:^|[.,;:!?]\s*|\b(?:and|but|so)\s+)(?:the\s+|those\s+|these\s+|that\s+)?([^.,;:!?()\n]{1,60}?)\s+(?:is|are|was|were)\s+(?:just\s+|all\s+|only\s+)?(?:unrelated|irrelevant|noise|a red herring|red herrings|pre-?existing|not (?:related|relevant|the (?:problem|issue|cause)))\b/gi;
/** Where the object phrase stops: a new clause, or a preposition ("the warnings in quarry-core" sets aside the warnings, not the crate). */
const CLAUSE_END = /\b(?:because|since|as|they|those|these|it|it's|that's|which|we|i|and then|for now|until|unless|when|while|and|but|so|are|is|were|was|in|on|from|for|of|with|at|to|by|under|inside|about|after|before)\b/i;
/** A set-aside word: a name as written, hyphens and underscores kept (`quarry-core`, `needless_borrow` are one word each). */
const NAME_WORD = /[a-z0-9][a-z0-9_-]*[a-z0-9]|[a-z0-9]/g;
/** Words that name a kind of thing every tool prints, not which tool: they single nothing out. */
const GENERIC_WORDS = new Set([
  'output', 'outputs', 'warning', 'warnings', 'error', 'errors', 'message', 'messages', 'stuff', 'thing', 'things', 'result', 'results',
  'log', 'logs', 'line', 'lines', 'run', 'runs', 'file', 'files', 'noise', 'step', 'steps', 'check', 'checks', 'finding', 'findings',
  'issue', 'issues', 'problem', 'problems', 'report', 'reports', 'old', 'ones', 'one', 'part', 'bit', 'section', 'failure', 'failures',
  'test', 'tests', 'build', 'code', 'change', 'changes', 'now', 'moment', 'time', 'completely', 'entirely', 'totally', 'please',
  'job', 'jobs', 'pile', 'bunch', 'lot', 'lots', 'rest', 'whole', 'think', 'guess', 'believe', 'suspect', 'pretty', 'sure', 'probably', 'honestly', 'really', 'actually',
]);

/** The words `text` asks to set aside (lower-cased, as `tokenizeWords` spells them), in order of appearance. */
export function setAsideWords(text: string): string[] {
  const words = new Set<string>();
  // After "ignore" the object runs to the first clause break or preposition; before "is unrelated"
  // the subject is the last clause before it ("I think | the flaky storybook job").
  const take = (phrase: string, clauseAt: 'first' | 'last'): void => {
    const clauses = phrase.split(CLAUSE_END);
    const clause = (clauseAt === 'first' ? clauses[0] : clauses[clauses.length - 1]) ?? '';
    for (const word of clause.toLowerCase().replace(/'s\b/g, '').match(NAME_WORD) ?? []) {
      if (!GENERIC_WORDS.has(word) && !STOP_WORDS.has(word) && !/^\d+$/.test(word) && word.length >= 2) words.add(word);
    }
  };
  for (const match of text.matchAll(SET_ASIDE_BEFORE)) take(match[1] ?? '', 'first');
  for (const match of text.matchAll(SET_ASIDE_AFTER)) take(match[1] ?? '', 'last');
  return [...words];
}

/** The words the session's user and system messages set aside, except those the task itself names (the task wins). */
export function sessionSetAsideWords(records: readonly NormalizedRecord[], taskWords: readonly string[]): Set<string> {
  const task = new Set(taskWords);
  const words = new Set<string>();
  for (const record of records) {
    if (record.kind !== 'message' || (record.role !== 'user' && record.role !== 'system')) continue;
    for (const word of setAsideWords(record.text)) if (!task.has(word)) words.add(word);
  }
  return words;
}

/**
 * Whether the record is output of something set aside: a word of its label (`npm run lint`,
 * `checkov -d .`, `cargo clippy`) is, or ends with, a set-aside word (`lint` sets aside `eslint` and
 * `golangci-lint`). Only tool output and test results are set aside: "ignore the warnings" is about
 * what a run printed, never a file, a diff, an error record or what anyone said.
 */
export function isSetAside(record: NormalizedRecord, words: ReadonlySet<string>): boolean {
  if (words.size === 0 || (record.kind !== 'toolOutput' && record.kind !== 'testResult')) return false;
  const label = record.label.toLowerCase();
  for (const part of label.match(NAME_WORD) ?? []) {
    if (part.length < 2) continue;
    if (words.has(part)) return true;
    for (const word of words) if (word.length >= 4 && part.endsWith(word)) return true;
  }
  return false;
}
