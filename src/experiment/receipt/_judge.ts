/**
 * The answer matcher: one question's final text and tool calls against its answer key. The runner
 * judges with it, and `verifyReceipt` judges again from the receipt alone, so a recorded verdict
 * can only be what these rules make of the recorded answer.
 */
import { isPlainObject, ownValue } from '../../json/index.js';
import { shown as shownUpTo } from './_shown.js';
import type { ContentBlock } from '../../providers/index.js';
import type { AnswerChecks, Condition, Task, ToolCallRecord, ToolPaths } from '../_types.js';

/** The codes `judge` can fail a question with, in the order they are checked. */
export const JUDGE_FAILURE_CODES = ['NON_JSON_ANSWER', 'PATH_MISMATCH', 'ANSWER_MISMATCH', 'EVIDENCE_MISSING', 'EVIDENCE_NOT_RETURNED', 'EVIDENCE_EXTRA', 'CAVEAT_MISSING'] as const;
export type JudgeFailureCode = (typeof JUDGE_FAILURE_CODES)[number];

export interface Judgement {
  checks: AnswerChecks;
  failure?: { code: JudgeFailureCode; message: string };
}

const SHOWN_CHARS = 200;

/**
 * How many ids beyond the expected ones an answer may cite. The seed's answer key holds "the exact
 * supporting IDs"; a couple of extras (a related record the model also read) are tolerated, citing
 * every record seen (shotgun citation) is not.
 */
export const MAX_EXTRA_EVIDENCE_IDS = 2;
const shown = (value: unknown): string => shownUpTo(value, SHOWN_CHARS);

/**
 * The final answer's text: the text blocks of the end_turn turn's content, joined with "\n". The
 * runner records it as `finalText` and `verifyReceipt` checks it against the turn.
 */
export function finalTextOf(content: readonly ContentBlock[]): string {
  return content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/**
 * Judges one question. The rules, as documented for users:
 *
 * 1. **The answer JSON.** The final text is trimmed; when it is exactly one fenced code block
 *    (three backticks, optionally tagged `json`, then whitespace, ..., three backticks, with nothing
 *    before or after), the inside is taken. It must parse
 *    (JSON.parse) to an object; its `answer`, `evidenceIds` and `caveats` are kept (null when
 *    absent). Anything else fails with NON_JSON_ANSWER.
 * 2. **answer.** Both sides are normalized (Unicode NFC, trimmed, every run of whitespace made one
 *    space) and must then be equal, case included. A number (or boolean) answer is compared as
 *    its text (`String(n)`: 12 matches "12"); an object, array or null answer never matches.
 * 3. **evidenceIds.** Must be an array; its elements are compared as text, duplicates counted
 *    once. Every expected id must be among them (EVIDENCE_MISSING). Every other id (an extra) must
 *    be the `id` of an object a tool returned in this question, in the model-facing text of a call
 *    that did not fail (EVIDENCE_NOT_RETURNED), and there may be at most MAX_EXTRA_EVIDENCE_IDS (2)
 *    extras (EVIDENCE_EXTRA): citing everything seen is not evidence.
 * 4. **caveats.** Must be an array of strings (otherwise every required caveat is missing). Each
 *    required caveat must equal some returned caveat, both normalized (NFC, trimmed, whitespace
 *    runs made one space) and compared case-insensitively: the seed's caveats are exact required
 *    strings, so one merely containing it ("this is NOT a frozen snapshot") does not match.
 * 5. **Tool path** (the optimized condition only; the baseline's is always right). Only calls that
 *    returned a result that is not an error count.
 *    - aggregate: a call to the count tool;
 *    - later_page: a call to the page tool whose cursor argument is a non-empty string;
 *    - lookup: a call to the search tool that neither matches on the detail field nor asks for it
 *      in its fields argument (when that is an array), and whose model-facing text holds (at any
 *      depth) an object whose `id` is an expected evidence id; then, later, a call to the detail
 *      tool whose id argument is one of the expected evidence ids.
 *
 * The first failing rule, in the order NON_JSON_ANSWER, PATH_MISMATCH, ANSWER_MISMATCH,
 * EVIDENCE_MISSING, EVIDENCE_NOT_RETURNED, EVIDENCE_EXTRA, CAVEAT_MISSING, is the question's
 * failure, with a sentence giving the expected and the received values (long values cut to 200
 * characters).
 *
 * When `finalText` is undefined (the model never ended its turn), the checks are still computed
 * (parsed is null, nothing matches) but judge reports no failure of its own: the runner's failure
 * (a stop reason, a turn limit, a tool failure) is the question's failure.
 */
export function judge(task: Task, condition: Condition, paths: ToolPaths, calls: ToolCallRecord[], finalText: string | undefined): Judgement {
  const path = condition === 'baseline' ? undefined : pathProblem(task, paths, calls);
  const read = finalText === undefined ? { problem: 'there is no final answer' } : readAnswer(finalText);
  const parsed = 'parsed' in read ? read.parsed : null;
  const answerMatches = parsed !== null && answerEquals(parsed.answer, task.expectedAnswer);
  const missingEvidenceIds = missingIds(parsed?.evidenceIds, task.evidenceIds);
  const extraEvidenceIds = extraIds(parsed?.evidenceIds, task.evidenceIds);
  const returned = returnedIds(calls);
  const unreturnedEvidenceIds = extraEvidenceIds.filter((id) => !returned.has(id));
  const missingCaveats = missingCaveatsOf(parsed?.caveats, task.requiredCaveats);
  const checks: AnswerChecks = { parsed, answerMatches, missingEvidenceIds, extraEvidenceIds, unreturnedEvidenceIds, missingCaveats, pathOk: path === undefined, ...(path === undefined ? {} : { pathProblem: path }) };
  if (finalText === undefined) return { checks };
  const failure = firstFailure(task, checks, 'problem' in read ? read.problem : undefined, finalText);
  return failure === undefined ? { checks } : { checks, failure };
}

function firstFailure(task: Task, checks: AnswerChecks, parseProblem: string | undefined, finalText: string): Judgement['failure'] {
  const parsed = checks.parsed;
  if (parsed === null) {
    return { code: 'NON_JSON_ANSWER', message: `The final answer is not a JSON object {"answer", "evidenceIds", "caveats"} (${parseProblem ?? 'unreadable'}); got ${shown(finalText.trim())}.` };
  }
  if (!checks.pathOk) return { code: 'PATH_MISMATCH', message: `The tool path of this ${task.kind} task was not taken: ${checks.pathProblem ?? 'no path'}` };
  if (!checks.answerMatches) {
    return { code: 'ANSWER_MISMATCH', message: `The answer ${shown(parsed.answer)} does not match the expected ${shown(task.expectedAnswer)}.` };
  }
  if (checks.missingEvidenceIds.length > 0) {
    return { code: 'EVIDENCE_MISSING', message: `The answer does not cite the evidence ids ${shown(checks.missingEvidenceIds)}; it cited ${shown(parsed.evidenceIds)}.` };
  }
  if (checks.unreturnedEvidenceIds.length > 0) {
    return { code: 'EVIDENCE_NOT_RETURNED', message: `The answer cites ${shown(checks.unreturnedEvidenceIds)}, ids no tool returned in this question; it cited ${shown(parsed.evidenceIds)}.` };
  }
  if (checks.extraEvidenceIds.length > MAX_EXTRA_EVIDENCE_IDS) {
    return {
      code: 'EVIDENCE_EXTRA',
      message: `The answer cites ${checks.extraEvidenceIds.length} ids beyond the expected ${shown(task.evidenceIds)} (at most ${MAX_EXTRA_EVIDENCE_IDS} allowed): ${shown(checks.extraEvidenceIds)}.`,
    };
  }
  if (checks.missingCaveats.length > 0) {
    return { code: 'CAVEAT_MISSING', message: `The answer's caveats include none equal to the required ${shown(checks.missingCaveats)}; it gave ${shown(parsed.caveats)}.` };
  }
  return undefined;
}

// ---- the answer JSON --------------------------------------------------------------------------

/** One fenced block, optionally tagged json, and nothing around it. */
const FENCED = /^```(?:json)?\s([\s\S]*)```$/;

function readAnswer(finalText: string): { parsed: NonNullable<AnswerChecks['parsed']> } | { problem: string } {
  let body = finalText.trim();
  const fenced = FENCED.exec(body);
  if (fenced !== null && !(fenced[1] ?? '').includes('```')) body = (fenced[1] ?? '').trim();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { problem: 'it does not parse as JSON' };
  }
  if (!isPlainObject(value)) return { problem: `it parses to ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}, not an object` };
  return { parsed: { answer: value.answer ?? null, evidenceIds: value.evidenceIds ?? null, caveats: value.caveats ?? null } };
}

function normalize(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/g, ' ');
}

function answerEquals(answer: unknown, expected: string): boolean {
  if (typeof answer === 'object' || answer === undefined) return false; // objects, arrays, null
  return normalize(String(answer)) === normalize(expected);
}

function missingIds(cited: unknown, expected: readonly string[]): string[] {
  if (!Array.isArray(cited)) return [...expected];
  const present = new Set(cited.map((id) => String(id)));
  return expected.filter((id) => !present.has(id));
}

/** The cited ids (as text, first occurrence kept) that are not expected. */
function extraIds(cited: unknown, expected: readonly string[]): string[] {
  if (!Array.isArray(cited)) return [];
  const wanted = new Set(expected);
  return [...new Set(cited.map((id) => String(id)))].filter((id) => !wanted.has(id));
}

/** The ids of objects (at any depth) in the model-facing text of the calls that returned a result. */
function returnedIds(calls: readonly ToolCallRecord[]): Set<string> {
  const ids = new Set<string>();
  for (const call of calls) {
    if (call.isError || call.error !== undefined) continue;
    for (const document of jsonDocuments(call.modelFacingText)) collectIds(document, ids);
  }
  return ids;
}

function missingCaveatsOf(given: unknown, required: readonly string[]): string[] {
  if (!Array.isArray(given) || !given.every((caveat) => typeof caveat === 'string')) return [...required];
  const returned = new Set((given as string[]).map((caveat) => normalize(caveat).toLowerCase()));
  return required.filter((caveat) => !returned.has(normalize(caveat).toLowerCase()));
}

// ---- the tool path ----------------------------------------------------------------------------

/** Why the optimized condition's path was not taken, or undefined when it was. */
function pathProblem(task: Task, paths: ToolPaths, calls: readonly ToolCallRecord[]): string | undefined {
  const answered = (call: ToolCallRecord, name: string): boolean => call.name === name && !call.isError && call.error === undefined;
  const argument = (call: ToolCallRecord, name: string): unknown => (isPlainObject(call.arguments) ? ownValue(call.arguments, name) : undefined);
  switch (task.kind) {
    case 'aggregate': {
      const { count } = paths.aggregate;
      return calls.some((call) => answered(call, count)) ? undefined : `no call to ${count} returned a result.`;
    }
    case 'later_page': {
      const { page, cursorArgument } = paths.later_page;
      const continued = calls.some((call) => {
        const cursor = argument(call, cursorArgument);
        return answered(call, page) && typeof cursor === 'string' && cursor !== '';
      });
      return continued ? undefined : `no call to ${page} passed a ${cursorArgument} and returned a result (the answer needs a later page).`;
    }
    case 'lookup': {
      const { search, matchArgument, fieldsArgument, detail, idArgument } = paths.lookup;
      const detailField = task.detailField;
      const brief = calls.findIndex((call) => {
        if (!answered(call, search) || argument(call, matchArgument) === detailField) return false;
        const fields = argument(call, fieldsArgument);
        if (Array.isArray(fields) && fields.includes(detailField)) return false;
        return holdsEvidence(call.modelFacingText, task.evidenceIds);
      });
      if (brief === -1) {
        return `no call to ${search} without the detail field ${JSON.stringify(detailField)} returned a result listing an evidence id (${task.evidenceIds.join(', ')}).`;
      }
      const fetched = calls.slice(brief + 1).some((call) => {
        const id = argument(call, idArgument);
        return answered(call, detail) && typeof id === 'string' && task.evidenceIds.includes(id);
      });
      return fetched ? undefined : `no call to ${detail} for an evidence id (${task.evidenceIds.join(', ')}) came after the brief ${search} call.`;
    }
  }
}

/** Whether the text (JSON as a whole, or one of its lines) holds an object whose `id` is an evidence id. */
function holdsEvidence(text: string, evidenceIds: readonly string[]): boolean {
  return jsonDocuments(text).some((document) => {
    const ids = new Set<string>();
    collectIds(document, ids);
    return evidenceIds.some((id) => ids.has(id));
  });
}

/** The text parsed as JSON as a whole, and each of its lines that parses (JSON Lines results). */
function jsonDocuments(text: string): unknown[] {
  const documents: unknown[] = [];
  for (const document of [text, ...(text.includes('\n') ? text.split('\n') : [])]) {
    try {
      documents.push(JSON.parse(document));
    } catch {
      // not JSON: holds no ids
    }
  }
  return documents;
}

/** Adds the `id` (string or number, as text) of every object in the value. Iterative: a parsed value may nest deeper than the stack. */
function collectIds(value: unknown, ids: Set<string>): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (!Array.isArray(node)) {
      const id = ownValue(node as Record<string, unknown>, 'id');
      if (typeof id === 'string' || typeof id === 'number') ids.add(String(id));
    }
    for (const child of Array.isArray(node) ? (node as unknown[]) : Object.values(node)) stack.push(child);
  }
}
