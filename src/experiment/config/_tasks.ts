/**
 * The tasks file: a JSON array of questions with their answer keys. Where a problem stops the
 * whole run and where it only refuses one task:
 *
 * - The FILE is refused (INVALID_CONFIG with `data.file` and `data.problems`, nothing runs) when it
 *   is not UTF-8 JSON, not an array, holds no task or more than MAX_TASKS, or when an entry cannot be
 *   named in the receipt: it is not an object, its `kind` is not lookup/aggregate/later_page, or its
 *   `id` is not a non-empty string or repeats another task's.
 * - Anything else wrong with an entry (a missing or mistyped field, an unknown key, a field of
 *   another kind) refuses only that TASK: it is kept, with what could be read of it, and its
 *   problems go to `validateTasks`, which records it as refused (ok=false) with those reasons.
 */
import { configError, type ConfigProblem } from '../../config/index.js';
import { type McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import { TASK_KINDS, type Task, type TaskKind } from '../_types.js';

export const MAX_TASKS = 200;

const COMMON_KEYS = ['id', 'kind', 'question', 'expectedAnswer', 'evidenceIds', 'requiredCaveats'] as const;
/** The fields only one kind of task has, and must have (but those MAY_BE_ABSENT). */
const KIND_KEYS: Readonly<Record<TaskKind, readonly ('detailField' | 'aggregateField' | 'aggregateValue' | 'pageField' | 'pageValue')[]>> = {
  lookup: ['detailField'],
  aggregate: ['aggregateField', 'aggregateValue'],
  later_page: ['pageField', 'pageValue'],
};
/** Values that may be empty: `""` is a value to match (it matches empty fields). */
const MAY_BE_EMPTY = new Set(['aggregateValue', 'pageValue']);
/**
 * Kind fields a task may leave out. The seed's later_page entry has no page query ("inspect the
 * full records yourself"): without one, validation cannot place the evidence and says so.
 */
const MAY_BE_ABSENT = new Set(['pageField', 'pageValue']);

export interface ParsedTasks {
  tasks: Task[];
  /** One list per task, same order: what is wrong with the entry as written (empty when nothing). */
  problems: string[][];
}

/** The tasks in a tasks file's bytes (see the file comment for what refuses the file). */
export function parseTasks(bytes: Uint8Array, file: string): ParsedTasks {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  } catch (error) {
    throw refuse([{ path: '(file)', reason: `is not valid UTF-8 JSON: ${(error as Error).message}` }], file);
  }
  if (!Array.isArray(parsed)) throw refuse([{ path: '(file)', reason: 'must be a JSON array of tasks' }], file);
  if (parsed.length === 0) throw refuse([{ path: '(file)', reason: 'holds no task; write at least one (kind, question, expectedAnswer, evidenceIds)' }], file);
  if (parsed.length > MAX_TASKS) throw refuse([{ path: '(file)', reason: `holds ${parsed.length} tasks, over the limit of ${MAX_TASKS}` }], file);

  const fileProblems: ConfigProblem[] = [];
  const firstWithId = new Map<string, number>();
  const result: ParsedTasks = { tasks: [], problems: [] };
  parsed.forEach((entry: unknown, index) => {
    const at = `[${index}]`;
    if (!isPlainObject(entry)) {
      fileProblems.push({ path: at, reason: 'must be an object (a task)' });
      return;
    }
    const kind = TASK_KINDS.find((name) => name === entry.kind);
    if (kind === undefined) {
      fileProblems.push({ path: `${at}.kind`, reason: `must be one of ${TASK_KINDS.join(', ')}` });
      return;
    }
    const id = entry.id === undefined ? `${kind}-${index + 1}` : entry.id;
    if (typeof id !== 'string' || id.trim() === '') {
      fileProblems.push({ path: `${at}.id`, reason: 'must be a non-empty string (or left out for the default <kind>-<position>)' });
      return;
    }
    const earlier = firstWithId.get(id);
    if (earlier !== undefined) {
      fileProblems.push({ path: `${at}.id`, reason: `"${id}" is the id of task [${earlier}] too; ids must be unique (the default is <kind>-<position>, from 1)` });
      return;
    }
    firstWithId.set(id, index);
    const { task, problems } = readTask(entry, id, kind);
    result.tasks.push(task);
    result.problems.push(problems);
  });
  if (fileProblems.length > 0) throw refuse(fileProblems, file);
  return result;
}

/** A task from an entry whose kind and id are good: every field read as far as it can be. */
function readTask(entry: Readonly<Record<string, unknown>>, id: string, kind: TaskKind): { task: Task; problems: string[] } {
  const problems: string[] = [];
  const own = KIND_KEYS[kind];
  for (const key of Object.keys(entry)) {
    if ((COMMON_KEYS as readonly string[]).includes(key) || (own as readonly string[]).includes(key)) continue;
    const owner = TASK_KINDS.find((other) => (KIND_KEYS[other] as readonly string[]).includes(key));
    problems.push(
      owner === undefined
        ? `Unknown key "${key}"; ${aTask(kind)} has ${[...COMMON_KEYS, ...own].join(', ')}.`
        : `${key} belongs to ${owner} tasks, not to ${aTask(kind)}; remove it or change kind.`,
    );
  }
  const task: Task = {
    id,
    kind,
    question: text(entry.question, 'question', problems),
    expectedAnswer: text(entry.expectedAnswer, 'expectedAnswer', problems),
    evidenceIds: strings(entry.evidenceIds, 'evidenceIds', true, problems),
    requiredCaveats: entry.requiredCaveats === undefined ? [] : strings(entry.requiredCaveats, 'requiredCaveats', false, problems),
  };
  for (const key of own) {
    const value = entry[key];
    if (typeof value === 'string' && (value !== '' || MAY_BE_EMPTY.has(key))) task[key] = value;
    else if (value === undefined) {
      if (!MAY_BE_ABSENT.has(key)) problems.push(`${key} is required for ${aTask(kind)}.`);
    }
    else problems.push(`${key} must be a ${MAY_BE_EMPTY.has(key) ? 'string (the exact value to match; "" matches empty fields)' : 'non-empty string'}.`);
  }
  // Half a page query cannot be checked and is most likely a typo: both, or neither.
  if (kind === 'later_page' && (entry.pageField === undefined) !== (entry.pageValue === undefined)) {
    problems.push(`pageField and pageValue go together: give both (the page query the evidence must sit past the first page of), or neither (then the evidence position is not checked).`);
  }
  return { task, problems };
}

/** A required non-empty string; a number is kept as its text (for the record) but still refused. */
function text(value: unknown, name: string, problems: string[]): string {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (value === undefined) problems.push(`${name} is required.`);
  else if (typeof value === 'number' || typeof value === 'boolean') {
    problems.push(`${name} must be a string: write "${String(value)}", the exact text expected.`);
    return String(value);
  } else problems.push(`${name} must be a non-empty string.`);
  return typeof value === 'string' ? value : '';
}

/** A list of non-empty strings (non-empty itself when `required`); bad elements are left out. */
function strings(value: unknown, name: string, required: boolean, problems: string[]): string[] {
  if (value === undefined && required) {
    problems.push(`${name} is required: the ids the answer must cite.`);
    return [];
  }
  if (!Array.isArray(value)) {
    problems.push(`${name} must be a list of strings.`);
    return [];
  }
  if (required && value.length === 0) problems.push(`${name} must name at least one id.`);
  const list: string[] = [];
  value.forEach((item: unknown, index) => {
    if (typeof item === 'string' && item.trim() !== '') list.push(item);
    else problems.push(`${name}[${index}] must be a non-empty string${typeof item === 'number' ? ` (write "${item}")` : ''}.`);
  });
  return list;
}

function refuse(problems: ConfigProblem[], file: string): McpctxError {
  return configError(problems, file, 'tasks file');
}

/** "a lookup task", "an aggregate task". */
export function aTask(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} task`;
}
