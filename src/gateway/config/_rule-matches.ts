import { configRules, type RuleKind } from './_rule-set.js';
import type { GatewayConfig } from './_config-types.js';
import { matchesGlob, visibleToolName } from './_name-patterns.js';

/** The own names of the tools one upstream listed. */
export interface ListedToolNames {
  readonly upstream: string;
  readonly tools: readonly string[];
}

/** What one rule of the config matched among the tools listed. */
export interface RuleMatch {
  /** Where it is in the config: `deny[1]`, `allow.gh[0]`, `tools.fs__read_file`, `search.pinned[0]`. */
  readonly rule: string;
  readonly kind: RuleKind;
  /** As written. */
  readonly written: string;
  /** The upstream (a name or a glob) it is limited to; null: every upstream. */
  readonly upstream: string | null;
  /** `upstream/tool` of each tool it matches, in listing order. */
  readonly matched: readonly string[];
  /**
   * `matched`; `unmatched`: every upstream it names listed its tools and none matched (a typo, or
   * a tool the server no longer has); `unchecked`: nothing matched, but an upstream it names did
   * not list its tools (disabled, or it could not start).
   */
  readonly status: 'matched' | 'unmatched' | 'unchecked';
  /** The upstreams it names whose tools are not known. */
  readonly unchecked: readonly string[];
}

/** One listed tool and the rules that apply to it (room for more per-tool facts). */
export interface ToolRuleMatch {
  /** The upstream's own name for it. */
  readonly name: string;
  /** The name the client sees under this config. */
  readonly visibleName: string;
  /** Whether allow and deny let it through. */
  readonly allowed: boolean;
  /** Paths of the rules that match it, in config order. */
  readonly rules: readonly string[];
}

export interface UpstreamRuleMatches {
  readonly upstream: string;
  readonly tools: readonly ToolRuleMatch[];
}

export interface RuleMatches {
  readonly rules: readonly RuleMatch[];
  readonly upstreams: readonly UpstreamRuleMatches[];
  /** One sentence per rule that matched no tool, for the log and `gateway check`. */
  readonly warnings: readonly string[];
}

/**
 * The config's rules against the tools its upstreams listed (pure): which tools each rule matches,
 * by the same matcher the gateway uses (allow and deny folded, `tools:` and `search.pinned` as
 * written), which rules apply to each tool, and a warning for each rule that matches nothing while
 * every upstream it names was listed. `lists` holds the upstreams whose tools are known.
 */
export function matchRules(config: GatewayConfig, lists: readonly ListedToolNames[]): RuleMatches {
  const rules = configRules(config);
  const known = new Set(lists.map((list) => list.upstream));
  const enabled = config.upstreams.map((spec) => spec.name);
  const perTool = new Map<string, string[]>();
  const toolKey = (upstream: string, tool: string): string => `${upstream}\u0000${tool}`;
  const matches = rules.all().map((rule): RuleMatch => {
    const matched: string[] = [];
    for (const list of lists) {
      for (const tool of list.tools) {
        if (!rules.matches(rule, list.upstream, tool)) continue;
        matched.push(`${list.upstream}/${tool}`);
        const key = toolKey(list.upstream, tool);
        perTool.set(key, [...(perTool.get(key) ?? []), rule.path]);
      }
    }
    const pattern = rule.selector.upstream;
    const inScope = (server: string): boolean => pattern === null || matchesGlob(pattern, server);
    const named = enabled.filter(inScope);
    // A rule only for disabled servers cannot be checked; a rule for every upstream ignores them.
    const unchecked = named.length === 0 ? config.skipped.filter(inScope) : named.filter((server) => !known.has(server));
    const status = matched.length > 0 ? 'matched' : unchecked.length > 0 ? 'unchecked' : 'unmatched';
    return { rule: rule.path, kind: rule.kind, written: rule.selector.written, upstream: pattern, matched, status, unchecked };
  });
  const upstreams = lists.map((list) => ({
    upstream: list.upstream,
    tools: list.tools.map((name) => ({
      name,
      visibleName: visibleToolName(config, list.upstream, name),
      allowed: rules.isAllowed(list.upstream, name),
      rules: perTool.get(toolKey(list.upstream, name)) ?? [],
    })),
  }));
  return { rules: matches, upstreams, warnings: matches.filter((match) => match.status === 'unmatched').map(unmatchedRuleWarning) };
}

/** `deny[1] "fs/write_flie" matches no tool of fs`: the rule, as written, and where it looked. */
function unmatchedRuleWarning(match: Pick<RuleMatch, 'rule' | 'written' | 'upstream'>): string {
  const where = match.upstream === null ? 'any upstream' : /[*?]/.test(match.upstream) ? `the upstreams matching ${JSON.stringify(match.upstream)}` : match.upstream;
  return `${match.rule} ${JSON.stringify(match.written)} matches no tool of ${where}`;
}
