import { redactArgs, redactUrl } from '../../mcp/index.js';
import { DEFAULT_HTTP_SESSIONS, type GatewayConfig, type NamePatterns, type PinSettings, type SearchSettings, type ToolRules } from './_config-types.js';
import { requiredNames } from './_env-templates.js';
import { configRules } from './_rule-set.js';
import { isNamespaced } from './_name-patterns.js';
import type { SelectorRank } from './_tool-selectors.js';

export interface EffectiveUpstream {
  readonly name: string;
  /** `sse`: an HTTP server on the older HTTP+SSE transport. */
  readonly kind: 'stdio' | 'http' | 'sse';
  /** stdio: the command and its arguments (credential-looking values `[redacted]`). */
  readonly command?: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** stdio: names of the variables set for the server, sorted (never values). */
  readonly envNames?: readonly string[];
  /** http: the URL (a password or credential-named query value `[redacted]`). */
  readonly url?: string;
  /** http: header names, sorted (never values). */
  readonly headerNames?: readonly string[];
  /** Variables of the gateway's environment the server needs at start (`${NAME}` references without a default), sorted. */
  readonly requiredEnv: readonly string[];
  /** Why the gateway cannot serve it as written (it is reported unavailable and the others serve). */
  readonly cannotServe?: string;
}

export interface EffectiveToolRules {
  /** The key as written. */
  readonly name: string;
  /** The upstream (a name or a glob) the key is limited to; null: every upstream. */
  readonly upstream: string | null;
  /** The tool (own name or glob) it names. */
  readonly tool: string;
  /** How specific the key is: where several keys match one tool, each setting comes from the most specific (SELECTOR_RANKS). */
  readonly rank: SelectorRank;
  readonly rules: ToolRules;
}

/** What `mcpctx gateway check` prints: every setting with its default applied, no secret. */
export interface EffectiveRules {
  readonly file: string | null;
  readonly upstreams: readonly EffectiveUpstream[];
  /** `disabled: true` servers, not started. */
  readonly skipped: readonly string[];
  /** Whether tool names are `SERVER<separator>tool` (more than one upstream). */
  readonly namespaced: boolean;
  readonly separator: string;
  /** null: every tool allowed. */
  readonly allow: NamePatterns | null;
  readonly deny: NamePatterns | null;
  readonly capTokens: number;
  /** The calibrated factor o200k counts are multiplied by before they meet the caps, when set. */
  readonly claudeSafetyFactor?: number;
  readonly offload: boolean;
  readonly search: SearchSettings;
  /** Tool pins: null when off (every tool trusted as listed). */
  readonly pin: PinSettings | null;
  readonly scan: GatewayConfig['scan'];
  readonly confirmDestructive: boolean;
  /** Sorted by name. */
  readonly tools: readonly EffectiveToolRules[];
  /**
   * Output schemas: the listing leaves every tool's outputSchema out (a result the gateway reshapes
   * has no structuredContent, which a validating client rejects), except for the tools named here,
   * configured with `dropOutputSchema: false`, whose reshaped results go out marked isError.
   */
  readonly outputSchema: { readonly listed: 'none' | 'kept-for-some'; readonly keptFor: readonly string[] };
  /** The HTTP front's session limits when the flags do not set them (`--max-sessions`, `--max-sessions-per-client`, `--session-idle`). */
  readonly httpSessions: { readonly maxSessions: number; readonly maxSessionsPerClient: number; readonly sessionIdleMs: number };
  /** Rules that are valid but cost something a user may not expect, one sentence each. */
  readonly warnings: readonly string[];
  /** What the config holds that the gateway does not apply (a client's own settings), one line each. */
  readonly notes: readonly string[];
}

export function describeEffectiveRules(config: GatewayConfig): EffectiveRules {
  const upstreams = config.upstreams.map((spec): EffectiveUpstream => {
    const unavailable = spec.cannotServe === undefined ? {} : { cannotServe: spec.cannotServe };
    if (spec.kind === 'stdio') {
      const env = spec.launch.env ?? {};
      const args = spec.launch.args ?? [];
      return {
        name: spec.name,
        kind: 'stdio',
        command: spec.launch.command,
        args: redactArgs(args).args,
        ...(spec.launch.cwd === undefined ? {} : { cwd: spec.launch.cwd }),
        envNames: Object.keys(env).sort(),
        requiredEnv: sortedNames([spec.launch.command, ...args, ...Object.values(env)]),
        ...unavailable,
      };
    }
    return {
      name: spec.name,
      kind: spec.transport === 'sse' ? 'sse' : 'http',
      url: redactUrl(spec.url).url,
      headerNames: Object.keys(spec.headers).sort(),
      requiredEnv: sortedNames([spec.url, ...Object.values(spec.headers)]),
      ...unavailable,
    };
  });
  const tools = [...configRules(config).tools]
    .sort((a, b) => (a.selector.written < b.selector.written ? -1 : a.selector.written > b.selector.written ? 1 : 0))
    .map(({ selector, rules }) => ({ name: selector.written, upstream: selector.upstream, tool: selector.tool, rank: selector.rank, rules: { ...rules } }));
  const keptFor = tools.filter((tool) => tool.rules.dropOutputSchema === false).map((tool) => tool.name);
  return {
    file: config.file ?? null,
    upstreams,
    skipped: [...config.skipped],
    namespaced: isNamespaced(config),
    separator: config.separator,
    allow: config.allow ?? null,
    deny: config.deny ?? null,
    capTokens: config.capTokens,
    ...(config.claudeSafetyFactor === undefined ? {} : { claudeSafetyFactor: config.claudeSafetyFactor }),
    offload: config.offload,
    search: { enabled: config.search.enabled, topK: config.search.topK, pinned: [...config.search.pinned] },
    pin: config.pin === undefined ? null : { file: config.pin.file, mode: config.pin.mode },
    scan: config.scan,
    confirmDestructive: config.confirmDestructive,
    tools,
    outputSchema: { listed: keptFor.length === 0 ? 'none' : 'kept-for-some', keptFor },
    httpSessions: { ...DEFAULT_HTTP_SESSIONS },
    warnings: tools.flatMap((tool) => ruleWarnings(tool, config.confirmDestructive)),
    notes: [...config.notes],
  };
}

/**
 * Dropping annotations hides `destructiveHint` and `readOnlyHint` from the client, whose own
 * permission prompts read them; the gateway's confirmation reads the server's annotations, so it
 * still asks.
 */
function ruleWarnings(tool: EffectiveToolRules, confirmDestructive: boolean): string[] {
  if (tool.rules.drop?.includes('annotations') !== true) return [];
  const confirmation = confirmDestructive
    ? "the gateway's confirmDestructive still reads the server's own annotations and asks"
    : 'confirmDestructive is off, so nothing in the gateway asks before a destructive call either';
  return [`tools.${tool.name} drops annotations: the client no longer sees whether the server marks it destructive or read-only (its own permission prompts may rely on that); ${confirmation}.`];
}

function sortedNames(templates: readonly string[]): string[] {
  return [...new Set(templates.flatMap((template) => requiredNames(template)))].sort();
}
