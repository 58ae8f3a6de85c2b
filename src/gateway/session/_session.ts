import { randomBytes } from 'node:crypto';
import { type McpctxError } from '../../errors/index.js';
import { Deadline, type ServerNotification, type ServerRequest } from '../../mcp/index.js';
import { warmUpTokenizer } from '../../tokens/index.js';
import { isPlainObject, type JsonObject } from '../../json/index.js';
import { ClientRequests } from './_client-requests.js';
import type { FrontConnection, JsonRpcMessage } from '../front/index.js';
import { JsonRpcError, jsonRpcErrorFrom } from '../../mcp/index.js';
import type { MethodResult, SessionServices } from './_context.js';
import { SessionTools } from './_tools.js';
import { SessionRelay } from './_relay.js';
import { SessionTasks, TASK_METHODS } from './_tasks.js';
import { TaskRoutes } from '../tasks/index.js';
import { isNamespaced } from '../config/index.js';
import { Upstream, type PreparedUpstreams, type UpstreamEvents } from '../upstream/index.js';

type RequestId = string | number;

interface InFlight {
  readonly controller: AbortController;
}

/** The "upstream" name of requests the gateway itself sends the client (no server name can be empty). */
const GATEWAY_ASKS = '';

/**
 * One client session: its own connection to every upstream (initialized with the client's own
 * `initialize`), requests dispatched by method, ids remapped per upstream by each raw client,
 * server-to-client requests relayed under the gateway's ids, notifications passed both ways.
 */
export class GatewaySession {
  readonly id = randomBytes(16).toString('hex');
  private readonly front: FrontConnection;
  private readonly services: SessionServices;
  private readonly upstreams = new Map<string, Upstream>();
  private readonly clientRequests: ClientRequests;
  private readonly inFlight = new Map<string, InFlight>();
  /** progressToken of a relayed client request -> that request's id (progress goes to its stream). */
  private readonly progressOwners = new Map<unknown, RequestId>();
  private readonly tools: SessionTools;
  private readonly relay: SessionRelay;
  private readonly tasks: SessionTasks;
  private readonly taskRoutes: TaskRoutes;
  private initializing: Promise<JsonObject> | undefined;
  private clientCapabilities: JsonObject = {};
  private asked = 0;
  private ended = false;
  private readonly endedPromise: Promise<void>;
  private markEnded!: () => void;

  /** `started`: upstreams already booting for this session (the stdio client's), taken instead of starting new ones. */
  constructor(front: FrontConnection, services: SessionServices, started?: PreparedUpstreams) {
    this.front = front;
    this.services = services;
    this.clientRequests = new ClientRequests(front, services.timeouts.clientRequestMs);
    const events: UpstreamEvents = {
      onNotification: (upstream, notification) => this.fromUpstream(upstream, notification),
      onServerRequest: (upstream, request) => this.serverRequest(upstream, request),
      onEnded: (upstream, reason) => this.upstreamEnded(upstream, reason),
    };
    this.taskRoutes = new TaskRoutes({ namespaced: isNamespaced(services.config), separator: services.config.separator });
    const context = {
      sessionId: this.id,
      resultOwner: services.shareResults === true ? `client:${front.principal ?? 'local'}` : this.id,
      services,
      upstreams: this.upstreams,
      tasks: this.taskRoutes,
      notifyClient: (method: string, params?: JsonObject) => this.notifyClient(method, params),
      clientCapabilities: () => this.clientCapabilities,
      askClient: (method: string, params: JsonObject, relatedRequestId: string | number) =>
        this.clientRequests.relay(GATEWAY_ASKS, `ask-${(this.asked += 1)}`, method, params, relatedRequestId),
    };
    this.tools = new SessionTools(context);
    this.relay = new SessionRelay(context);
    this.tasks = new SessionTasks(context, (route, result, call) => this.tools.shapeTaskResult(route, result, call));
    this.endedPromise = new Promise((resolve) => (this.markEnded = resolve));
    // Taken only now that the parts their events reach exist: a started upstream that already
    // ended (or spoke) before this session replays that at once, inside take.
    for (const spec of services.upstreams) {
      this.upstreams.set(spec.name, started?.take(spec.name, events) ?? new Upstream(spec, events));
    }
    front.onmessage = (message) => this.receive(message);
    front.onclose = (reason) => void this.close(reason);
    // The servers start now and boot in their own processes while the client's `initialize` comes
    // in and the gateway sets up. A failed start is reported by connect, which waits for it.
    for (const upstream of this.upstreams.values()) upstream.start().catch(() => {});
  }

  /** Resolves once the session has ended and its upstreams are closed. */
  get closed(): Promise<void> {
    return this.endedPromise;
  }

  /** Ends the session: waiting client requests fail, every upstream is closed (its processes ended). Idempotent. */
  async close(reason = 'the gateway is shutting down'): Promise<void> {
    if (this.ended) return this.endedPromise;
    this.ended = true;
    for (const entry of this.inFlight.values()) entry.controller.abort(reason);
    this.clientRequests.failAll(`the client session ended: ${reason}`);
    await Promise.allSettled([...this.upstreams.values()].map((upstream) => upstream.close()));
    await this.front.close().catch(() => {});
    this.markEnded();
  }

  private receive(message: JsonRpcMessage): void {
    if (this.ended) return;
    // A request with `id: null` is not a notification: it is refused below (MCP ids are strings or numbers).
    const hasId = 'id' in message && message.id !== undefined;
    if (typeof message.method === 'string') {
      if (!hasId) {
        this.clientNotification(message.method, isPlainObject(message.params) ? message.params : undefined);
        return;
      }
      if (typeof message.id !== 'string' && typeof message.id !== 'number') {
        this.reply(null, undefined, new JsonRpcError(-32600, 'Invalid Request: the id must be a string or a number'));
        return;
      }
      if (message.params !== undefined && !isPlainObject(message.params)) {
        this.reply(message.id, undefined, new JsonRpcError(-32602, 'Invalid params: params must be an object'));
        return;
      }
      void this.clientRequest(message.id, message.method, message.params);
      return;
    }
    if ('result' in message || 'error' in message) {
      // A response, ours to match or not; never answered (an error about an error would loop).
      this.clientRequests.answer(message);
      return;
    }
    if (hasId) this.reply(null, undefined, new JsonRpcError(-32600, 'Invalid Request: neither a request, a notification nor a response'));
  }

  private async clientRequest(id: RequestId, method: string, params: JsonObject | undefined): Promise<void> {
    const key = `${typeof id}:${id}`;
    if (this.inFlight.has(key)) {
      this.reply(id, undefined, new JsonRpcError(-32600, `Invalid Request: request id ${JSON.stringify(id)} is already in flight`));
      return;
    }
    const controller = new AbortController();
    this.inFlight.set(key, { controller });
    const token = isPlainObject(params?._meta) ? params._meta.progressToken : undefined;
    if (token !== undefined) this.progressOwners.set(token, id);
    try {
      const outcome = await this.dispatch(id, method, params, controller.signal);
      // A request the client cancelled gets no response (MCP cancellation).
      if (!controller.signal.aborted) this.reply(id, outcome, undefined);
    } catch (error) {
      if (!controller.signal.aborted) this.reply(id, undefined, jsonRpcErrorFrom(error));
    } finally {
      this.inFlight.delete(key);
      if (token !== undefined) this.progressOwners.delete(token);
    }
  }

  private async dispatch(id: RequestId, method: string, params: JsonObject | undefined, signal: AbortSignal): Promise<MethodResult> {
    if (method === 'initialize') return this.initialize(params);
    if (method === 'ping') return {};
    if (!this.initializing) throw new JsonRpcError(-32600, `Invalid Request: ${method} before initialize`);
    await this.initializing;
    const call = { id, params, signal };
    switch (method) {
      case 'tools/list':
        return this.tools.list(params);
      case 'tools/call':
        return this.tools.call(call);
      default:
        if (TASK_METHODS.has(method)) return this.tasks.dispatch(method, call);
        return this.relay.dispatch(method, call);
    }
  }

  private initialize(params: JsonObject | undefined): Promise<JsonObject> {
    if (this.initializing) throw new JsonRpcError(-32600, 'Invalid Request: initialize was already sent in this session');
    this.clientCapabilities = isPlainObject(params?.capabilities) ? params.capabilities : {};
    this.initializing = this.connectAll(params);
    return this.initializing;
  }

  private async connectAll(params: JsonObject | undefined): Promise<JsonObject> {
    const deadline = new Deadline(this.services.timeouts.startupMs, 'upstream start');
    const connecting = [...this.upstreams.values()].map((upstream) => upstream.connect(params, deadline));
    // Once every started server has been sent its initialize (connect sends it as soon as the
    // server's process is up), the tokenizer the first tools/list needs (about 270 ms to load)
    // loads while they boot, instead of before the session or after their answers.
    await Promise.allSettled([...this.upstreams.values()].map((upstream) => upstream.start()));
    void warmUpTokenizer();
    const outcomes = await Promise.allSettled(connecting);
    const failures: string[] = [];
    outcomes.forEach((outcome, index) => {
      const upstream = [...this.upstreams.values()][index];
      if (outcome.status === 'rejected' && upstream) {
        const message = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
        failures.push(message);
        this.services.log(`${upstream.name} could not start: ${message}`);
        void upstream.close();
      }
    });
    // Those that could not be started at all are said in the instructions too, once per session.
    failures.push(...this.services.unavailable.values());
    const live = [...this.upstreams.values()].filter((upstream) => upstream.initialized !== undefined);
    if (live.length === 0) throw new JsonRpcError(-32603, `no upstream could start: ${failures.join('; ')}`);
    return await this.relay.mergeInitialize(live, failures);
  }

  private clientNotification(method: string, params: JsonObject | undefined): void {
    if (method === 'notifications/cancelled') {
      const requestId = params?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') {
        const reason = typeof params?.reason === 'string' ? params.reason : 'the client cancelled the request';
        this.inFlight.get(`${typeof requestId}:${requestId}`)?.controller.abort(reason);
      }
      return;
    }
    const forward = (): void => {
      for (const upstream of this.upstreams.values()) {
        if (upstream.initialized && !upstream.failure) void upstream.notify(method, params).catch(() => {});
      }
    };
    // A notification sent while the upstreams are still starting (a client that pipelines
    // `notifications/initialized`) goes out once they have answered, before any later request.
    if (this.initializing) void this.initializing.then(forward, () => {});
    else forward();
  }

  private fromUpstream(upstream: Upstream, notification: ServerNotification): void {
    const { method } = notification;
    const params = this.tasks.fromUpstream(upstream.name, method, notification.params);
    if (method === 'notifications/cancelled') {
      const clientId = this.clientRequests.clientIdFor(upstream.name, params?.requestId);
      if (clientId === undefined) return;
      const reason = typeof params?.reason === 'string' ? params.reason : 'the upstream cancelled the request';
      this.clientRequests.cancel(clientId, reason);
      this.notifyClient(method, { ...params, requestId: clientId });
      return;
    }
    if (method === 'notifications/tools/list_changed') this.tools.invalidate();
    if (method.endsWith('/list_changed')) this.relay.invalidate();
    const token = isPlainObject(params) ? params.progressToken : undefined;
    const related = method === 'notifications/progress' ? this.progressOwners.get(token) : upstream.latestServed;
    this.notifyClient(method, params, related);
  }

  private async serverRequest(upstream: Upstream, request: ServerRequest): Promise<unknown> {
    const params = this.tasks.fromUpstream(upstream.name, request.method, request.params);
    return this.clientRequests.relay(upstream.name, request.id, request.method, params, upstream.latestServed);
  }

  private upstreamEnded(upstream: Upstream, reason: McpctxError): void {
    this.services.log(reason.message);
    this.taskRoutes.forgetUpstream(upstream.name);
    this.tools.invalidate();
    this.relay.invalidate();
  }

  private notifyClient(method: string, params?: JsonObject, related?: RequestId): void {
    if (this.ended) return;
    const message: JsonRpcMessage = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    this.front.send(message, related === undefined ? {} : { relatedRequestId: related }).catch(() => {});
  }

  private reply(id: RequestId | null, result: MethodResult | undefined, failure: JsonRpcError | undefined): void {
    if (this.ended) return;
    const message: JsonRpcMessage = failure
      ? { jsonrpc: '2.0', id, error: failure.body() }
      : { jsonrpc: '2.0', id, result: result ?? {} };
    this.front.send(message, id === null ? {} : { relatedRequestId: id }).catch(() => {});
  }
}
