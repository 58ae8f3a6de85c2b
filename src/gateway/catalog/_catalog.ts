import { McpctxError } from '../../errors/index.js';
import { countTokens } from '../../tokens/index.js';
import { isPlainObject, type JsonObject } from '../../json/index.js';
import type { GatewayConfig } from '../config/index.js';
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
}

/**
 * The catalog the client sees: every upstream's tools, namespaced when there are several, the
 * denied ones left out, each tool's rules applied. A tool no rule touches keeps its object, so an
 * untouched catalog is forwarded byte for byte. Two tools with one visible name is an error.
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
      if (clash || reservedNames.includes(visibleName)) {
        const other = clash ? `${clash.upstream}'s ${JSON.stringify(clash.ownName)}` : 'a gateway meta-tool';
        throw new McpctxError(
          'INVALID_CONFIG',
          `two tools would both be called ${JSON.stringify(visibleName)}: ${list.upstream}'s ${JSON.stringify(ownName)} and ${other}; deny one of them or change the separator`,
          { name: visibleName },
        );
      }
      if (!isToolAllowed(config, list.upstream, ownName, visibleName)) {
        denied.set(visibleName, { upstream: list.upstream, ownName, tokens: countTokens(JSON.stringify(raw)) });
        untouched = false;
        continue;
      }
      const applied = applyToolRules(raw, visibleName, toolRulesFor(config, visibleName));
      const entry: CatalogTool = {
        visibleName,
        upstream: list.upstream,
        ownName,
        definition: applied.tool,
        upstreamDefinition: raw,
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
  return { tools, byName, denied, upstreamTokens, passThrough: untouched && single ? single.onlyPage : undefined };
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
