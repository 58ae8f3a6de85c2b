import { isPlainObject, ownValue, type JsonObject } from '../../json/index.js';

/** The tools/call a task was created by: its result is shaped as that call's result would be. */
export interface TaskOrigin {
  /** The tool's name as the client called it. */
  readonly tool: string;
  /** The name its upstream knows it by: what the tool's rules are found under. */
  readonly ownName: string;
  readonly args: JsonObject | undefined;
}

/** Where a task id the client holds leads: the upstream that created it, under the id it gave. */
export interface TaskRoute {
  readonly upstream: string;
  readonly upstreamId: string;
  /** Absent for a task the gateway learned of from a tasks/list answer only. */
  readonly origin: TaskOrigin | undefined;
}

interface Entry extends TaskRoute {
  terminal: boolean;
  /** The gateway's clock; undefined: kept until evicted (the task has no ttl). */
  expiresAt: number | undefined;
}

export interface TaskRoutesOptions {
  /** Several upstreams: ids the client sees are `upstream<separator>id`; one upstream: the upstream's own. */
  readonly namespaced: boolean;
  readonly separator: string;
  /** Most routes kept per session; past it the least recently seen go, ended tasks first. */
  readonly capacity?: number;
  readonly now?: () => number;
}

export const TASK_ROUTES_CAPACITY = 1024;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * One session's task ids: which upstream created each task the client may ask about. An id the
 * client sees is the upstream's prefixed with the upstream's name, so two upstreams' ids cannot
 * collide, but it is routed only through this map: an id no upstream gave this session is refused,
 * never parsed and guessed. A route lasts the task's ttl from the last time the gateway saw the
 * task (creation, tasks/get, tasks/list, a status notification), on the gateway's own clock; the
 * map is bounded, and when full the least recently seen ended task goes first.
 */
export class TaskRoutes {
  private readonly entries = new Map<string, Entry>();
  private readonly options: Required<TaskRoutesOptions>;

  constructor(options: TaskRoutesOptions) {
    this.options = { capacity: TASK_ROUTES_CAPACITY, now: Date.now, ...options };
  }

  /** The id the client sees for an upstream's task id. */
  visibleId(upstream: string, upstreamId: string): string {
    return this.options.namespaced ? `${upstream}${this.options.separator}${upstreamId}` : upstreamId;
  }

  /**
   * Records a task an upstream reported to this session (created, listed); returns the id the
   * client sees. The origin, once known, is kept when the task is seen again without one.
   */
  remember(upstream: string, task: JsonObject, origin?: TaskOrigin): string | undefined {
    const upstreamId = ownValue(task, 'taskId');
    if (typeof upstreamId !== 'string') return undefined;
    const visible = this.visibleId(upstream, upstreamId);
    const known = this.entries.get(visible);
    this.entries.delete(visible);
    this.entries.set(visible, { upstream, upstreamId, origin: origin ?? known?.origin, ...this.lifetime(task) });
    this.evict();
    return visible;
  }

  /** A task seen again (its status in an answer or a notification): its route lives on; unknown ids are not added. */
  seen(upstream: string, task: JsonObject): void {
    const upstreamId = ownValue(task, 'taskId');
    if (typeof upstreamId !== 'string') return;
    const visible = this.visibleId(upstream, upstreamId);
    const known = this.find(visible);
    if (known === undefined || known.upstream !== upstream) return;
    this.remember(upstream, task);
  }

  /** The route of an id the client sent, if an upstream gave it to this session and it has not expired. */
  find(visibleId: unknown): TaskRoute | undefined {
    if (typeof visibleId !== 'string') return undefined;
    const entry = this.entries.get(visibleId);
    if (entry === undefined) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= this.options.now()) {
      this.entries.delete(visibleId);
      return undefined;
    }
    return { upstream: entry.upstream, upstreamId: entry.upstreamId, origin: entry.origin };
  }

  /** The upstream ended: its tasks ended with it. */
  forgetUpstream(upstream: string): void {
    for (const [id, entry] of this.entries) if (entry.upstream === upstream) this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }

  private lifetime(task: JsonObject): { terminal: boolean; expiresAt: number | undefined } {
    const ttl = ownValue(task, 'ttl');
    const status = ownValue(task, 'status');
    return {
      terminal: typeof status === 'string' && TERMINAL.has(status),
      expiresAt: typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0 ? this.options.now() + ttl : undefined,
    };
  }

  private evict(): void {
    const now = this.options.now();
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.options.capacity) return;
      if (entry.terminal || (entry.expiresAt !== undefined && entry.expiresAt <= now)) this.entries.delete(id);
    }
    for (const id of this.entries.keys()) {
      if (this.entries.size <= this.options.capacity) return;
      this.entries.delete(id);
    }
  }
}

/** Whether a value is a task object as MCP sends it (a string taskId at least). */
export function isTask(value: unknown): value is JsonObject {
  return isPlainObject(value) && typeof ownValue(value, 'taskId') === 'string';
}
