import { Deadline, JsonRpcError } from '../../mcp/index.js';
import { isPlainObject, ownValue, setOwn, type JsonObject } from '../../json/index.js';
import { isNamespaced } from '../config/index.js';
import { RELATED_TASK_KEY, isTask, issueTaskListCursor, openTaskListCursor, relatedTaskId, renameTaskIds, type TaskRoute } from '../tasks/index.js';
import { type ClientCall, type SessionContext, liveUpstream } from './_context.js';
import type { Upstream } from '../upstream/index.js';

/** The methods a client sends about tasks an upstream runs (MCP 2025-11-25, Tasks). */
export const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);

/** The tool a task's result is shaped and receipted as when the call that made it is no longer known. */
const UNKNOWN_CALL = 'tasks/result';

/** Shapes a task's tools/call result as the direct call's would be (cap, rules, offload, receipt). */
export type ShapeTaskResult = (route: TaskRoute & { origin: NonNullable<TaskRoute['origin']> }, result: JsonObject, call: ClientCall) => Promise<JsonObject>;

/**
 * The client's task requests. With one upstream they are forwarded as they came, as before; with
 * several, each task id is routed to the upstream that created it (the session's `TaskRoutes`),
 * ids are shown namespaced and renamed back, tasks/list merges every upstream that lists tasks
 * under a signed cursor, and an id no upstream gave this session is refused. Either way the
 * result of a task made by a tools/call is shaped as that call's would have been.
 */
export class SessionTasks {
  private readonly context: SessionContext;
  private readonly shapeResult: ShapeTaskResult;

  constructor(context: SessionContext, shapeResult: ShapeTaskResult) {
    this.context = context;
    this.shapeResult = shapeResult;
  }

  async dispatch(method: string, call: ClientCall): Promise<JsonObject> {
    const { tasks } = this.context;
    if (!isNamespaced(this.context.services.config)) return this.dispatchAlone(method, call);
    if (method === 'tasks/list') return this.mergedList(call);
    const taskId = call.params?.taskId;
    const route = tasks.find(taskId);
    if (route === undefined) {
      throw new JsonRpcError(
        -32602,
        `Invalid params: unknown task id ${JSON.stringify(taskId)}: no upstream created it in this session, or it expired. tasks/list shows the tasks the upstreams still hold.`,
      );
    }
    const upstream = liveUpstream(this.context, route.upstream);
    if (method === 'tasks/cancel' && !hasTaskCapability(upstream, 'cancel')) {
      throw new JsonRpcError(-32601, `Method not found: ${route.upstream}, which runs task ${JSON.stringify(taskId)}, does not cancel tasks (no tasks.cancel capability)`);
    }
    const answer = await this.forward(upstream, method, { ...call.params, taskId: route.upstreamId }, call);
    if (method === 'tasks/result') return this.result(route, answer, call);
    if (isTask(answer)) tasks.seen(route.upstream, answer);
    return this.toClient(route.upstream, answer);
  }

  /**
   * An upstream's notification or request params as the client is to see them: the ids of the
   * upstream's tasks namespaced (with several upstreams), and a status notification keeps the
   * task's route alive. An upstream's own `tasks/*` request is about a task of the client's (a
   * sampling or elicitation the client runs as a task): its ids are the client's, passed as they are.
   */
  fromUpstream(upstream: string, method: string, params: JsonObject | undefined): JsonObject | undefined {
    if (params === undefined || TASK_METHODS.has(method)) return params;
    if (method === 'notifications/tasks/status' && isTask(params)) this.context.tasks.seen(upstream, params);
    if (!isNamespaced(this.context.services.config)) return params;
    if (typeof ownValue(params, 'taskId') !== 'string' && relatedTaskId(params) === undefined) return params;
    return this.toClient(upstream, params);
  }

  /** One upstream: everything forwarded as it came; only a tools/call task's result is shaped on its way back. */
  private async dispatchAlone(method: string, call: ClientCall): Promise<JsonObject> {
    const only = [...this.context.upstreams.values()][0];
    if (only === undefined) throw new JsonRpcError(-32601, `Method not found: ${method}`);
    const answer = await this.forward(liveUpstream(this.context, only.name), method, call.params, call);
    const taskId = call.params?.taskId;
    if (method === 'tasks/result' && typeof taskId === 'string') {
      return this.result(this.context.tasks.find(taskId) ?? { upstream: only.name, upstreamId: taskId, origin: undefined }, answer, call);
    }
    if (isTask(answer)) this.context.tasks.seen(only.name, answer);
    return answer;
  }

  /**
   * A tasks/result answer, shaped as the result of the tools/call that made the task (only
   * tools/call runs as a task upstream). A task whose call the session no longer knows (its route
   * was evicted) is still held to the cap, with no tool's rules. The related-task `_meta` names
   * the id the client knows.
   */
  private async result(route: TaskRoute, answer: JsonObject, call: ClientCall): Promise<JsonObject> {
    const renamed = this.toClient(route.upstream, answer);
    const origin = route.origin ?? { tool: UNKNOWN_CALL, ownName: UNKNOWN_CALL, args: undefined };
    const shaped = await this.shapeResult({ ...route, origin }, renamed, call);
    if (relatedTaskId(shaped) !== undefined) return shaped;
    // A result the gateway made (a refusal) still says which task it is the result of.
    const meta = ownValue(shaped, '_meta');
    const withMeta: JsonObject = { ...shaped };
    setOwn<unknown>(withMeta, '_meta', { ...(isPlainObject(meta) ? meta : {}), [RELATED_TASK_KEY]: { taskId: this.context.tasks.visibleId(route.upstream, route.upstreamId) } });
    return withMeta;
  }

  /**
   * Every upstream that lists tasks, in config order, one page of each until one has more: its
   * next page is where the gateway's cursor points (signed, bound to this session). An upstream
   * that fails is left out of the page and named in `_meta`, as tools/list does.
   */
  private async mergedList(call: ClientCall): Promise<JsonObject> {
    const { services, sessionId, tasks } = this.context;
    const listing = [...this.context.upstreams.values()].filter((upstream) => !upstream.failure && hasTaskCapability(upstream, 'list'));
    const given = call.params?.cursor;
    const position = given === undefined || given === null ? undefined : openTaskListCursor(services.listCodec, sessionId, given);
    let start = 0;
    if (position !== undefined) {
      start = listing.findIndex((upstream) => upstream.name === position.upstream);
      if (start === -1) throw new JsonRpcError(-32602, `Invalid params: the cursor's upstream ${JSON.stringify(position.upstream)} no longer lists tasks; omit cursor to list from the start`);
    }
    const deadline = new Deadline(services.timeouts.requestMs, 'tasks/list');
    const { cursor: _given, ...rest } = call.params ?? {};
    const listed: JsonObject[] = [];
    const unavailable: Record<string, string> = {};
    const result: JsonObject = {};
    let cursor = position?.cursor;
    for (const upstream of listing.slice(start)) {
      let page: unknown;
      try {
        page = await upstream.request('tasks/list', cursor === undefined ? rest : { ...rest, cursor }, deadline, { signal: call.signal, clientRequestId: call.id });
      } catch (error) {
        // The page the client asked for is the one that failed: its error is the answer.
        if (cursor !== undefined || call.signal.aborted) throw error;
        setOwn(unavailable, upstream.name, error instanceof Error ? error.message : String(error));
        continue;
      }
      cursor = undefined;
      const items = isPlainObject(page) ? ownValue(page, 'tasks') : undefined;
      for (const task of Array.isArray(items) ? items : []) {
        if (!isTask(task)) continue;
        tasks.remember(upstream.name, task);
        listed.push(this.toClient(upstream.name, task));
      }
      const next = isPlainObject(page) ? ownValue(page, 'nextCursor') : undefined;
      if (typeof next === 'string' && next !== '') {
        result.nextCursor = issueTaskListCursor(services.listCodec, sessionId, { upstream: upstream.name, cursor: next });
        break;
      }
    }
    result.tasks = listed;
    if (Object.keys(unavailable).length > 0) result._meta = { 'mcpctx/unavailable': unavailable };
    return result;
  }

  private toClient(upstream: string, message: JsonObject): JsonObject {
    return renameTaskIds(message, (id) => this.context.tasks.visibleId(upstream, id));
  }

  private async forward(upstream: Upstream, method: string, params: JsonObject | undefined, call: ClientCall): Promise<JsonObject> {
    const deadline = new Deadline(this.context.services.timeouts.requestMs, method);
    const answer = await upstream.request(method, params, deadline, { signal: call.signal, clientRequestId: call.id });
    if (!isPlainObject(answer)) throw new JsonRpcError(-32603, `${upstream.name} answered ${method} with something that is not an object`);
    return answer;
  }
}

/** Whether an upstream declared `tasks.<feature>` (list, cancel) in its capabilities. */
function hasTaskCapability(upstream: Upstream, feature: 'list' | 'cancel'): boolean {
  const tasks = ownValue(upstream.capabilities, 'tasks');
  return isPlainObject(tasks) && isPlainObject(ownValue(tasks, feature));
}

/**
 * The `tasks` capability several upstreams are joined under: only what the gateway relays
 * (tools/call as a task, list, cancel), and only when at least one upstream runs tools/call as a
 * task; undefined for none. What upstreams declare beyond that is not advertised.
 */
export function joinedTasksCapability(upstreams: readonly Upstream[]): JsonObject | undefined {
  const declared = upstreams.map((upstream) => ownValue(upstream.capabilities, 'tasks')).filter(isPlainObject);
  const toolCalls = declared.some((tasks) => {
    const requests = ownValue(tasks, 'requests');
    const tools = isPlainObject(requests) ? ownValue(requests, 'tools') : undefined;
    return isPlainObject(tools) && isPlainObject(ownValue(tools, 'call'));
  });
  if (!toolCalls) return undefined;
  const joined: JsonObject = {};
  if (declared.some((tasks) => isPlainObject(ownValue(tasks, 'list')))) joined.list = {};
  if (declared.some((tasks) => isPlainObject(ownValue(tasks, 'cancel')))) joined.cancel = {};
  joined.requests = { tools: { call: {} } };
  return joined;
}
