import type { ServerNotification, ServerRequest } from '../../mcp/index.js';
import { McpctxError, isMcpctxError } from '../../errors/index.js';
import { resolveUpstream, type GatewayConfig, type ResolvedUpstream, type UpstreamSpec } from '../config/index.js';
import { checkReachable } from './_reachable.js';
import { Upstream, type UpstreamEvents } from './_upstream.js';

/**
 * What an upstream started before its session exists says, kept in order until the session takes
 * it: a log line or a request the server sends while the rest of the gateway loads is delivered
 * then, not lost.
 */
class HeldEvents implements UpstreamEvents {
  private target: UpstreamEvents | undefined;
  private readonly held: Array<(target: UpstreamEvents) => void> = [];

  onNotification(upstream: Upstream, notification: ServerNotification): void {
    this.deliver((target) => target.onNotification(upstream, notification));
  }

  onServerRequest(upstream: Upstream, request: ServerRequest): Promise<unknown> {
    return new Promise((resolve, reject) => this.deliver((target) => target.onServerRequest(upstream, request).then(resolve, reject)));
  }

  onEnded(upstream: Upstream, reason: McpctxError): void {
    this.deliver((target) => target.onEnded(upstream, reason));
  }

  bind(target: UpstreamEvents): void {
    this.target = target;
    for (const event of this.held.splice(0)) event(target);
  }

  private deliver(event: (target: UpstreamEvents) => void): void {
    if (this.target) event(this.target);
    else this.held.push(event);
  }
}

/** The upstreams of one config, resolved and checked, and (for a stdio client) already started. */
export interface PreparedUpstreams {
  /** The config they were prepared from: the gateway checks it is the one it serves. */
  readonly config: GatewayConfig;
  /** Every upstream that can be started, `${VAR}` templates filled in. */
  readonly resolved: readonly ResolvedUpstream[];
  /**
   * The upstreams that cannot be started, by name, and why (a command not found, a url nobody
   * answers, a variable not set, an entry the gateway cannot serve): left out, the others serve.
   */
  readonly unavailable: ReadonlyMap<string, string>;
  /**
   * The started upstream named `name`, once, with `events` receiving what it said so far and
   * everything after; undefined when none was started (an HTTP client: each session starts its own).
   */
  take(name: string, events: UpstreamEvents): Upstream | undefined;
  /** Ends the started upstreams no session took (a set-up step after them failed). */
  close(): Promise<void>;
}

/**
 * Resolves every upstream and checks it can be reached (nothing is started for one that cannot),
 * then, with `start`, starts each that can: the servers boot in their own processes while the
 * rest of the gateway loads and sets up. For the stdio client, which has one session, so one set
 * of upstreams. One upstream that cannot start is `unavailable` and the others serve; when none
 * can, nothing is served: the one failure as it is, or UNREACHABLE naming every upstream and why
 * (INVALID_CONFIG when each is a config mistake, such as a variable not set).
 */
export async function prepareUpstreams(config: GatewayConfig, env: NodeJS.ProcessEnv, options: { start: boolean }): Promise<PreparedUpstreams> {
  const checked = await Promise.all(config.upstreams.map((spec) => startable(spec, env)));
  const resolved = checked.flatMap((outcome) => ('upstream' in outcome ? [outcome.upstream] : []));
  const failures = checked.flatMap((outcome) => ('failure' in outcome ? [outcome.failure] : []));
  if (resolved.length === 0) throw noneCanStart(failures);
  const unavailable = new Map(failures.map((failure) => [String(failure.data.upstream), failure.message]));
  const started = new Map<string, { upstream: Upstream; events: HeldEvents }>();
  if (options.start) {
    for (const spec of resolved) {
      const events = new HeldEvents();
      const upstream = new Upstream(spec, events);
      // A failed start is reported by the session's connect, which waits for it.
      upstream.start().catch(() => {});
      started.set(spec.name, { upstream, events });
    }
  }
  return {
    config,
    resolved,
    unavailable,
    take: (name, events) => {
      const entry = started.get(name);
      if (!entry) return undefined;
      started.delete(name);
      entry.events.bind(events);
      return entry.upstream;
    },
    close: async () => {
      const left = [...started.values()];
      started.clear();
      await Promise.allSettled(left.map((entry) => entry.upstream.close()));
    },
  };
}

/** The upstream resolved and reachable, or why it is not; `data.upstream` names it. */
async function startable(spec: UpstreamSpec, env: NodeJS.ProcessEnv): Promise<{ upstream: ResolvedUpstream } | { failure: McpctxError }> {
  try {
    if (spec.cannotServe !== undefined) throw new McpctxError('INVALID_CONFIG', `upstream ${spec.name}: ${spec.cannotServe}`, { upstream: spec.name });
    const upstream = resolveUpstream(spec, env);
    await checkReachable(upstream);
    return { upstream };
  } catch (error) {
    const failure = isMcpctxError(error) ? error : new McpctxError('UNREACHABLE', `upstream ${spec.name}: ${String(error)}`);
    return { failure: new McpctxError(failure.code, failure.message, { ...failure.data, upstream: spec.name }, { cause: failure.cause ?? error }) };
  }
}

function noneCanStart(failures: readonly McpctxError[]): McpctxError {
  const [only] = failures;
  if (only !== undefined && failures.length === 1) return only;
  const code = failures.every((failure) => failure.code === 'INVALID_CONFIG') ? 'INVALID_CONFIG' : 'UNREACHABLE';
  return new McpctxError(code, `no upstream can start:\n${failures.map((failure) => `  - ${failure.message}`).join('\n')}`, {
    upstreams: failures.map((failure) => String(failure.data.upstream)),
  });
}
