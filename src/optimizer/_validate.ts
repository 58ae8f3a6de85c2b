import { McpctxError } from '../errors/index.js';
import { describeValue, isPlainObject } from '../json/index.js';
import {
  RECORD_ARRAYS,
  type OptimizerInput,
  type RecordArrayName,
  type SessionRecords,
} from './_types.js';

export const DEFAULT_MAX_RECORD_CHARS = 4 * 1024 * 1024;
export const MAX_TASK_CHARS = 100_000;
export const MAX_ID_CHARS = 200;
export const MAX_SESSION_CHARS = 200;

export interface ValidationOptions {
  /** Largest text field accepted, in UTF-16 code units. */
  maxRecordChars?: number;
}

type FieldType = 'text' | 'name' | 'integer' | 'enum';
interface FieldRule {
  type: FieldType;
  required: boolean;
  values?: readonly string[];
}

const COMMON_FIELDS = ['id', 'timestamp', 'priority', 'session'] as const;

/** The fields of each array's records. Unknown fields are refused: a typo such as `exit_code` must not vanish. */
const RECORD_FIELDS: Record<RecordArrayName, Record<string, FieldRule>> = {
  messages: {
    role: { type: 'enum', required: true, values: ['user', 'assistant', 'system', 'tool'] },
    text: { type: 'text', required: true },
  },
  toolOutputs: {
    tool: { type: 'name', required: false },
    command: { type: 'name', required: false },
    output: { type: 'text', required: true },
    exitCode: { type: 'integer', required: false },
  },
  errors: {
    message: { type: 'text', required: true },
    stack: { type: 'text', required: false },
  },
  files: {
    path: { type: 'name', required: true },
    content: { type: 'text', required: true },
  },
  diffs: {
    path: { type: 'name', required: true },
    diff: { type: 'text', required: true },
  },
  testResults: {
    name: { type: 'name', required: true },
    status: { type: 'enum', required: true, values: ['passed', 'failed', 'skipped'] },
    output: { type: 'text', required: false },
  },
  decisions: {
    text: { type: 'text', required: true },
    status: { type: 'enum', required: true, values: ['accepted', 'rejected', 'proposed'] },
  },
};

/** Names, commands and paths go into one-line source tags; they are short by nature. */
const MAX_NAME_CHARS = 4096;
// ISO 8601 date-time with a zone, or a plain date; `Date.parse` alone accepts far too much.
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
// Ids appear inside `[source: ... | ... | ...]` tags, so they may not hold the tag's own syntax.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const ID_FORBIDDEN = /[|[\]\u0000-\u001f\u007f]/;


function refuse(where: string, message: string, data: Record<string, unknown> = {}): never {
  throw new McpctxError('INVALID_RECORDS', `${where} ${message}`, { path: where, ...data });
}


function checkField(where: string, rule: FieldRule, value: unknown, maxChars: number): unknown {
  switch (rule.type) {
    case 'text':
    case 'name': {
      if (typeof value !== 'string') refuse(where, `must be a string, got ${describeValue(value)}`);
      const limit = rule.type === 'name' ? MAX_NAME_CHARS : maxChars;
      if (value.length > limit) {
        refuse(where, `is ${value.length.toLocaleString('en-US')} characters, over the limit of ${limit.toLocaleString('en-US')}${rule.type === 'text' ? ' (option maxRecordChars)' : ''}; split the record or raise the limit`, {
          length: value.length,
          limit,
        });
      }
      if (rule.type === 'name' && value.trim() === '') refuse(where, 'must not be empty');
      return value;
    }
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) refuse(where, `must be an integer, got ${describeValue(value)}`);
      return value;
    case 'enum':
      if (typeof value !== 'string' || !(rule.values ?? []).includes(value)) {
        refuse(where, `must be one of ${(rule.values ?? []).map((v) => `'${v}'`).join(', ')}, got ${describeValue(value)}`);
      }
      return value;
  }
}

function checkCommon(where: string, raw: Record<string, unknown>, copy: Record<string, unknown>): void {
  if (raw.id !== undefined) {
    const id = raw.id;
    if (typeof id !== 'string' || id.trim() === '') refuse(`${where}.id`, `must be a non-empty string, got ${describeValue(id)}`);
    if (id.length > MAX_ID_CHARS) refuse(`${where}.id`, `is ${id.length} characters, over the limit of ${MAX_ID_CHARS}`);
    if (ID_FORBIDDEN.test(id)) refuse(`${where}.id`, `must not contain '|', '[', ']' or control characters (ids appear in source tags), got ${JSON.stringify(id)}`);
    if (id !== id.trim()) refuse(`${where}.id`, 'must not start or end with spaces');
    copy.id = id;
  }
  if (raw.timestamp !== undefined) {
    const timestamp = raw.timestamp;
    if (typeof timestamp !== 'string' || !ISO_8601.test(timestamp) || Number.isNaN(Date.parse(timestamp))) {
      refuse(`${where}.timestamp`, `must be an ISO 8601 date-time such as 2026-11-30T09:15:00Z, got ${typeof timestamp === 'string' ? JSON.stringify(timestamp.slice(0, 60)) : describeValue(timestamp)}`);
    }
    copy.timestamp = timestamp;
  }
  if (raw.priority !== undefined) {
    const priority = raw.priority;
    if (typeof priority !== 'number' || !Number.isFinite(priority) || priority < 0 || priority > 1) {
      refuse(`${where}.priority`, `must be a number from 0 to 1, got ${describeValue(priority)}`);
    }
    copy.priority = priority;
  }
  if (raw.session !== undefined) {
    const problem = sessionProblem(raw.session);
    if (problem !== undefined) refuse(`${where}.session`, problem);
    copy.session = raw.session;
  }
}

/** Why a value is not a session id (a non-empty string of at most MAX_SESSION_CHARS), or undefined. */
function sessionProblem(session: unknown): string | undefined {
  if (typeof session !== 'string' || session.trim() === '') return `must be a non-empty string, got ${describeValue(session)}`;
  if (session.length > MAX_SESSION_CHARS) return `is ${session.length} characters, over the limit of ${MAX_SESSION_CHARS}`;
  return undefined;
}

function checkRecord(array: RecordArrayName, index: number, raw: unknown, maxChars: number): Record<string, unknown> {
  const where = `${array}[${index}]`;
  if (!isPlainObject(raw)) refuse(where, `must be an object, got ${describeValue(raw)}`);
  const rules = RECORD_FIELDS[array];
  for (const key of Object.keys(raw)) {
    // Own keys only: a record's "constructor" or "toString" is an unknown field, not Object's.
    if (!Object.hasOwn(rules, key) && !(COMMON_FIELDS as readonly string[]).includes(key)) {
      refuse(`${where}.${key}`, `is not a field of ${array} records; they have ${[...Object.keys(rules), ...COMMON_FIELDS].join(', ')}`);
    }
  }
  const copy: Record<string, unknown> = {};
  checkCommon(where, raw, copy);
  for (const [field, rule] of Object.entries(rules)) {
    const value = raw[field];
    if (value === undefined) {
      if (rule.required) refuse(`${where}.${field}`, 'is required');
      continue;
    }
    copy[field] = checkField(`${where}.${field}`, rule, value, maxChars);
  }
  if (array === 'toolOutputs' && copy.tool === undefined && copy.command === undefined) {
    refuse(where, 'needs at least one of tool and command');
  }
  return copy;
}

function maxCharsOf(options: ValidationOptions): number {
  const max = options.maxRecordChars ?? DEFAULT_MAX_RECORD_CHARS;
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new McpctxError('INVALID_ARGUMENT', `maxRecordChars must be a positive integer, got ${describeValue(max)}`);
  }
  return max;
}

/**
 * Validates an unknown value (parsed JSON, a tool's arguments) as the record arrays of the input
 * format and returns a deep copy holding only known fields. Throws INVALID_RECORDS naming the
 * record and field (`toolOutputs[3].exitCode`); nothing partial is returned.
 */
export function parseSessionRecords(value: unknown, options: ValidationOptions = {}, extraKeys: readonly string[] = []): SessionRecords {
  const maxChars = maxCharsOf(options);
  if (!isPlainObject(value)) {
    throw new McpctxError('INVALID_RECORDS', `records must be an object with arrays ${RECORD_ARRAYS.map((a) => a.array).join(', ')}; got ${describeValue(value)}`, { path: '' });
  }
  const known = new Set<string>([...RECORD_ARRAYS.map((a) => a.array), ...extraKeys]);
  for (const key of Object.keys(value)) {
    if (!known.has(key)) refuse(key, `is not part of the input format; its keys are ${[...known].join(', ')}`);
  }
  const result: SessionRecords = {};
  const ids = new Map<string, string>();
  for (const { array } of RECORD_ARRAYS) {
    const list = value[array];
    if (list === undefined) continue;
    if (!Array.isArray(list)) refuse(array, `must be an array, got ${describeValue(list)}`);
    const copies = list.map((raw, index) => {
      const copy = checkRecord(array, index, raw, maxChars);
      if (typeof copy.id === 'string') {
        const earlier = ids.get(copy.id);
        if (earlier !== undefined) refuse(`${array}[${index}].id`, `repeats the id ${JSON.stringify(copy.id)} of ${earlier}; ids must be unique`);
        ids.set(copy.id, `${array}[${index}]`);
      }
      return copy;
    });
    (result as Record<string, unknown>)[array] = copies;
  }
  return result;
}

/** Validates the whole `buildContext` input: the records plus `task` (required) and `tokenBudget`. */
export function parseOptimizerInput(value: unknown, options: ValidationOptions = {}): OptimizerInput {
  if (!isPlainObject(value)) {
    throw new McpctxError('INVALID_ARGUMENT', `input must be an object with a task and record arrays; got ${describeValue(value)}`);
  }
  const task = parseTask(value.task);
  const records = parseSessionRecords(value, options, ['task', 'tokenBudget', 'session']);
  const input: OptimizerInput = { task, ...records };
  if (value.tokenBudget !== undefined) input.tokenBudget = parseBudget(value.tokenBudget);
  if (value.session !== undefined) input.session = parseSession(value.session);
  return input;
}

export function parseTask(task: unknown): string {
  if (typeof task !== 'string' || task.trim() === '') {
    throw new McpctxError('INVALID_ARGUMENT', `task must be a non-empty string describing the work, got ${task === undefined ? 'nothing' : describeValue(task)}`);
  }
  if (task.length > MAX_TASK_CHARS) {
    throw new McpctxError('INVALID_ARGUMENT', `task is ${task.length.toLocaleString('en-US')} characters, over the limit of ${MAX_TASK_CHARS.toLocaleString('en-US')}; state the task, and pass the material as records`);
  }
  return task;
}

/** The task's session (`OptimizerInput.session`): a non-empty string of at most MAX_SESSION_CHARS. */
export function parseSession(session: unknown): string {
  const problem = sessionProblem(session);
  if (problem !== undefined) throw new McpctxError('INVALID_ARGUMENT', `session ${problem}`);
  return session as string;
}

export function parseBudget(budget: unknown): number {
  if (typeof budget !== 'number' || !Number.isSafeInteger(budget) || budget < 1) {
    throw new McpctxError('INVALID_ARGUMENT', `tokenBudget must be a positive integer, got ${describeValue(budget)}`);
  }
  return budget;
}
