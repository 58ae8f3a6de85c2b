import { McpctxError } from '../../errors/index.js';
import { countTokens } from '../../tokens/index.js';
import { isPlainObject, type JsonObject } from '../../json/index.js';
import type { GatewayConfig, ToolRules } from '../config/index.js';
import { isToolAllowed, toolRulesFor, visibleToolName } from '../config/index.js';
import { type ToolChange, applyToolRules } from './_tool-rules.js';

/** One tool as the client sees it, and where calls to it go. */
export interface CatalogTool {
  readonly visibleName: string;
  readonly upstream: string;
  /** The name the upstream knows it by. */
  readonly ownName: string;
  /** The definition as delivered (rules applied). */
  readonly definition: JsonObject;
  /** The definition as the upstream sent it: what the trust checks read (a rule may drop its annotations). */
  readonly upstreamDefinition: JsonObject;
  /** Its `tools:` settings (matched by upstream and own name), what its calls are shaped by. */
  readonly rules: ToolRules | undefined;
  readonly changes: readonly ToolChange[];
}

export interface UpstreamTools {
  readonly upstream: string;
  readonly tools: readonly unknown[];
  /** The upstream's result when it came in one page: forwarded as is when no rule touches it. */
  readonly onlyPage: JsonObject | undefined;
}

export interface Catalog {
  readonly tools: readonly CatalogTool[];
  readonly byName: ReadonlyMap<string, CatalogTool>;
  /** Tools the config denies, by the name the client would use: calls to them are refused in the gateway. */
  readonly denied: ReadonlyMap<string, { upstream: string; ownName: string; tokens: number }>;
  /** o200k tokens of the upstreams' tool definitions as they sent them (compact JSON of the tools arrays). */
  readonly upstreamTokens: number;
  /** Set when one upstream's single page can go to the client unchanged. */
  readonly passThrough: JsonObject | undefined;
  /**
   * Names two tools would share (or a tool would share with a gateway meta-tool), and why: every
   * tool of such a name is left out, so a call to it can be refused rather than sent to either.
   */
  readonly clashes: ReadonlyMap<string, string>;
}

/**
 * The catalog the client sees: every upstream's tools, namespaced when there are several, the
 * denied ones left out, each tool's rules applied. A tool no rule touches keeps its object, so an
 * untouched catalog is forwarded byte for byte. Two tools of two upstreams with one visible name
 * (names that overlap the separator: `a_` + `__x`, `a` + `___x`), or a tool named like a meta-tool,
 * are left out and named in `clashes`: one odd name must not take the whole catalog down, and
 * keeping either tool would be a guess. Each list must hold objects with unique string names
 * (the session checks that per upstream before this).
 */
export function buildCatalog(
  config: GatewayConfig,
  lists: readonly UpstreamTools[],
  reservedNames: readonly string[],
  adjust: (tool: CatalogTool) => JsonObject,
): Catalog {
  const tools: CatalogTool[] = [];
  const byName = new Map<string, CatalogTool>();
  const denied = new Map<string, { upstream: string; ownName: string; tokens: number }>();
  const clashes = new Map<string, string>();
  let upstreamTokens = 0;
  let untouched = true;
  for (const list of lists) {
    upstreamTokens += countTokens(JSON.stringify(list.tools));
    for (const raw of list.tools) {
      if (!isPlainObject(raw) || typeof raw.name !== 'string') {
        throw new McpctxError('PROTOCOL', `${list.upstream} listed a tool without a string name`, { upstream: list.upstream });
      }
      const ownName = raw.name;
      const visibleName = visibleToolName(config, list.upstream, ownName);
      const clash = byName.get(visibleName) ?? denied.get(visibleName);
      if (clash || reservedNames.includes(visibleName) || clashes.has(visibleName)) {
        const other = clash ? `${clash.upstream}'s ${JSON.stringify(clash.ownName)}` : reservedNames.includes(visibleName) ? 'a gateway meta-tool' : 'another tool';
        clashes.set(
          visibleName,
          clashes.get(visibleName) ??
            `two tools would both be called ${JSON.stringify(visibleName)}: ${list.upstream}'s ${JSON.stringify(ownName)} and ${other}; the gateway lists neither (deny one of them, rename a server or change the separator)`,
        );
        byName.delete(visibleName);
        denied.delete(visibleName);
        untouched = false;
        continue;
      }
      if (!isToolAllowed(config, list.upstream, ownName, visibleName)) {
        denied.set(visibleName, { upstream: list.upstream, ownName, tokens: countTokens(JSON.stringify(raw)) });
        untouched = false;
        continue;
      }
      const rules = toolRulesFor(config, list.upstream, ownName);
      const applied = applyToolRules(raw, visibleName, rules);
      const entry: CatalogTool = {
        visibleName,
        upstream: list.upstream,
        ownName,
        definition: applied.tool,
        upstreamDefinition: raw,
        rules,
        changes: applied.changes,
      };
      const definition = adjust(entry);
      const final = definition === entry.definition ? entry : { ...entry, definition };
      if (final.definition !== raw) untouched = false;
      tools.push(final);
      byName.set(visibleName, final);
    }
  }
  const single = lists.length === 1 ? lists[0] : undefined;
  return {
    tools: clashes.size === 0 ? tools : tools.filter((tool) => !clashes.has(tool.visibleName)),
    byName,
    denied,
    upstreamTokens,
    passThrough: untouched && single ? single.onlyPage : undefined,
    clashes,
  };
}

/** The changes a catalog made, one per tool and field, for the receipt of `tools/list`. */
export function catalogChanges(catalog: Catalog): ToolChange[] {
  const changes: ToolChange[] = [];
  for (const tool of catalog.tools) {
    for (const change of tool.changes) changes.push({ ...change, field: `${tool.visibleName}.${change.field}` });
  }
  for (const [name, tool] of catalog.denied) changes.push({ field: `${name} (denied)`, tokensBefore: tool.tokens, tokensAfter: 0 });
  return changes;
}
