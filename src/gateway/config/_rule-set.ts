import { childPath } from '../../config/index.js';
import type { GatewayConfig, NamePatterns, ToolRules } from './_config-types.js';
import { RuleName, SELECTOR_RANKS, type SelectorNaming, type ToolSelector, parseToolSelector, selectorMatches, toolSelector } from './_tool-selectors.js';

/** Where a rule sits in the config. */
export type RuleKind = 'allow' | 'deny' | 'tools' | 'search.pinned';

/** One rule of the config with the tools it names: its kind, its path (`deny[1]`, `allow.gh[0]`, `tools.fs__read_file`) and its selector. */
export interface NamedRule {
  readonly kind: RuleKind;
  readonly path: string;
  readonly selector: ToolSelector;
}

/** A `tools:` entry: its selector and the settings it gives. */
export interface ToolRuleEntry extends NamedRule {
  readonly rules: ToolRules;
}

/**
 * Every rule of one config read once into selectors: the one matcher that allow, deny, `tools:`
 * and `search.pinned` share. A rule names an upstream and a tool by its own name, so what it
 * matches does not change with how names are shown to the client.
 */
export class ConfigRules {
  readonly allow: readonly NamedRule[] | undefined;
  readonly deny: readonly NamedRule[] | undefined;
  /** By rank (SELECTOR_RANKS), then file order: the order settings are taken in. */
  readonly tools: readonly ToolRuleEntry[];
  readonly pinned: readonly NamedRule[];
  private readonly toolsInFileOrder: readonly ToolRuleEntry[];

  /** `anyServer`: the servers are not known here (a host's rules), so `SERVER/tool` names any server. */
  constructor(config: Pick<GatewayConfig, 'upstreams' | 'skipped' | 'separator' | 'allow' | 'deny' | 'tools' | 'search'>, options: { anyServer?: boolean } = {}) {
    const naming: SelectorNaming = {
      separator: config.separator,
      servers: [...config.upstreams.map((spec) => spec.name), ...config.skipped],
      ...(options.anyServer === true ? { anyServer: true } : {}),
    };
    this.allow = config.allow === undefined ? undefined : patternRules('allow', config.allow, naming);
    this.deny = config.deny === undefined ? undefined : patternRules('deny', config.deny, naming);
    const tools: ToolRuleEntry[] = [];
    for (const [key, rules] of Object.entries(config.tools)) {
      const selector = parseToolSelector(key, naming);
      if ('rank' in selector) tools.push({ kind: 'tools', path: childPath('tools', key), selector, rules });
    }
    this.toolsInFileOrder = tools;
    // Array sort is stable: keys of one rank stay in file order.
    this.tools = [...tools].sort((a, b) => SELECTOR_RANKS.indexOf(a.selector.rank) - SELECTOR_RANKS.indexOf(b.selector.rank));
    this.pinned = listRules('search.pinned', config.search.pinned, naming);
  }

  /** Every rule, in config order: allow, deny, tools, search.pinned. */
  all(): NamedRule[] {
    return [...(this.allow ?? []), ...(this.deny ?? []), ...this.toolsInFileOrder, ...this.pinned];
  }

  /** Whether allow and deny let a tool through (deny wins); allow and deny fold names. Name length is the caller's check. */
  isAllowed(upstream: string, ownName: string): boolean {
    const name = new RuleName(ownName);
    if (this.deny?.some((rule) => selectorMatches(rule.selector, upstream, name, true))) return false;
    return this.allow === undefined || this.allow.some((rule) => selectorMatches(rule.selector, upstream, name, true));
  }

  /** The rules rule `rule` would apply to a tool, under the same matching as the gateway's: folded for allow and deny, as written otherwise. */
  matches(rule: NamedRule, upstream: string, ownName: string): boolean {
    return selectorMatches(rule.selector, upstream, new RuleName(ownName), rule.kind === 'allow' || rule.kind === 'deny');
  }

  /** A tool's settings: each from the most specific matching `tools:` key that sets it (file order within a rank). */
  toolRules(upstream: string, ownName: string): ToolRules | undefined {
    const name = new RuleName(ownName);
    const matched = this.tools.filter((entry) => selectorMatches(entry.selector, upstream, name, false));
    if (matched.length <= 1) return matched[0]?.rules;
    const merged: Record<string, unknown> = {};
    for (const entry of matched) {
      for (const [setting, value] of Object.entries(entry.rules)) if (!Object.hasOwn(merged, setting)) merged[setting] = value;
    }
    return merged as ToolRules;
  }

  /** Whether `search.pinned` keeps a tool listed while search is on. */
  isPinned(upstream: string, ownName: string): boolean {
    const name = new RuleName(ownName);
    return this.pinned.some((rule) => selectorMatches(rule.selector, upstream, name, false));
  }

}

function listRules(kind: RuleKind, written: readonly string[], naming: SelectorNaming): NamedRule[] {
  return written.flatMap((pattern, index) => {
    const selector = parseToolSelector(pattern, naming);
    return 'rank' in selector ? [{ kind, path: `${kind}[${index}]`, selector }] : [];
  });
}

function patternRules(kind: 'allow' | 'deny', patterns: NamePatterns, naming: SelectorNaming): NamedRule[] {
  if (patterns.kind === 'names') return listRules(kind, patterns.patterns, naming);
  return Object.entries(patterns.byServer).flatMap(([server, list]) =>
    list.map((tool, index) => ({ kind, path: `${childPath(kind, server)}[${index}]`, selector: toolSelector(tool, server, tool) })),
  );
}

const cache = new WeakMap<object, ConfigRules>();

/** The rules of a config, read once per config object. */
export function configRules(config: Pick<GatewayConfig, 'upstreams' | 'skipped' | 'separator' | 'allow' | 'deny' | 'tools' | 'search'>): ConfigRules {
  let rules = cache.get(config);
  if (rules === undefined) {
    rules = new ConfigRules(config);
    cache.set(config, rules);
  }
  return rules;
}
