import { isPlainObject, ownValue, setOwn, type JsonObject } from '../../json/index.js';
import { isTask } from './_task-routes.js';

/** The `_meta` key that ties a message to a task (MCP 2025-11-25, Tasks). */
export const RELATED_TASK_KEY = 'io.modelcontextprotocol/related-task';

/** The task of a CreateTaskResult (a task-augmented tools/call's answer), or undefined for any other answer. */
export function createdTask(result: unknown): JsonObject | undefined {
  if (!isPlainObject(result)) return undefined;
  const task = ownValue(result, 'task');
  return isTask(task) ? task : undefined;
}

/** The upstream's task id in the `_meta` of a message's params or result, if it has one. */
export function relatedTaskId(message: JsonObject | undefined): string | undefined {
  const meta = ownValue(message ?? {}, '_meta');
  const related = isPlainObject(meta) ? ownValue(meta, RELATED_TASK_KEY) : undefined;
  const id = isPlainObject(related) ? ownValue(related, 'taskId') : undefined;
  return typeof id === 'string' ? id : undefined;
}

/**
 * A copy of a message's params or result with its task ids renamed by `rename` (the upstream's id
 * to the one the client sees, or back): the top-level `taskId` (a task, a status notification),
 * `task.taskId` (a CreateTaskResult) and the related-task `_meta`. Everything else is kept as sent.
 */
export function renameTaskIds(message: JsonObject, rename: (id: string) => string): JsonObject {
  const copy: JsonObject = { ...message };
  const taskId = ownValue(message, 'taskId');
  if (typeof taskId === 'string') setOwn<unknown>(copy, 'taskId', rename(taskId));
  const task = ownValue(message, 'task');
  if (isTask(task)) setOwn<unknown>(copy, 'task', { ...task, taskId: rename(task.taskId as string) });
  const related = relatedTaskId(message);
  if (related !== undefined) {
    const meta = ownValue(message, '_meta') as JsonObject;
    setOwn<unknown>(copy, '_meta', { ...meta, [RELATED_TASK_KEY]: { ...(meta[RELATED_TASK_KEY] as JsonObject), taskId: rename(related) } });
  }
  return copy;
}
