/**
 * The gateway rules `audit` suggests for a set of servers, and `gateway wrap` writes: tool search on
 * when the fronted catalog is large, a result cap, and the denies the user lists plus the client's
 * own tool filters (Gemini CLI includeTools/excludeTools, Codex CLI enabled_tools/disabled_tools, Kiro and Windsurf disabledTools) restated as gateway rules.
 */

/** Default total above which search is proposed: o200k tokens of the fronted catalog. */
export const DEFAULT_SEARCH_ABOVE = 10_000;
/** The gateway's own default result cap (gateway/config DEFAULT_CAP_TOKENS); restated, not imported, so audit stays light. */
export const DEFAULT_PROPOSED_CAP = 25_000;

/** One fronted server with its measured catalog tokens (absent: not measured or no number). */
export interface RuleInput {
  name: string;
  tokens?: number;
  /** Tools the client's config lets through (Gemini `includeTools`, Codex `enabled_tools`): only these are allowed. */
  includeTools?: readonly string[];
  /** Tools the client's config hides (Gemini `excludeTools`, Codex `disabled_tools`, Kiro and Windsurf `disabledTools`). */
  excludeTools?: readonly string[];
}

export interface GatewayRuleOptions {
  /** False when nothing was measured: search is left off and the proposal says so. */
  measured: boolean;
  searchAbove?: number;
  capTokens?: number;
  /** Patterns the user denies (`SERVER/tool`, globs), kept as given. */
  deny?: readonly string[];
}

export interface ProposedGateway {
  search: { enabled: boolean; why: string };
  capTokens: number;
  deny: string[];
  /** Present only when a client filter allows a subset: every other server keeps all its tools (`SERVER/*`). */
  allow?: string[];
  /** The fronted total the search decision used; a floor when `complete` is false. */
  frontedTokens: { tokens: number; complete: boolean } | null;
  searchAbove: number;
}

function searchDecision(total: { tokens: number; complete: boolean } | null, above: number): ProposedGateway['search'] {
  const limit = above.toLocaleString('en-US');
  if (total === null) return { enabled: false, why: `not measured (--no-measure): search left off; measure to decide against ${limit} tokens` };
  const tokens = total.tokens.toLocaleString('en-US');
  if (total.tokens > above) return { enabled: true, why: `${total.complete ? '' : 'at least '}${tokens} tokens, above ${limit}` };
  if (!total.complete) return { enabled: false, why: `at least ${tokens} tokens (some servers not counted), not shown to be above ${limit}` };
  return { enabled: false, why: `${tokens} tokens, not above ${limit}` };
}

export function proposeGatewayRules(servers: readonly RuleInput[], options: GatewayRuleOptions): ProposedGateway {
  const searchAbove = options.searchAbove ?? DEFAULT_SEARCH_ABOVE;
  let total: ProposedGateway['frontedTokens'] = null;
  if (options.measured) {
    total = { tokens: 0, complete: true };
    for (const server of servers) {
      if (server.tokens === undefined) total.complete = false;
      else total.tokens += server.tokens;
    }
  }
  const deny = [...(options.deny ?? [])];
  for (const server of servers) for (const tool of server.excludeTools ?? []) deny.push(`${server.name}/${tool}`);
  const proposal: ProposedGateway = {
    search: searchDecision(total, searchAbove),
    capTokens: options.capTokens ?? DEFAULT_PROPOSED_CAP,
    deny: [...new Set(deny)],
    frontedTokens: total,
    searchAbove,
  };
  if (servers.some((server) => server.includeTools !== undefined)) {
    // Gemini's `run_shell_command(git)` keeps the tool `run_shell_command`: the gateway allows by tool name.
    const toolName = (item: string): string => item.replace(/\(.*$/s, '');
    proposal.allow = servers.flatMap((server) => (server.includeTools === undefined ? [`${server.name}/*`] : [...new Set(server.includeTools.map((tool) => `${server.name}/${toolName(tool)}`))]));
  }
  return proposal;
}
