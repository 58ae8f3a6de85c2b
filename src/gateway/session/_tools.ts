import { performance } from 'node:perf_hooks';
import { McpctxError, isMcpctxError } from '../../errors/index.js';
import { Deadline } from '../../mcp/index.js';
import { countTokens } from '../../tokens/index.js';
import { isPlainObject, setOwn, type JsonObject } from '../../json/index.js';
import { ToolIndex, type SearchableTool } from '../../toolsearch/index.js';
import {
  SEARCH_TOOL_NAME,
  buildCatalog,
  catalogChanges,
  searchToolDefinition,
  searchToolResult,
  type Catalog,
  type CatalogTool,
  type UpstreamTools,
} from '../catalog/index.js';
import { MAX_TOOL_NAME_CHARS, type ListedToolNames, configRules, matchRules, isToolNameTooLong, splitVisibleName, toolRulesFor, visibleToolName } from '../config/index.js';
import { isMalformedCatalog, readToolList } from './_tool-list.js';
import type { Receipt } from '../receipts/index.js';
import { READ_RESULT_TOOL as READ_RESULT, type ResultContext } from '../results/index.js';
import { o200kCapOf } from '../../tokens/index.js';
import { ArgumentChecker, toolName } from '../trust/index.js';
import type { CallOutcome, CallTarget, HeldBack, ToolCall } from './_call.js';
import { CALL_CHECKS } from './checks/index.js';
import { FoldedNames } from './_folded-names.js';
import { agreeWithListedSchema } from './_schema-agreement.js';
import { errorUnderCalledName, resultUnderCalledName } from './_called-name.js';
import { JsonRpcError } from '../../mcp/index.js';
import type { ClientCall, SessionContext } from './_context.js';
import { refusal, refusalText, resultTokens, shownName } from './_refusal.js';
import { createdTask, renameTaskIds, type TaskOrigin, type TaskRoute } from '../tasks/index.js';

/**
 * One catalog as built for a session, with the argument checks against its schemas; `unavailable`
 * names each upstream left out and why, `refused` the ones left out for a catalog that cannot be
 * used (malformed, not just unanswered), whose tools' calls are refused rather than relayed;
 * `folded` finds what a name not in the catalog passes for (case, separators, look-alikes).
 */
type Built = { catalog: Catalog; unavailable: Record<string, string>; refused: ReadonlyMap<string, string>; checker: ArgumentChecker; folded: FoldedNames };

/** Tools per `tools/list` page the gateway sends; more than that and the client pages. */
export const TOOLS_PAGE_SIZE = 128;
const LIST_QUERY = 'tools/list';

/**
 * `tools/list` and `tools/call` of one session: the catalog with its rules, the meta-tools
 * (`read_result` once something was offloaded, `search_tools` when search is on), denied tools
 * refused inside the gateway, and every result shaped in tokens, with a receipt for each.
 */
export class SessionTools {
  private readonly context: SessionContext;
  private building: Promise<Built> | undefined;
  private index: { catalog: Catalog; index: ToolIndex } | undefined;
  private readonly discovered = new Set<string>();
  /** The tools each upstream offered that a trust gate holds back, and why (by upstream, then own name). */
  private held = new Map<string, Map<string, HeldBack>>();
  /** What the poisoning scan found in the last catalog built (for the list receipt). */
  private findings: Array<{ upstream: string; tool: string; ruleId: string; path: string }> = [];
  private offloaded = false;
  /** Keys of the lines already said in this session (`sayOnce`). */
  private readonly said = new Set<string>();

  constructor(context: SessionContext) {
    this.context = context;
  }

  /** Forget the catalog (an upstream's list changed or it ended); the next list or call rebuilds it. */
  invalidate(): void {
    this.building = undefined;
    this.index = undefined;
  }

  async list(params: JsonObject | undefined): Promise<JsonObject> {
    const started = performance.now();
    const { catalog, unavailable } = await this.catalog();
    const { config } = this.context.services;
    const extras = this.metaTools();
    const unavailableNames = Object.keys(unavailable);
    if (catalog.passThrough && extras.length === 0 && !config.search.enabled && unavailableNames.length === 0) {
      this.receipt(started, catalog, catalog.tools.map((tool) => tool.definition));
      return catalog.passThrough;
    }
    const visible = config.search.enabled
      ? catalog.tools.filter((tool) => configRules(config).isPinned(tool.upstream, tool.ownName) || this.discovered.has(tool.visibleName))
      : catalog.tools;
    const all = [...visible.map((tool) => tool.definition), ...extras];
    const revision = String(catalog.upstreamTokens) + ':' + all.map((tool) => tool.name).join('\n');
    const binding = { query: { method: LIST_QUERY, session: this.context.sessionId }, revision };
    // null is how many clients say "no cursor".
    const start = params?.cursor === undefined || params.cursor === null ? 0 : this.context.services.listCodec.open(params.cursor, binding);
    const page = all.slice(start, start + TOOLS_PAGE_SIZE);
    const result: JsonObject = { tools: page };
    if (start + TOOLS_PAGE_SIZE < all.length) result.nextCursor = this.context.services.listCodec.issue(binding, start + TOOLS_PAGE_SIZE);
    const meta: JsonObject = {};
    if (unavailableNames.length > 0) meta['mcpctx/unavailable'] = unavailable;
    if (catalog.clashes.size > 0) meta['mcpctx/unavailableTools'] = Object.fromEntries(catalog.clashes);
    if (Object.keys(meta).length > 0) result._meta = meta;
    this.receipt(started, catalog, page, unavailable);
    return result;
  }

  /**
   * A meta-tool's call is served by the gateway; any other goes through the checks in order
   * (`checks/`), the first outcome ending it, then to its upstream, and its result is shaped.
   */
  async call(call: ClientCall): Promise<JsonObject> {
    const started = performance.now();
    const name = call.params?.name;
    if (typeof name !== 'string') throw new JsonRpcError(-32602, 'Invalid params: tools/call needs a string name');
    const args = isPlainObject(call.params?.arguments) ? call.params.arguments : undefined;
    const { services, resultOwner } = this.context;
    if (name === READ_RESULT && services.config.offload) {
      return this.finish(started, null, name, call, await services.shaper.readResultAsync(args, { sessionId: resultOwner, capTokens: o200kCapOf(services.config.capTokens, services.config.claudeSafetyFactor) }));
    }
    if (name === SEARCH_TOOL_NAME && services.config.search.enabled) return this.search(started, call, args);
    const built = await this.catalog();
    const { checker } = built;
    const target = this.target(built, name);
    const results: ResultContext = {
      sessionId: resultOwner,
      tool: name,
      // Matched by upstream and own name; a name no upstream listed has the rules of what it would reach.
      rules: built.catalog.byName.get(name)?.rules ?? (target.upstream === '' ? undefined : toolRulesFor(services.config, target.upstream, target.ownName)),
      capTokens: services.config.capTokens,
      ...(services.config.claudeSafetyFactor === undefined ? {} : { safetyFactor: services.config.claudeSafetyFactor }),
      offload: services.config.offload,
    };
    const toolCall: ToolCall = { ...call, args, context: this.context, checker, results, sayOnce: (key, line) => this.sayOnce(key, line) };
    for (const check of CALL_CHECKS) {
      const outcome = await check(target, toolCall);
      if (outcome === undefined) continue;
      const result = this.finish(started, target.upstream, name, call, agreeWithListedSchema(target.definition, outcome));
      // A task-augmented call is answered with a CreateTaskResult or a JSON-RPC error: a client
      // (the SDK's callToolStream) reads any other result as a malformed task, not as the refusal.
      if (isPlainObject(call.params?.task) && result.isError === true) throw new JsonRpcError(-32602, refusalText(result));
      return result;
    }
    return this.finish(started, target.upstream, name, call, agreeWithListedSchema(target.definition, await this.relay(target, toolCall)));
  }

  /** Sends the call to its upstream (under its own name) and shapes what comes back. */
  private async relay(target: CallTarget, call: ToolCall): Promise<CallOutcome> {
    const { services } = this.context;
    const upstream = this.context.upstreams.get(target.upstream);
    const params = target.name === target.ownName ? call.params : { ...call.params, name: target.ownName };
    let raw: unknown;
    try {
      if (!upstream) throw new McpctxError('PROTOCOL', `no upstream is called ${target.upstream}`);
      if (upstream.failure) throw upstream.failure;
      const deadline = new Deadline(services.timeouts.requestMs, 'tool call');
      raw = await upstream.request('tools/call', params, deadline, { signal: call.signal, clientRequestId: call.id });
    } catch (error) {
      // The upstream's own JSON-RPC error goes back as it sent it; a broken or dead upstream
      // becomes a tool error result naming the cause, so the model can act on it.
      if (call.signal.aborted) throw error;
      if (isMcpctxError(error, 'RPC_ERROR')) throw errorUnderCalledName(target, error);
      return refusal(`${target.name} could not be served: ${error instanceof Error ? error.message : String(error)}`, { action: 'failed' });
    }
    if (!isPlainObject(raw)) throw new JsonRpcError(-32603, `${target.upstream} answered tools/call with something that is not an object`);
    const task = isPlainObject(call.params?.task) ? createdTask(raw) : undefined;
    if (task !== undefined) return this.taskCreated(target, call, raw, task);
    return services.shaper.shapeAsync(resultUnderCalledName(target, raw), call.args, call.results, call.signal);
  }

  /**
   * A task-augmented call the upstream accepted as a task: its CreateTaskResult goes back with the
   * task id the client is to use (namespaced with several upstreams), and the call is remembered
   * so that the task's result is shaped as this call's would have been.
   */
  private taskCreated(target: CallTarget, call: ToolCall, raw: JsonObject, task: JsonObject): CallOutcome {
    const { tasks } = this.context;
    const visible = tasks.remember(target.upstream, task, { tool: target.name, ownName: target.ownName, args: call.args });
    const result = renameTaskIds(raw, (id) => tasks.visibleId(target.upstream, id));
    return { result, action: 'passed', upstreamTokens: resultTokens(raw), deliveredTokens: resultTokens(result), note: `task ${String(visible)} created` };
  }

  /**
   * The result of a task a tools/call created (tasks/result): shaped under the same rules, cap and
   * offload as the call's direct result, with a call receipt of its own naming the tool.
   */
  async shapeTaskResult(route: TaskRoute & { origin: TaskOrigin }, result: JsonObject, call: ClientCall): Promise<JsonObject> {
    const started = performance.now();
    const { services, resultOwner } = this.context;
    const { tool, ownName, args } = route.origin;
    const context: ResultContext = { sessionId: resultOwner, tool, rules: toolRulesFor(services.config, route.upstream, ownName), capTokens: services.config.capTokens, ...(services.config.claudeSafetyFactor === undefined ? {} : { safetyFactor: services.config.claudeSafetyFactor }), offload: services.config.offload };
    const outcome = await services.shaper.shapeAsync(result, args, context, call.signal);
    const note = `result of task ${this.context.tasks.visibleId(route.upstream, route.upstreamId)}`;
    // The receipt records the call's arguments, as the direct call's would.
    const asCall: ClientCall = { ...call, params: { name: tool, ...(args === undefined ? {} : { arguments: args }) } };
    return this.finish(started, route.upstream, tool, asCall, { ...outcome, note: outcome.note === undefined ? note : `${note}; ${outcome.note}` });
  }

  /**
   * An upstream's tools without those whose name is past every rule (MAX_TOOL_NAME_CHARS): denied
   * whatever the config says, they are left out before the trust gates, which would otherwise
   * pin, scan and fold the whole name on every build.
   */
  private withinNameLimit(upstream: string, tools: readonly unknown[]): readonly unknown[] {
    const { config } = this.context.services;
    const kept = tools.filter((tool) => {
      const name = toolName(tool);
      return name === undefined || !isToolNameTooLong(visibleToolName(config, upstream, name));
    });
    if (kept.length < tools.length) {
      const left = tools.length - kept.length;
      this.sayOnce(`overlong\u0000${upstream}`, `${upstream}: ${left} tool${left === 1 ? '' : 's'} left out: names are at most ${MAX_TOOL_NAME_CHARS.toLocaleString('en-US')} characters`);
    }
    return kept;
  }

  private sayOnce(key: string, line: string): void {
    if (this.said.has(key)) return;
    this.said.add(key);
    this.context.services.log(line);
  }

  private async search(started: number, call: ClientCall, args: JsonObject | undefined): Promise<JsonObject> {
    const { catalog } = await this.catalog();
    if (this.index?.catalog !== catalog) this.index = { catalog, index: new ToolIndex(catalog.tools.map(searchable)) };
    const { result, found } = searchToolResult(this.index.index, catalog, args, this.context.services.config.search.topK);
    const fresh = found.filter((name) => !this.discovered.has(name));
    for (const name of fresh) this.discovered.add(name);
    const tokens = resultTokens(result);
    const reply = this.finish(started, null, SEARCH_TOOL_NAME, call, { result, action: 'passed', upstreamTokens: tokens, deliveredTokens: tokens });
    // Found tools join the list the client sees; clients that re-list get them as native tools.
    if (fresh.length > 0) this.context.notifyClient('notifications/tools/list_changed');
    return reply;
  }

  /**
   * What a name stands for in the catalog, for the checks; a name no upstream could serve is an
   * invalid call. A name the catalog does not have as written but has by its fold is what it
   * passes for: denied or held like that tool, or unlisted with the listed name to use instead.
   */
  private target({ catalog, folded, refused }: Built, name: string): CallTarget {
    const listed = catalog.byName.get(name);
    if (listed) {
      return { name, upstream: listed.upstream, ownName: listed.ownName, definition: listed.definition, upstreamDefinition: listed.upstreamDefinition, listing: 'listed', held: undefined, lookAlikeOf: undefined };
    }
    // A tool the client was not shown: no definition to check against.
    const unshown = (upstream: string, ownName: string) => ({ name, upstream, ownName, definition: {}, upstreamDefinition: {}, held: undefined, lookAlikeOf: undefined });
    const denied = catalog.denied.get(name);
    if (denied) return { ...unshown(denied.upstream, denied.ownName), listing: 'denied' };
    const split = splitVisibleName(this.context.services.config, name);
    const clash = catalog.clashes.get(name);
    if (clash !== undefined) return { ...unshown(split?.upstream ?? '', split?.ownName ?? name), listing: 'unavailable', unavailable: clash };
    if (!split) throw new JsonRpcError(-32602, `Unknown tool: ${shownName(name)}`);
    const unlisted = unshown(split.upstream, split.ownName);
    const unusable = refused.get(split.upstream) ?? this.context.services.unavailable.get(split.upstream);
    if (unusable !== undefined) return { ...unlisted, listing: 'unavailable', unavailable: unusable };
    const held = this.held.get(split.upstream)?.get(split.ownName);
    if (held !== undefined) return { ...unlisted, listing: 'held', held };
    const alike = folded.find(name);
    if (alike?.kind === 'denied') return { ...unlisted, listing: 'denied' };
    if (alike?.kind === 'held') return { ...unlisted, listing: 'held', held: alike.held };
    return { ...unlisted, listing: 'unlisted', lookAlikeOf: alike?.visibleName };
  }

  private finish(started: number, upstream: string | null, tool: string, call: ClientCall, outcome: CallOutcome): JsonObject {
    if (outcome.action === 'offloaded' && !this.offloaded) {
      this.offloaded = true;
      this.context.notifyClient('notifications/tools/list_changed');
    }
    const receipts = this.context.services.receipts;
    if (receipts) {
      const time = new Date().toISOString();
      const elapsedMs = Math.round((performance.now() - started) * 100) / 100;
      // Written after the reply has gone out: a result passed as is is counted only now.
      setImmediate(() => {
        const receipt: Receipt = {
          time,
          kind: 'call',
          upstream,
          tool,
          upstreamTokens: outcome.upstreamTokens,
          deliveredTokens: outcome.deliveredTokens,
          action: outcome.action,
          elapsedMs,
          args: call.params?.arguments,
          ...(outcome.note === undefined ? {} : { note: outcome.note }),
        };
        receipts.write(receipt);
      });
    }
    return outcome.result;
  }

  private receipt(started: number, catalog: Catalog, delivered: readonly unknown[], unavailable: Record<string, string> = {}): void {
    const receipts = this.context.services.receipts;
    if (!receipts) return;
    const names = new Set(catalog.tools.map((tool) => tool.upstream));
    const leftOut = [
      ...Object.entries(unavailable).map(([upstream, reason]) => `${upstream} unavailable: ${reason}`),
      ...[...catalog.clashes.values()],
    ];
    receipts.write({
      time: new Date().toISOString(),
      kind: 'list',
      upstream: names.size === 1 ? [...names][0] ?? null : null,
      tool: null,
      upstreamTokens: catalog.upstreamTokens,
      deliveredTokens: countTokens(JSON.stringify(delivered)),
      action: 'listed',
      elapsedMs: Math.round((performance.now() - started) * 100) / 100,
      changes: catalogChanges(catalog),
      ...(this.findings.length === 0 ? {} : { findings: this.findings.map(({ upstream, tool, ruleId, path }) => ({ tool: `${upstream}/${tool}`, ruleId, path })) }),
      ...(leftOut.length === 0 ? {} : { note: leftOut.join('; ') }),
    });
  }

  private metaTools(): JsonObject[] {
    const { config, shaper } = this.context.services;
    const tools: JsonObject[] = [];
    if (config.search.enabled) tools.push(searchToolDefinition(config.search.topK));
    if (config.offload && this.offloaded) tools.push(shaper.readResultTool);
    return tools;
  }

  private catalog(): Promise<Built> {
    this.building ??= this.build().catch((error: unknown) => {
      this.building = undefined;
      throw error;
    });
    return this.building;
  }

  private async build(): Promise<Built> {
    const { services } = this.context;
    const deadline = new Deadline(services.timeouts.requestMs, 'tools/list');
    const unavailable: Record<string, string> = {};
    const refused = new Map<string, string>();
    const lists: UpstreamTools[] = [];
    const listedNames: ListedToolNames[] = [];
    const held = new Map<string, Map<string, HeldBack>>();
    const findings: Array<{ upstream: string; tool: string; ruleId: string; path: string }> = [];
    for (const [name, reason] of services.unavailable) setOwn(unavailable, name, reason);
    for (const upstream of this.context.upstreams.values()) {
      if (upstream.failure) {
        setOwn(unavailable, upstream.name, upstream.failure.message);
        continue;
      }
      if (!upstream.initialized || !Object.hasOwn(upstream.capabilities, 'tools')) continue;
      try {
        const collected = await readToolList(upstream, deadline);
        const items = this.withinNameLimit(upstream.name, collected.items);
        listedNames.push({ upstream: upstream.name, tools: items.flatMap((tool) => toolName(tool) ?? []) });
        // The trust gates in a chain: the scan sees only what the pins trusted.
        const pinned = await services.pins?.filter(upstream.name, items);
        const scanned = services.scanGate.filter(upstream.name, pinned?.trusted ?? items);
        const heldHere = new Map<string, HeldBack>();
        for (const [by, filter] of [['pins', pinned], ['scan', scanned]] as const) {
          for (const [tool, reason] of filter?.held ?? []) heldHere.set(tool, { by, reason });
          findings.push(...(filter?.findings ?? []).map((finding) => ({ ...finding, upstream: upstream.name })));
        }
        held.set(upstream.name, heldHere);
        // A page with held or left-out tools in it cannot be passed through as it came.
        const asListed = heldHere.size === 0 && items.length === collected.items.length;
        lists.push({ upstream: upstream.name, tools: scanned.trusted, onlyPage: asListed ? collected.onlyPage : undefined });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // With one upstream its failure is the answer; with several the others still serve.
        if (this.context.upstreams.size === 1) throw error;
        setOwn(unavailable, upstream.name, message);
        if (isMalformedCatalog(error)) refused.set(upstream.name, message);
        this.sayOnce(`unavailable:${upstream.name}:${message}`, `${upstream.name}: tools/list failed, its tools are left out of this session's catalog: ${message}`);
      }
    }
    services.scanGate.reportShadowing(lists.flatMap((list) => list.tools.flatMap((tool) => {
      const name = toolName(tool);
      return name === undefined ? [] : [{ upstream: list.upstream, name }];
    })));
    this.held = held;
    this.findings = findings;
    // Every tool listed, held ones included: a rule that matches none of them is a mistake in the config.
    if (configRules(services.config).all().length > 0) {
      for (const warning of matchRules(services.config, listedNames).warnings) services.logOnce(`config: ${warning}`);
    }
    const reserved = [READ_RESULT, ...(services.config.search.enabled ? [SEARCH_TOOL_NAME] : [])];
    const catalog = buildCatalog(services.config, lists, reserved, (tool) =>
      tool.rules?.pageTokens === undefined ? tool.definition : services.shaper.withCursorParameter(tool.definition),
    );
    for (const [name, reason] of catalog.clashes) this.sayOnce(`clash:${name}`, `${name}: left out of the catalog: ${reason}`);
    // Checked against the definitions the client saw (the gateway's cursor parameter included).
    const checker = new ArgumentChecker(
      catalog.tools.map((tool) => ({ name: tool.visibleName, inputSchema: tool.definition.inputSchema })),
      services.argumentSchemas,
    );
    // Compiled off the request path; a schema that does not compile is said once, never fatal.
    void checker.compileAll().then(
      (unchecked) => {
        for (const { tool, error } of unchecked) services.log(`${tool}: its inputSchema does not compile, so its calls pass unchecked: ${error}`);
      },
      (error: unknown) => services.log(`argument checks: ${error instanceof Error ? error.message : String(error)}`),
    );
    return { catalog, unavailable, refused, checker, folded: new FoldedNames(services.config, catalog, held) };
  }
}

/** A delivered definition as the ranking reads it: only the fields it indexes, of the types it expects. */
function searchable(tool: CatalogTool): SearchableTool {
  const { description, title, inputSchema, annotations } = tool.definition;
  const annotationTitle = isPlainObject(annotations) && typeof annotations.title === 'string' ? annotations.title : undefined;
  return {
    name: tool.visibleName,
    ...(typeof description === 'string' ? { description } : {}),
    ...(typeof title === 'string' ? { title } : {}),
    ...(annotationTitle === undefined ? {} : { annotations: { title: annotationTitle } }),
    inputSchema,
  };
}
