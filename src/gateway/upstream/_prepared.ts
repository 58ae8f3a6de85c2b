import type { ServerNotification, ServerRequest } from '../../mcp/index.js';
import type { McpctxError } from '../../errors/index.js';
import { resolveUpstream, type GatewayConfig, type ResolvedUpstream } from '../config/index.js';
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
  /** Every upstream, `${VAR}` templates filled in. */
  readonly resolved: readonly ResolvedUpstream[];
  /**
   * The started upstream named `name`, once, with `events` receiving what it said so far and
   * everything after; undefined when none was started (an HTTP client: each session starts its own).
   */
  take(name: string, events: UpstreamEvents): Upstream | undefined;
  /** Ends the started upstreams no session took (a set-up step after them failed). */
  close(): Promise<void>;
}

/**
 * Resolves every upstream and checks it can be reached (nothing is left running when one cannot),
 * then, with `start`, starts each: the servers boot in their own processes while the rest of the
 * gateway loads and sets up. For the stdio client, which has one session, so one set of upstreams.
 */
export async function prepareUpstreams(config: GatewayConfig, env: NodeJS.ProcessEnv, options: { start: boolean }): Promise<PreparedUpstreams> {
  const resolved = config.upstreams.map((spec) => resolveUpstream(spec, env));
  await Promise.all(resolved.map((upstream) => checkReachable(upstream)));
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
