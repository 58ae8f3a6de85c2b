/**
 * Every task checked against the snapshot before any model call: the answer key must be true of
 * the data, or the experiment would grade the model against a wrong key.
 */
import type { ExperimentInputs } from './_inputs.js';
import { aTask } from './_tasks.js';
import type { ExperimentConfig, SnapshotRecord, Task, TaskValidation } from '../_types.js';

/** Fields every record has; a lookup's detail must be something else, that only the detail call returns. */
const IDENTITY_FIELDS = ['id', 'revision'];

interface Context {
  records: readonly SnapshotRecord[];
  ids: ReadonlySet<string>;
  allowed: ReadonlySet<string>;
  pageSize: number;
}

/**
 * One validation per task, in task order; never throws for a bad task. A task whose entry was
 * malformed in the file (`inputs.tasks.problems`) is refused with those problems alone: the rest
 * is checked once the entry reads as written. Otherwise every rule below is checked and every
 * broken one listed:
 * - every task: question and expectedAnswer non-empty; evidenceIds non-empty, each an id in the
 *   snapshot; requiredCaveats non-empty strings.
 * - lookup: detailField in the allowlist, and not id or revision.
 * - aggregate: aggregateField in the allowlist; `independentCount` = records whose field equals
 *   aggregateValue exactly; expectedAnswer must be exactly that count in decimal; every evidence id
 *   among the counted records.
 * - later_page: pageField in the allowlist; `matchingIds` = ids of the records whose field equals
 *   pageValue, in id order; `evidencePositions` = each evidence id's 0-based position in them (-1
 *   when it does not match); every evidence id must match, and one must sit at position
 *   >= config.pageSize, so that answering needs a continuation. A task without pageField and
 *   pageValue (the seed's format) cannot be placed: it passes on the checks above alone, and
 *   `notChecked` says the position was not checked (never counted as a pass of that check).
 */
export function validateTasks(inputs: ExperimentInputs, config: Pick<ExperimentConfig, 'pageSize'>): TaskValidation[] {
  const context: Context = {
    records: inputs.snapshot.records,
    ids: new Set(inputs.snapshot.records.map(idOf)),
    allowed: new Set(inputs.fields.allowed),
    pageSize: config.pageSize,
  };
  return inputs.tasks.tasks.map((task, index) => {
    const malformed = inputs.tasks.problems[index] ?? [];
    if (malformed.length > 0) return { taskId: task.id, kind: task.kind, ok: false, problems: [...malformed] };
    return validateTask(task, context);
  });
}

function validateTask(task: Task, context: Context): TaskValidation {
  const problems: string[] = [];
  if (task.question.trim() === '') problems.push('question is empty.');
  if (task.expectedAnswer.trim() === '') problems.push('expectedAnswer is empty.');
  if (task.evidenceIds.length === 0) problems.push('evidenceIds names no id; list the ids the answer must cite.');
  for (const id of task.evidenceIds) {
    if (!context.ids.has(id)) problems.push(`evidenceIds: "${id}" is not an id in the snapshot (ids match exactly, case-sensitive).`);
  }
  task.requiredCaveats.forEach((caveat, index) => {
    if (caveat.trim() === '') problems.push(`requiredCaveats[${index}] is empty.`);
  });
  const validation: TaskValidation = { taskId: task.id, kind: task.kind, ok: false, problems };
  switch (task.kind) {
    case 'lookup':
      checkLookup(task, context, problems);
      break;
    case 'aggregate':
      checkAggregate(task, context, validation);
      break;
    case 'later_page':
      checkLaterPage(task, context, validation);
      break;
  }
  validation.ok = problems.length === 0;
  return validation;
}

function checkLookup(task: Task, context: Context, problems: string[]): void {
  const field = task.detailField;
  if (field === undefined) problems.push('detailField is required for a lookup task: the allowed field only the detail call returns.');
  else if (IDENTITY_FIELDS.includes(field)) problems.push(`detailField "${field}" comes back from every search; name a field only the detail call returns.`);
  else if (!context.allowed.has(field)) problems.push(`detailField "${field}" is not in the field allowlist (${allowedList(context)}).`);
}

function checkAggregate(task: Task, context: Context, validation: TaskValidation): void {
  const { aggregateField: field, aggregateValue: value } = task;
  if (!queryUsable(field, value, 'aggregate', context, validation.problems)) return;
  const matching = matchingIds(context, field, value);
  validation.independentCount = matching.length;
  if (task.expectedAnswer !== String(matching.length)) {
    validation.problems.push(
      `expectedAnswer: expected count ${task.expectedAnswer} disagrees with the snapshot's ${matching.length} records whose ${field} equals ${JSON.stringify(value)} exactly; ` +
        'write the exact decimal count, or fix the query.',
    );
  }
  const counted = new Set(matching);
  for (const id of task.evidenceIds) {
    if (context.ids.has(id) && !counted.has(id)) validation.problems.push(`evidenceIds: "${id}" is not among the counted records (its ${field} is not ${JSON.stringify(value)}).`);
  }
}

/** What validation says of a later_page task that names no page query (verify expects these words). */
export function unplacedEvidenceNote(pageSize: number): string {
  return `evidence position not checked: the task names no pageField/pageValue; inspect by hand that some evidence falls after the first ${pageSize} matching records in id order`;
}

function checkLaterPage(task: Task, context: Context, validation: TaskValidation): void {
  const { pageField: field, pageValue: value } = task;
  if (field === undefined && value === undefined) {
    validation.notChecked = [unplacedEvidenceNote(context.pageSize)];
    return;
  }
  if (!queryUsable(field, value, 'later_page', context, validation.problems)) return;
  const matching = matchingIds(context, field, value);
  const positions = task.evidenceIds.map((id) => matching.indexOf(id));
  validation.matchingIds = matching;
  validation.evidencePositions = positions;
  task.evidenceIds.forEach((id, index) => {
    if (context.ids.has(id) && positions[index] === -1) {
      validation.problems.push(`evidenceIds: "${id}" does not match the page query (its ${field} is not ${JSON.stringify(value)}).`);
    }
  });
  const found = positions.filter((position) => position >= 0);
  if (found.length > 0 && !found.some((position) => position >= context.pageSize)) {
    validation.problems.push(
      `evidenceIds: every evidence id is on the first page (match ${found.map((position) => position + 1).join(', ')} of ${matching.length}, ${context.pageSize} per page); ` +
        `a later_page task needs evidence past match ${context.pageSize}, so that answering it needs a continuation.`,
    );
  }
}

/** The query's field and value are there and the field may be searched; problems when not. */
function queryUsable(field: string | undefined, value: string | undefined, kind: 'aggregate' | 'later_page', context: Context, problems: string[]): field is string {
  const [fieldName, valueName] = kind === 'aggregate' ? ['aggregateField', 'aggregateValue'] : ['pageField', 'pageValue'];
  if (field === undefined) problems.push(`${fieldName} is required for ${aTask(kind)}.`);
  else if (!context.allowed.has(field)) problems.push(`${fieldName} "${field}" is not in the field allowlist (${allowedList(context)}).`);
  if (value === undefined) problems.push(`${valueName} is required for ${aTask(kind)} (the exact value to match).`);
  return field !== undefined && value !== undefined && context.allowed.has(field);
}

/** Ids of the records whose field equals value exactly, in id order (the records are). */
function matchingIds(context: Context, field: string, value: string | undefined): string[] {
  return context.records.filter((record) => Object.hasOwn(record, field) && record[field] === value).map(idOf);
}

/** Every record has one: the data rules refuse a snapshot with a record without. */
function idOf(record: SnapshotRecord): string {
  return record.id as string;
}

function allowedList(context: Context): string {
  return [...context.allowed].join(', ');
}

