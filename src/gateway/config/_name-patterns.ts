import { configRules } from './_rule-set.js';
import type { GatewayConfig, ToolRules } from './_config-types.js';
import { runGlob } from './_glob.js';
import { RuleName, compiledGlob } from './_tool-selectors.js';

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

/**
 * The longest tool name any rule allows, in UTF-16 code units. MCP asks for 1 to 128 characters;
 * a longer name (namespaced names add the server's) is generous room, and anything past it is
 * denied before a pattern or a fold reads it, so a name's length never costs the gateway time.
 */
export const MAX_TOOL_NAME_CHARS = 1024;

/** Whether a name is past every rule: denied whatever the config says. */
export function isToolNameTooLong(name: string): boolean {
  return name.length > MAX_TOOL_NAME_CHARS;
}

/** Whether `name` matches a glob as written: `*` is any run of characters (none included), `?` exactly one. */
export function matchesGlob(pattern: string, name: string): boolean {
  return runGlob(compiledGlob(pattern).written, name);
}

/**
 * Whether an `allow` / `deny` pattern covers a name: the glob as written, or after folding both
 * the way the shadowing check does (`foldName`: compatibility forms, look-alike letters, case,
 * and separators `_ - .` and spaces removed), so `DELETE_REPO`, ` delete-repo ` and a Cyrillic
 * `dеlete_repo` are all `delete_repo`. A folded `?` may also stand for nothing: the character it
 * stood for may have been a separator (`delete?repo` still covers `DELETE_REPO`).
 */
export function matchesNameRule(pattern: string, name: string): boolean {
  const glob = compiledGlob(pattern);
  const ruleName = new RuleName(name);
  return runGlob(glob.written, ruleName.written) || runGlob(glob.folded, ruleName.folded);
}

/**
 * Whether an upstream's tool is offered and callable. With `allow` set a tool must match it (a
 * per-server map that does not name the tool's server allows none of its tools); `deny` always
 * wins, and a name (as shown or as the upstream has it) over MAX_TOOL_NAME_CHARS is never
 * allowed. Rules name an upstream and its own tool name (`ConfigRules`), folded as
 * `matchesNameRule` says; `visibleName` only counts for the length.
 */
export function isToolAllowed(config: GatewayConfig, upstream: string, ownName: string, visibleName: string): boolean {
  if (isToolNameTooLong(visibleName) || isToolNameTooLong(ownName)) return false;
  return configRules(config).isAllowed(upstream, ownName);
}

/** The `tools:` settings of an upstream's tool, each from the most specific key that sets it (see SELECTOR_RANKS). */
export function toolRulesFor(config: GatewayConfig, upstream: string, ownName: string): ToolRules | undefined {
  return configRules(config).toolRules(upstream, ownName);
}
