import { DEFAULT_PROTOCOL_VERSION, Deadline } from '../../mcp/index.js';
import { isPlainObject, setOwn, type JsonObject } from '../../json/index.js';
import { isNamespaced, splitVisibleName, visibleToolName } from '../config/index.js';
import { collectList } from './_pages.js';
import { JsonRpcError } from '../../mcp/index.js';
import { type ClientCall, type SessionContext, liveUpstream } from './_context.js';
import type { Upstream } from '../upstream/index.js';
import { joinedTasksCapability } from './_tasks.js';
import { type OfferKind, reportFindings, trustGating, trustedInstructions, trustedList } from './_trusted-offers.js';

/** Which kind of offer each list method lists, and under which key of its answer. */
const LISTS = {
  'prompts/list': { kind: 'prompt', key: 'prompts', capability: 'prompts' },
  'resources/list': { kind: 'resource', key: 'resources', capability: 'resources' },
  'resources/templates/list': { kind: 'template', key: 'resourceTemplates', capability: 'resources' },
} as const satisfies Record<string, { kind: OfferKind; key: string; capability: string }>;

type ListMethod = keyof typeof LISTS;

/** One upstream's list of one kind after the trust gates: the keys the client may use, and the held ones with why. */
interface Gated {
  trusted: Set<string>;
  held: Map<string, string>;
}

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
  /** What the trust gates made of each upstream's last list, by `upstream\0kind`. */
  private gated = new Map<string, Gated>();

  constructor(context: SessionContext) {
    this.context = context;
  }

  invalidate(): void {
    this.routes = undefined;
    this.gated = new Map();
  }

  /**
   * The client's `initialize` answer: one upstream's as it is, or several merged; with pins or
   * the scan on, each upstream's instructions pass the trust gates first (held ones are replaced
   * by a note).
   */
  async mergeInitialize(live: readonly Upstream[], failures: readonly string[]): Promise<JsonObject> {
    const { services } = this.context;
    const { config, serverInfo } = services;
    // With scan: warn alone nothing is held, so the instructions pass as sent (and are scanned for the log).
    const trust = services.pins !== undefined || services.scanGate.mode !== 'off';
    const only = live[0];
    if (!isNamespaced(config) && only?.initialized) {
      if (!trustGating(services)) {
        if (trust) await trustedInstructions(services, only.name, Object.hasOwn(only.initialized, 'instructions') ? only.initialized.instructions : undefined);
        return only.initialized;
      }
      const answer: JsonObject = { ...only.initialized };
      const instructions = await trustedInstructions(services, only.name, Object.hasOwn(answer, 'instructions') ? answer.instructions : undefined);
      if (instructions === undefined) delete answer.instructions;
      else answer.instructions = instructions;
      return answer;
    }
    const versions = live.map((upstream) => upstream.initialized?.protocolVersion).filter((v): v is string => typeof v === 'string');
    const capabilities: JsonObject = {};
    for (const upstream of live) mergeInto(capabilities, upstream.capabilities);
    // Tasks: only what the gateway relays with several upstreams, and only if one runs tool calls as tasks.
    const tasks = joinedTasksCapability(live);
    if (tasks === undefined) delete capabilities.tasks;
    else capabilities.tasks = tasks;
    // The gateway itself changes the tool list (search, offload, an upstream ending).
    capabilities.tools = { ...(isPlainObject(capabilities.tools) ? capabilities.tools : {}), listChanged: true };
    const sections: string[] = [];
    for (const upstream of live) {
      const sent = upstream.initialized !== undefined && Object.hasOwn(upstream.initialized, 'instructions') ? upstream.initialized.instructions : undefined;
      const text = trust ? await trustedInstructions(services, upstream.name, sent) : sent;
      if (typeof text === 'string' && text.trim() !== '') sections.push(`## ${upstream.name}\n\n${text.trim()}`);
    }
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
      if (trustGating(this.context.services)) return this.dispatchTrusted(only, method, call);
      const answer = await this.forward(only, method, call.params, call);
      reportFindings(this.context.services, only, method, call.params, answer);
      return answer;
    }
    switch (method) {
      case 'resources/list':
        return { resources: await this.mergedList('resources/list') };
      case 'resources/templates/list':
        return { resourceTemplates: await this.mergedList('resources/templates/list') };
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const upstream = await this.upstreamForUri(call.params?.uri);
        if (method === 'resources/read') await this.refuseHeld(upstream, 'resources/list', call.params?.uri);
        return this.forward(upstream, method, call.params, call);
      }
      case 'prompts/list':
        return { prompts: await this.mergedList('prompts/list') };
      case 'prompts/get': {
        const target = this.byName(call.params?.name);
        return this.getPrompt(target.upstream, target.ownName, call);
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

  /**
   * One upstream alone, with pins or the scan on: its lists are collected whole and gated (a page
   * with held items cannot pass as it came), a held or unlisted prompt is refused, a held
   * resource's URI is not read, and a `prompts/get` answer is scanned.
   */
  private async dispatchTrusted(only: string, method: string, call: ClientCall): Promise<JsonObject> {
    switch (method) {
      case 'prompts/list':
      case 'resources/list':
      case 'resources/templates/list': {
        const upstream = liveUpstream(this.context, only);
        const { items } = await this.gatedList(upstream, method, new Deadline(this.context.services.timeouts.requestMs, method));
        return { [LISTS[method].key]: items };
      }
      case 'prompts/get':
        return this.getPrompt(only, call.params?.name, call);
      case 'resources/read':
        await this.refuseHeld(only, 'resources/list', call.params?.uri);
        return this.forward(only, method, call.params, call);
      default:
        return this.forward(only, method, call.params, call);
    }
  }

  /** `prompts/get`, once the prompt is known to be listed and trusted; the answer's messages are scanned (they depend on the arguments, so they are not pinned). */
  private async getPrompt(upstream: string, name: unknown, call: ClientCall): Promise<JsonObject> {
    if (typeof name !== 'string') throw new JsonRpcError(-32602, 'Invalid params: prompts/get needs a string name');
    await this.refuseHeld(upstream, 'prompts/list', name);
    const answer = await this.forward(upstream, 'prompts/get', { ...call.params, name }, call);
    const held = this.context.services.scanGate.checkAnswer(upstream, `prompt:${name}`, answer);
    if (held !== undefined) throw new JsonRpcError(-32603, `The answer of ${upstream} to prompts/get ${JSON.stringify(name)} was not passed on: ${held}`);
    return answer;
  }

  /**
   * Refuses a key the gates held back in the upstream's last list (listing it first if needed);
   * with pins on, a prompt that was never listed is refused too, as an unlisted tool is.
   */
  private async refuseHeld(upstreamName: string, method: 'prompts/list' | 'resources/list', key: unknown): Promise<void> {
    const { services } = this.context;
    if (!trustGating(services) || typeof key !== 'string') return;
    let gated = this.gated.get(`${upstreamName}\u0000${LISTS[method].kind}`);
    if (gated === undefined) {
      await this.gatedList(liveUpstream(this.context, upstreamName), method, new Deadline(services.timeouts.requestMs, method));
      gated = this.gated.get(`${upstreamName}\u0000${LISTS[method].kind}`);
    }
    const reason = gated?.held.get(key);
    const what = method === 'prompts/list' ? `the prompt ${JSON.stringify(key)}` : `the resource ${JSON.stringify(key)}`;
    if (reason !== undefined) throw new JsonRpcError(-32602, `${what} of ${upstreamName}: ${reason}`);
    if (method === 'prompts/list' && services.pins !== undefined && gated !== undefined && !gated.trusted.has(key)) {
      throw new JsonRpcError(-32602, `Invalid params: ${upstreamName} did not list ${what}, and the gateway relays only prompts it listed and pinned`);
    }
  }

  /** One upstream's list followed to its end and run through the trust gates (when on); what they held is remembered for refusals. */
  private async gatedList(upstream: Upstream, method: ListMethod, deadline: Deadline): Promise<{ items: unknown[] }> {
    const { kind, key } = LISTS[method];
    const { items } = await collectList(upstream, method, key, deadline);
    const { services } = this.context;
    if (services.pins === undefined && services.scanGate.mode === 'off') return { items };
    const gated = await trustedList(services, upstream.name, kind, items);
    const field = kind === 'prompt' ? 'name' : kind === 'resource' ? 'uri' : 'uriTemplate';
    const trusted = new Set(gated.items.flatMap((item) => (isPlainObject(item) && typeof item[field] === 'string' ? [item[field]] : [])));
    this.gated.set(`${upstream.name}\u0000${kind}`, { trusted, held: gated.held });
    return { items: gated.items };
  }

  /** Every upstream's list followed to its end, gated, merged; prompts renamed, resources remembered for routing. */
  private async mergedList(method: ListMethod): Promise<unknown[]> {
    const { config } = this.context.services;
    const { key, capability } = LISTS[method];
    const deadline = new Deadline(this.context.services.timeouts.requestMs, method);
    const merged: unknown[] = [];
    const routes = this.routes ?? { uris: new Map<string, string>(), templates: [] };
    for (const upstream of this.withCapability(capability)) {
      const { items } = await this.gatedList(upstream, method, deadline);
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
      await this.mergedList('resources/list');
      await this.mergedList('resources/templates/list');
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
      setOwn<unknown>(target, key, copy);
    } else if (current === undefined || value === true) setOwn<unknown>(target, key, value);
  }
}
