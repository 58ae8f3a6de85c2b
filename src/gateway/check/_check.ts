import { isMcpctxError } from '../../errors/index.js';
import { DEFAULT_PROTOCOL_VERSION, Deadline, JsonRpcError, MCPCTX_CLIENT_INFO } from '../../mcp/index.js';
import {
  DEFAULT_TIMEOUTS,
  toolRulesFor,
  describeEffectiveRules,
  matchRules,
  type EffectiveRules,
  type GatewayConfig,
  type ListedToolNames,
  type RuleMatch,
  type ToolRuleMatch,
  type UpstreamSpec,
} from '../config/index.js';
import { listsWithoutOutputSchema } from '../catalog/index.js';
import { readToolList } from '../session/index.js';
import { type Upstream, type UpstreamEvents, prepareUpstreams } from '../upstream/index.js';

export interface GatewayCheckOptions {
  /** The gateway's environment: `${NAME}` templates in env and headers are filled from it. */
  readonly env: NodeJS.ProcessEnv;
  /** Do not start the upstreams: the config alone is checked, no rule against tools. */
  readonly offline?: boolean;
  /** Budget for each upstream to start, initialize and list its tools (ms). */
  readonly startupTimeoutMs?: number;
}

/** One upstream as the check found it, with its tools and the rules that apply to each. */
export interface UpstreamCheck {
  readonly name: string;
  /** `listed`; `failed`: it could not start, initialize or list (see `error`); `disabled`; `offline`: not started (`--offline`). */
  readonly status: 'listed' | 'failed' | 'disabled' | 'offline';
  readonly error: string | null;
  /** Listed tools in the upstream's order: own name, the name the client sees, allowed or not, the rules that match it. */
  readonly tools: readonly ToolRuleMatch[];
  /**
   * Own names of the allowed tools that declare an outputSchema, by what the listing does with it:
   * left out (the default: a reshaped result has no structuredContent), or kept (`dropOutputSchema:
   * false`: their reshaped results go out marked isError).
   */
  readonly outputSchema: { readonly leftOut: readonly string[]; readonly kept: readonly string[] };
}

/** `mcpctx gateway check`: the effective rules, and (unless offline) each rule against the tools the upstreams listed. */
export interface GatewayCheck extends EffectiveRules {
  /** Whether the upstreams were started and asked for their tools. */
  readonly connected: boolean;
  readonly upstreamChecks: readonly UpstreamCheck[];
  /** Every rule with what it matched (empty when offline). */
  readonly ruleMatches: readonly RuleMatch[];
  /** Rules that match no tool of the upstreams they name, all of which listed theirs (also among `warnings`). */
  readonly unmatchedRules: readonly string[];
}

/**
 * Checks a parsed config: its effective rules and, unless `offline`, every enabled upstream
 * started (as the gateway starts it), initialized and asked for its whole tool list, then ended;
 * each rule is matched against those lists by the gateway's own matcher. An upstream that cannot
 * start is reported, never thrown; the others are still checked. Nothing is left running.
 */
export async function checkGateway(config: GatewayConfig, options: GatewayCheckOptions): Promise<GatewayCheck> {
  const rules = describeEffectiveRules(config);
  if (options.offline === true) {
    const upstreamChecks = [
      ...config.upstreams.map((spec): UpstreamCheck => ({ name: spec.name, status: 'offline', error: null, tools: [], outputSchema: NO_SCHEMAS })),
      ...disabledChecks(config),
    ];
    return { ...rules, connected: false, upstreamChecks, ruleMatches: [], unmatchedRules: [] };
  }
  const budgetMs = options.startupTimeoutMs ?? DEFAULT_TIMEOUTS.startupMs;
  const outcomes = await Promise.all(config.upstreams.map((spec) => listToolNames(config, spec, options.env, budgetMs)));
  const lists: ListedToolNames[] = outcomes.flatMap((outcome, index) => ('tools' in outcome ? [{ upstream: config.upstreams[index]?.name ?? '', tools: outcome.tools }] : []));
  const matches = matchRules(config, lists);
  const upstreamChecks = [
    ...config.upstreams.map((spec, index): UpstreamCheck => {
      const outcome = outcomes[index];
      if (outcome === undefined || 'error' in outcome) return { name: spec.name, status: 'failed', error: outcome?.error ?? 'not checked', tools: [], outputSchema: NO_SCHEMAS };
      const tools = matches.upstreams.find((entry) => entry.upstream === spec.name)?.tools ?? [];
      const declaring = tools.filter((tool) => tool.allowed && outcome.withOutputSchema.has(tool.name));
      const leftOut = declaring.filter((tool) => listsWithoutOutputSchema(toolRulesFor(config, spec.name, tool.name)));
      return {
        name: spec.name,
        status: 'listed',
        error: null,
        tools,
        outputSchema: { leftOut: leftOut.map((tool) => tool.name), kept: declaring.filter((tool) => !leftOut.includes(tool)).map((tool) => tool.name) },
      };
    }),
    ...disabledChecks(config),
  ];
  return {
    ...rules,
    warnings: [...rules.warnings, ...matches.warnings],
    connected: true,
    upstreamChecks,
    ruleMatches: matches.rules,
    unmatchedRules: matches.warnings,
  };
}

const NO_SCHEMAS = { leftOut: [], kept: [] };

function disabledChecks(config: GatewayConfig): UpstreamCheck[] {
  return config.skipped.map((name) => ({ name, status: 'disabled', error: null, tools: [], outputSchema: NO_SCHEMAS }));
}

// The check is no client: it declares no capability, so a server asking it anything is told no.
const CHECK_EVENTS: UpstreamEvents = {
  onNotification: () => {},
  onServerRequest: () => Promise.reject(new JsonRpcError(-32601, 'Method not found: gateway check answers no requests')),
  onEnded: () => {},
};

/** One upstream's own tool names (and which declare an outputSchema), started and ended here; or why it could not list them. */
async function listToolNames(
  config: GatewayConfig,
  spec: UpstreamSpec,
  env: NodeJS.ProcessEnv,
  budgetMs: number,
): Promise<{ tools: string[]; withOutputSchema: ReadonlySet<string> } | { error: string }> {
  let upstream: Upstream | undefined;
  let close = async (): Promise<void> => {};
  try {
    const prepared = await prepareUpstreams({ ...config, upstreams: [spec] }, env, { start: true });
    close = () => prepared.close();
    upstream = prepared.take(spec.name, CHECK_EVENTS);
    if (upstream === undefined) return { error: 'it was not started' };
    const deadline = new Deadline(budgetMs, `starting ${spec.name} and listing its tools`);
    await upstream.connect({ protocolVersion: DEFAULT_PROTOCOL_VERSION, capabilities: {}, clientInfo: MCPCTX_CLIENT_INFO }, deadline);
    await upstream.notify('notifications/initialized', undefined);
    const listed = await readToolList(upstream, deadline);
    // readToolList has checked that each tool is an object with a string name of its own.
    const tools = listed.items as ReadonlyArray<{ name: string; outputSchema?: unknown }>;
    return {
      tools: tools.map((tool) => String(tool.name)),
      withOutputSchema: new Set(tools.filter((tool) => Object.hasOwn(tool, 'outputSchema')).map((tool) => String(tool.name))),
    };
  } catch (error) {
    return { error: isMcpctxError(error) || error instanceof Error ? error.message : String(error) };
  } finally {
    await upstream?.close();
    await close();
  }
}
