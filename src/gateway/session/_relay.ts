import { DEFAULT_PROTOCOL_VERSION, Deadline } from '../../mcp/index.js';
import { isPlainObject, type JsonObject } from '../../json/index.js';
import { isNamespaced, splitVisibleName, visibleToolName } from '../config/index.js';
import { collectList } from './_pages.js';
import { JsonRpcError } from '../../mcp/index.js';
import { type ClientCall, type SessionContext, liveUpstream } from './_context.js';
import type { Upstream } from '../upstream/index.js';

interface ResourceRoutes {
  /** Exact URI -> upstream, from resources/list. */
  readonly uris: Map<string, string>;
  /** URI templates (their literal parts) -> upstream, from resources/templates/list. */
  readonly templates: { literals: string[]; upstream: string }[];
}

/**
 * Everything but tools: with one upstream each request is forwarded as it came and its answer
 * returned as it was sent; with several, lists are merged (prompt names namespaced), resources
 * routed by the URI to the upstream that listed it, prompts and completions by name.
 */
export class SessionRelay {
  private readonly context: SessionContext;
  private routes: ResourceRoutes | undefined;

  constructor(context: SessionContext) {
    this.context = context;
  }

  invalidate(): void {
    this.routes = undefined;
  }

  /** The client's `initialize` answer: one upstream's as it is, or several merged. */
  mergeInitialize(live: readonly Upstream[], failures: readonly string[]): JsonObject {
    const { config, serverInfo } = this.context.services;
    const only = live[0];
    if (!isNamespaced(config) && only?.initialized) return only.initialized;
    const versions = live.map((upstream) => upstream.initialized?.protocolVersion).filter((v): v is string => typeof v === 'string');
    const capabilities: JsonObject = {};
    for (const upstream of live) mergeInto(capabilities, upstream.capabilities);
    // The gateway itself changes the tool list (search, offload, an upstream ending).
    capabilities.tools = { ...(isPlainObject(capabilities.tools) ? capabilities.tools : {}), listChanged: true };
    const sections = live.flatMap((upstream) => {
      const text = upstream.initialized?.instructions;
      return typeof text === 'string' && text.trim() !== '' ? [`## ${upstream.name}\n\n${text.trim()}`] : [];
    });
    if (failures.length > 0) sections.push(`## unavailable\n\n${failures.join('\n')}`);
    const result: JsonObject = {
      protocolVersion: versions.sort()[0] ?? DEFAULT_PROTOCOL_VERSION,
      capabilities,
      serverInfo: { ...serverInfo },
    };
    if (sections.length > 0) result.instructions = sections.join('\n\n');
    return result;
  }

  async dispatch(method: string, call: ClientCall): Promise<JsonObject> {
    if (!isNamespaced(this.context.services.config)) {
      const only = [...this.context.upstreams.keys()][0];
      if (only === undefined) throw new JsonRpcError(-32601, `Method not found: ${method}`);
      return this.forward(only, method, call.params, call);
    }
    switch (method) {
      case 'resources/list':
        return { resources: await this.mergedList('resources/list', 'resources', 'resources') };
      case 'resources/templates/list':
        return { resourceTemplates: await this.mergedList('resources/templates/list', 'resourceTemplates', 'resources') };
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return this.forward(await this.upstreamForUri(call.params?.uri), method, call.params, call);
      case 'prompts/list':
        return { prompts: await this.mergedList('prompts/list', 'prompts', 'prompts') };
      case 'prompts/get': {
        const target = this.byName(call.params?.name);
        return this.forward(target.upstream, method, { ...call.params, name: target.ownName }, call);
      }
      case 'completion/complete':
        return this.complete(call);
      case 'logging/setLevel':
        await Promise.all(
          this.withCapability('logging').map((upstream) => this.forward(upstream.name, method, call.params, call)),
        );
        return {};
      default:
        throw new JsonRpcError(-32601, `Method not found: ${method} (the gateway relays it only with a single upstream)`);
    }
  }

  private async complete(call: ClientCall): Promise<JsonObject> {
    const ref = call.params?.ref;
    if (!isPlainObject(ref)) throw new JsonRpcError(-32602, 'Invalid params: completion/complete needs a ref');
    if (ref.type === 'ref/prompt') {
      const target = this.byName(ref.name);
      return this.forward(target.upstream, 'completion/complete', { ...call.params, ref: { ...ref, name: target.ownName } }, call);
    }
    return this.forward(await this.upstreamForUri(ref.uri), 'completion/complete', call.params, call);
  }

  private byName(name: unknown): { upstream: string; ownName: string } {
    const split = typeof name === 'string' ? splitVisibleName(this.context.services.config, name) : undefined;
    if (!split) throw new JsonRpcError(-32602, `Invalid params: unknown prompt ${JSON.stringify(name)}`);
    return split;
  }

  private async forward(upstreamName: string, method: string, params: JsonObject | undefined, call: ClientCall): Promise<JsonObject> {
    const upstream = liveUpstream(this.context, upstreamName);
    const deadline = new Deadline(this.context.services.timeouts.requestMs, method);
    const result = await upstream.request(method, params, deadline, { signal: call.signal, clientRequestId: call.id });
    if (!isPlainObject(result)) throw new JsonRpcError(-32603, `${upstreamName} answered ${method} with something that is not an object`);
    return result;
  }

  private withCapability(capability: string): Upstream[] {
    return [...this.context.upstreams.values()].filter((upstream) => !upstream.failure && Object.hasOwn(upstream.capabilities, capability));
  }

  /** Every upstream's list followed to its end, merged; prompts renamed, resources remembered for routing. */
  private async mergedList(method: string, key: string, capability: string): Promise<unknown[]> {
    const { config } = this.context.services;
    const deadline = new Deadline(this.context.services.timeouts.requestMs, method);
    const merged: unknown[] = [];
    const routes = this.routes ?? { uris: new Map<string, string>(), templates: [] };
    for (const upstream of this.withCapability(capability)) {
      const { items } = await collectList(upstream, method, key, deadline);
      for (const item of items) {
        if (!isPlainObject(item)) continue;
        if (key === 'prompts' && typeof item.name === 'string') {
          merged.push({ ...item, name: visibleToolName(config, upstream.name, item.name) });
          continue;
        }
        if (typeof item.uri === 'string') routes.uris.set(item.uri, upstream.name);
        if (typeof item.uriTemplate === 'string') routes.templates.push({ literals: templateLiterals(item.uriTemplate), upstream: upstream.name });
        merged.push(item);
      }
    }
    if (key !== 'prompts') this.routes = routes;
    return merged;
  }

  private async upstreamForUri(uri: unknown): Promise<string> {
    if (typeof uri !== 'string') throw new JsonRpcError(-32602, 'Invalid params: a string uri is required');
    const find = (): string | undefined =>
      this.routes?.uris.get(uri) ?? this.routes?.templates.find((template) => matchesTemplate(template.literals, uri))?.upstream;
    let found = find();
    if (found === undefined) {
      await this.mergedList('resources/list', 'resources', 'resources');
      await this.mergedList('resources/templates/list', 'resourceTemplates', 'resources');
      found = find();
    }
    const withResources = this.withCapability('resources');
    if (found === undefined && withResources.length === 1) found = withResources[0]?.name;
    if (found === undefined) throw new JsonRpcError(-32002, `Resource not found: no upstream listed ${uri}`);
    return found;
  }
}

/** An RFC 6570 template's literal parts, around its `{expressions}`. */
function templateLiterals(template: string): string[] {
  return template.split(/\{[^}]*\}/);
}

/**
 * Whether a URI fits a template, each expression standing for one or more characters. Literals
 * are found left to right with indexOf, never with a backtracking pattern: a template an upstream
 * wrote cannot make a lookup slow.
 */
function matchesTemplate(literals: readonly string[], uri: string): boolean {
  const first = literals[0] ?? '';
  const last = literals.at(-1) ?? '';
  if (literals.length === 1) return uri === first;
  if (!uri.startsWith(first) || !uri.endsWith(last) || uri.length < first.length + last.length + literals.length - 1) return false;
  let at = first.length;
  const end = uri.length - last.length;
  for (const literal of literals.slice(1, -1)) {
    const found = uri.indexOf(literal, at + 1);
    if (found === -1 || found + literal.length > end - 1) return false;
    at = found + literal.length;
  }
  return at < end;
}

/**
 * Deep union of capability objects: a capability any upstream has, with every flag any of them
 * sets. Keys are an upstream's own (`__proto__` and `constructor` included, as JSON.parse makes
 * them): read with hasOwn and written as own data properties, never through an inherited accessor,
 * so an answer cannot reach Object.prototype.
 */
function mergeInto(target: JsonObject, source: JsonObject): void {
  for (const [key, value] of Object.entries(source)) {
    const current = Object.hasOwn(target, key) ? target[key] : undefined;
    if (isPlainObject(value) && isPlainObject(current)) mergeInto(current, value);
    else if (isPlainObject(value)) {
      const copy: JsonObject = {};
      mergeInto(copy, value);
      setOwn(target, key, copy);
    } else if (current === undefined || value === true) setOwn(target, key, value);
  }
}

function setOwn(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
