import type { GatewayConfig, NamePatterns, ToolRules } from './_config-types.js';

/** True when tool names are namespaced `SERVER<separator>tool`: more than one upstream. */
export function isNamespaced(config: Pick<GatewayConfig, 'upstreams'>): boolean {
  return config.upstreams.length > 1;
}

/** The name the client sees for an upstream's own tool (or prompt) name. */
export function visibleToolName(config: Pick<GatewayConfig, 'upstreams' | 'separator'>, upstream: string, ownName: string): string {
  return isNamespaced(config) ? `${upstream}${config.separator}${ownName}` : ownName;
}

/**
 * The upstream and own name behind a name the client sees, or undefined when a namespaced name
 * names no configured upstream. Server names never contain the separator, so the first one splits.
 */
export function splitVisibleName(config: Pick<GatewayConfig, 'upstreams' | 'separator'>, visibleName: string): { upstream: string; ownName: string } | undefined {
  if (!isNamespaced(config)) {
    const only = config.upstreams[0];
    return only === undefined ? undefined : { upstream: only.name, ownName: visibleName };
  }
  const at = visibleName.indexOf(config.separator);
  if (at <= 0) return undefined;
  const upstream = visibleName.slice(0, at);
  const ownName = visibleName.slice(at + config.separator.length);
  if (ownName === '' || !config.upstreams.some((spec) => spec.name === upstream)) return undefined;
  return { upstream, ownName };
}

// Patterns come from the config, so the cache is bounded by its size.
const compiled = new Map<string, RegExp>();

/** Whether `name` matches a glob: `*` is any run of characters (none included), `?` exactly one. */
export function matchesGlob(pattern: string, name: string): boolean {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    const body = [...pattern]
      .map((char) => (char === '*' ? '[\\s\\S]*' : char === '?' ? '[\\s\\S]' : char.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
      .join('');
    regex = new RegExp(`^${body}$`, 'u');
    compiled.set(pattern, regex);
  }
  return regex.test(name);
}

function matchesPatterns(patterns: NamePatterns, upstream: string, ownName: string, visibleName: string): boolean {
  if (patterns.kind === 'visible') return patterns.patterns.some((pattern) => matchesGlob(pattern, visibleName));
  const forServer = Object.hasOwn(patterns.byServer, upstream) ? patterns.byServer[upstream] : undefined;
  return forServer !== undefined && forServer.some((pattern) => matchesGlob(pattern, ownName));
}

/**
 * Whether a tool is offered and callable. With `allow` set a tool must match it (a per-server
 * map that does not name the tool's server allows none of its tools); `deny` always wins.
 */
export function isToolAllowed(config: GatewayConfig, upstream: string, ownName: string, visibleName: string): boolean {
  if (config.deny !== undefined && matchesPatterns(config.deny, upstream, ownName, visibleName)) return false;
  return config.allow === undefined || matchesPatterns(config.allow, upstream, ownName, visibleName);
}

/** The rules for a name the client sees (own keys only: a tool named "constructor" has none unless configured). */
export function toolRulesFor(config: Pick<GatewayConfig, 'tools'>, visibleName: string): ToolRules | undefined {
  return Object.hasOwn(config.tools, visibleName) ? config.tools[visibleName] : undefined;
}
