// MCP tasks (2025-11-25) across several upstreams: which upstream created each task id a session
// holds, the ids the client sees, and the merged tasks/list cursor. No I/O: the session relays.
export { TASK_ROUTES_CAPACITY, TaskRoutes, isTask, type TaskOrigin, type TaskRoute, type TaskRoutesOptions } from './_task-routes.js';
export { RELATED_TASK_KEY, createdTask, relatedTaskId, renameTaskIds } from './_task-messages.js';
export { issueTaskListCursor, openTaskListCursor, type TaskListPosition } from './_list-cursor.js';
