import { foldName } from '../../text/index.js';
import type { GatewayConfig, NamePatterns, ToolRules } from './_config-types.js';
import { type CompiledGlob, compileGlob, runGlob } from './_glob.js';

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

// Patterns come from the config, so the cache is bounded by its size.
const compiled = new Map<string, CompiledGlob>();

function compiledGlob(pattern: string): CompiledGlob {
  let glob = compiled.get(pattern);
  if (glob === undefined) {
    glob = compileGlob(pattern);
    compiled.set(pattern, glob);
  }
  return glob;
}

/** Whether `name` matches a glob as written: `*` is any run of characters (none included), `?` exactly one. */
export function matchesGlob(pattern: string, name: string): boolean {
  return runGlob(compiledGlob(pattern).written, name);
}

/** A name as the rules read it: as written, and folded once however many patterns it meets. */
class RuleName {
  private foldedForm: string | undefined;
  constructor(readonly written: string) {}
  get folded(): string {
    this.foldedForm ??= foldName(this.written);
    return this.foldedForm;
  }
}

function matchesRule(pattern: string, name: RuleName): boolean {
  const glob = compiledGlob(pattern);
  return runGlob(glob.written, name.written) || runGlob(glob.folded, name.folded);
}

/**
 * Whether an `allow` / `deny` pattern covers a name: the glob as written, or after folding both
 * the way the shadowing check does (`foldName`: compatibility forms, look-alike letters, case,
 * and separators `_ - .` and spaces removed), so `DELETE_REPO`, ` delete-repo ` and a Cyrillic
 * `dеlete_repo` are all `delete_repo`. A folded `?` may also stand for nothing: the character it
 * stood for may have been a separator (`delete?repo` still covers `DELETE_REPO`).
 */
export function matchesNameRule(pattern: string, name: string): boolean {
  return matchesRule(pattern, new RuleName(name));
}

function matchesPatterns(patterns: NamePatterns, upstream: string, ownName: string, visibleName: string): boolean {
  if (patterns.kind === 'visible') {
    const name = new RuleName(visibleName);
    return patterns.patterns.some((pattern) => matchesRule(pattern, name));
  }
  const forServer = Object.hasOwn(patterns.byServer, upstream) ? patterns.byServer[upstream] : undefined;
  if (forServer === undefined) return false;
  const name = new RuleName(ownName);
  return forServer.some((pattern) => matchesRule(pattern, name));
}

/**
 * Whether a tool is offered and callable. With `allow` set a tool must match it (a per-server
 * map that does not name the tool's server allows none of its tools); `deny` always wins, and a
 * name over MAX_TOOL_NAME_CHARS is never allowed. Patterns match as `matchesNameRule` says.
 */
export function isToolAllowed(config: GatewayConfig, upstream: string, ownName: string, visibleName: string): boolean {
  if (isToolNameTooLong(visibleName) || isToolNameTooLong(ownName)) return false;
  if (config.deny !== undefined && matchesPatterns(config.deny, upstream, ownName, visibleName)) return false;
  return config.allow === undefined || matchesPatterns(config.allow, upstream, ownName, visibleName);
}

/** The rules for a name the client sees (own keys only: a tool named "constructor" has none unless configured). */
export function toolRulesFor(config: Pick<GatewayConfig, 'tools'>, visibleName: string): ToolRules | undefined {
  return Object.hasOwn(config.tools, visibleName) ? config.tools[visibleName] : undefined;
}
