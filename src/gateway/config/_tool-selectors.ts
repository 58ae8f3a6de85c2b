import { foldName } from '../../text/index.js';
import { type CompiledGlob, compileGlob, runGlob } from './_glob.js';

/**
 * Which tools a rule names, whatever the client is shown: an upstream (a configured server's name,
 * a glob over those names, or every upstream) and a tool by the name its upstream gives it (a name
 * or a glob). Names the client sees change with the number of running upstreams (`fs__write_file`
 * with two, `write_file` with one), so no rule is matched against them.
 */
export interface ToolSelector {
  /** As written in the config. */
  readonly written: string;
  /** A glob over configured server names; null: every upstream. */
  readonly upstream: string | null;
  /** A glob over the upstream's own tool names. */
  readonly tool: string;
  /** How specific it is, most specific first: see SELECTOR_RANKS. */
  readonly rank: SelectorRank;
}

/**
 * When several `tools:` keys match one tool, each setting comes from the most specific key that
 * sets it; keys of one rank are taken in file order (the first wins).
 */
export const SELECTOR_RANKS = ['upstream-exact', 'upstream-glob', 'bare-exact', 'bare-glob'] as const;
export type SelectorRank = (typeof SELECTOR_RANKS)[number];

/** What rule keys are read against: the separator and every configured server, disabled ones included. */
export interface SelectorNaming {
  readonly separator: string;
  readonly servers: readonly string[];
  /**
   * The servers are not known where the rules are read (a host's rules file: the host has the
   * servers): `SERVER/tool` then names a server by whatever name comes, unchecked.
   */
  readonly anyServer?: boolean;
}

export const EXPLICIT_SEPARATOR = '/';

const hasWildcard = (pattern: string): boolean => pattern.includes('*') || pattern.includes('?');

// Patterns come from the config, so the cache is bounded by its size.
const compiled = new Map<string, CompiledGlob>();

export function compiledGlob(pattern: string): CompiledGlob {
  let glob = compiled.get(pattern);
  if (glob === undefined) {
    glob = compileGlob(pattern);
    compiled.set(pattern, glob);
  }
  return glob;
}

function serversMatching(pattern: string, naming: SelectorNaming): string[] {
  const glob = compiledGlob(pattern).written;
  return naming.servers.filter((server) => runGlob(glob, server));
}

/** The selector of a tool (a name or glob) on an upstream (a name or glob; null: every upstream), ranked. */
export function toolSelector(written: string, upstream: string | null, tool: string): ToolSelector {
  const glob = hasWildcard(tool) || (upstream !== null && hasWildcard(upstream));
  const rank: SelectorRank = upstream === null ? (glob ? 'bare-glob' : 'bare-exact') : glob ? 'upstream-glob' : 'upstream-exact';
  return { written, upstream, tool, rank };
}

/**
 * A rule key read as a selector, or why it cannot be one:
 * - `SERVER/tool`: that upstream's tool (SERVER a configured server or a glob matching one);
 * - `SERVER<separator>tool` with SERVER a configured server (or a glob matching one): the same, so
 *   the names a client saw with several servers keep naming their tools with one;
 * - anything else: that tool on every upstream (`*` / `?` globs anywhere).
 * Server names hold no `/`, `*` or `?`, so the split is unambiguous; a bare name that holds `/`
 * or starts with a server and the separator is written with `*` as its server.
 */
export function parseToolSelector(written: string, naming: SelectorNaming): ToolSelector | { problem: string } {
  if (written === '') return { problem: 'a tool name cannot be empty' };
  const servers = naming.servers.join(', ');
  const slash = written.indexOf(EXPLICIT_SEPARATOR);
  if (slash !== -1) {
    const upstream = written.slice(0, slash);
    const tool = written.slice(slash + 1);
    if (upstream === '' || tool === '') return { problem: `SERVER${EXPLICIT_SEPARATOR}TOOL needs both a server and a tool` };
    if (naming.anyServer !== true && serversMatching(upstream, naming).length === 0) {
      return { problem: `${JSON.stringify(upstream)} ${hasWildcard(upstream) ? 'matches' : 'names'} no configured server; servers: ${servers}` };
    }
    return toolSelector(written, upstream, tool);
  }
  // The longest server prefix: with one server its name may itself hold the separator.
  const prefixed = naming.servers.filter((server) => written.startsWith(server + naming.separator)).sort((a, b) => b.length - a.length)[0];
  if (prefixed !== undefined) {
    const tool = written.slice(prefixed.length + naming.separator.length);
    if (tool === '') return { problem: `needs a tool name after ${prefixed}${naming.separator}` };
    return toolSelector(written, prefixed, tool);
  }
  const at = written.indexOf(naming.separator);
  if (at > 0) {
    const head = written.slice(0, at);
    const tool = written.slice(at + naming.separator.length);
    if (hasWildcard(head) && tool !== '' && serversMatching(head, naming).length > 0) return toolSelector(written, head, tool);
  }
  return toolSelector(written, null, written);
}

/** A tool's own name as rules read it: as written, and folded once however many patterns it meets. */
export class RuleName {
  private foldedForm: string | undefined;
  constructor(readonly written: string) {}
  get folded(): string {
    this.foldedForm ??= foldName(this.written);
    return this.foldedForm;
  }
}

/**
 * Whether a selector covers an upstream's tool. The upstream is matched as written (server names
 * are the config's own); the tool as written or, with `fold` (allow and deny), also after folding
 * both as `matchesNameRule` says.
 */
export function selectorMatches(selector: ToolSelector, upstream: string, tool: RuleName, fold: boolean): boolean {
  if (selector.upstream !== null && !runGlob(compiledGlob(selector.upstream).written, upstream)) return false;
  const glob = compiledGlob(selector.tool);
  return runGlob(glob.written, tool.written) || (fold && runGlob(glob.folded, tool.folded));
}
