/**
 * `verifyReceipt`'s check that a receipt holds the whole experiment: its tasks are the ones the
 * recorded tasks file's bytes parse to (those bytes hashing to the recorded sha256), and its
 * questions are every task in both conditions `repeat` times, in the order the runner asks them
 * (tasks in file order, then repetitions 1..repeat, each baseline then optimized). So a removed question, a removed task with its questions,
 * or two records swapped fail, naming where.
 */
import { sha256Hex } from '../../tokens/index.js';
import { parseTasks } from '../config/index.js';
import { shown, type Problems } from './_verify-compare.js';
import { CONDITIONS, type ExperimentReceipt, type QuestionRecord, type Task } from '../_types.js';

/** The recorded tasks against the tasks file's recorded text, its hash, size and count. */
export function verifyTasks(run: ExperimentReceipt, tasks: readonly Task[], problems: Problems): void {
  const file = run.inputs?.tasks;
  if (file === undefined) {
    problems.add('inputs.tasks: absent, so the recorded tasks cannot be re-derived from the tasks file');
    return;
  }
  problems.compare('inputs.tasks.count', file.count, tasks.length);
  if (typeof file.text !== 'string') {
    // Receipts written before the tasks file's text was recorded: readable, but their task set is the run's word.
    problems.add(`inputs.tasks.text: absent (recorded ${shown(file.text)}), so the recorded tasks cannot be re-derived from the tasks file's bytes`);
    return;
  }
  const bytes = Buffer.from(file.text, 'utf8');
  problems.compare('inputs.tasks.sha256', file.sha256, sha256Hex(bytes));
  problems.compare('inputs.tasks.bytes', file.bytes, bytes.length);
  problems.compare('tasks', tasks, parseTasks(bytes, file.path).tasks, { recorded: 'recorded', recomputed: 'the tasks file makes' });
}

/** Every task in both conditions `repeat` times, in the runner's order; each record where its pair is expected. */
export function verifyQuestionSet(tasks: readonly Task[], questions: readonly QuestionRecord[], problems: Problems, repeat = 1): void {
  const repetitions = Array.from({ length: repeat }, (_, index) => index + 1);
  const expected = tasks.flatMap((task) => repetitions.flatMap((repetition) => CONDITIONS.map((condition) => ({ taskId: task.id, repetition, condition }))));
  const key = (pair: { taskId: unknown; repetition: unknown; condition: unknown }): string => JSON.stringify([pair.taskId, pair.repetition, pair.condition]);
  // A record from before repetitions is repetition 1.
  const recorded = questions.map((question) => ({ taskId: question.taskId, repetition: question.repetition ?? 1, condition: question.condition }));
  const which = (pair: { taskId: unknown; repetition: unknown }): string => `task ${shown(pair.taskId)}${repeat === 1 && pair.repetition === 1 ? '' : ` repetition ${shown(pair.repetition)}`}`;
  const recordedKeys = new Set(recorded.map(key));
  const expectedKeys = new Set(expected.map(key));
  for (const pair of expected) {
    if (!recordedKeys.has(key(pair))) problems.add(`questions: no record of ${which(pair)} in condition ${pair.condition} (the tasks make ${expected.length} questions${repeat === 1 ? '' : ` at repeat ${repeat}`}, recorded ${questions.length})`);
  }
  recorded.forEach((pair, index) => {
    if (!expectedKeys.has(key(pair))) problems.add(`questions[${index}]: ${which(pair)} in condition ${shown(pair.condition)} is not one of the tasks' questions${repeat === 1 ? '' : ` at repeat ${repeat}`}`);
  });
  if (expected.length !== recorded.length) return;
  // Same set, same size: any remaining difference is the order.
  expected.forEach((pair, index) => {
    const at = recorded[index];
    if (at !== undefined && key(at) !== key(pair)) {
      problems.add(`questions[${index}]: recorded ${which(at)} ${shown(at.condition)}, but the runner asks ${which(pair)} ${pair.condition} there (tasks in file order, ${repeat === 1 ? '' : 'then repetitions, '}baseline then optimized)`);
    }
  });
}
