/**
 * The poisoning scan in the relay: every definition an upstream lists is scanned when a session
 * builds its catalog, and so are its instructions, prompts, resources and templates when they are
 * relayed, and each `prompts/get` result. `warn` logs each finding once per definition (and the
 * list receipt carries the tools'); `hold` holds the item back like a changed pin, with the
 * findings as the reason.
 */
import type { CatalogFilter } from './_catalog-filter.js';
import type { ItemFilter } from './_pin-store.js';
import { displayKey, toolFingerprint, toolName, type PinItem, type PinKind } from './_pins.js';
import { scanText, scanTool, shadowedNames, type Finding, type NamedTool, type Shadowing } from './scan/index.js';

export type ScanMode = 'off' | 'warn' | 'hold';

export class ScanGate {
  readonly mode: ScanMode;
  private readonly log: (line: string) => void;
  /** Definitions already reported (upstream, name, sha256): a finding is logged once, not per session. */
  private readonly reported = new Set<string>();

  constructor(mode: ScanMode, log: (line: string) => void) {
    this.mode = mode;
    this.log = log;
  }

  /**
   * Tool names that collide across the upstreams (the same name, or differing only by case,
   * separators or look-alike characters), each group logged once per gateway.
   */
  reportShadowing(tools: readonly NamedTool[]): Shadowing[] {
    const found = shadowedNames(tools);
    for (const group of found) {
      const key = `shadow\u0000${group.tools.map((tool) => `${tool.upstream}/${tool.name}`).join('\u0000')}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.log(`shadowing (${group.kind}): ${group.tools.map((tool) => `${tool.upstream}/${tool.name}`).join(', ')}: a model may call one for the other`);
    }
    return found;
  }

  /** Held tools only with `hold`; findings with `warn` and `hold`. */
  filter(upstream: string, tools: readonly unknown[]): CatalogFilter {
    const result: CatalogFilter = { trusted: [], held: new Map(), findings: [] };
    if (this.mode === 'off') return { ...result, trusted: [...tools] };
    for (const tool of tools) {
      const found = scanTool(tool);
      const name = toolName(tool);
      if (found.length === 0 || name === undefined) {
        result.trusted.push(tool);
        continue;
      }
      result.findings.push(...found.map((finding) => ({ tool: name, ruleId: finding.ruleId, path: finding.path })));
      const key = `${upstream}\u0000${name}\u0000${toolFingerprint(tool).sha256}`;
      if (!this.reported.has(key)) {
        this.reported.add(key);
        this.log(`scan: ${upstream}/${name}: ${found.map(describe).join('; ')}${this.mode === 'hold' ? ' (held back)' : ''}`);
      }
      if (this.mode === 'hold') result.held.set(name, heldText(found));
      else result.trusted.push(tool);
    }
    return result;
  }

  /**
   * Scans items of a kind other than tools (the instructions text, prompt, resource and template
   * definitions): held only with `hold`.
   */
  filterItems(upstream: string, pinKind: PinKind, items: readonly PinItem[]): ItemFilter {
    const result: ItemFilter = { trusted: [], held: new Map() };
    for (const item of items) {
      const found = this.mode === 'off' ? [] : scanDefinition(pinKind, item.definition);
      if (found.length > 0) this.report(`${upstream}/${displayKey(pinKind, item.key)}`, toolFingerprint(item.definition).sha256, found);
      if (found.length > 0 && this.mode === 'hold') result.held.set(item.key, heldText(found));
      else result.trusted.push(item);
    }
    return result;
  }

  /**
   * Scans what an upstream answered (a `prompts/get` result: its messages depend on the
   * arguments, so they are scanned each time, never pinned). Returns the reason to withhold it
   * with `hold`, or undefined to pass it on.
   */
  checkAnswer(upstream: string, what: string, answer: unknown): string | undefined {
    if (this.mode === 'off') return undefined;
    const found = scanTool(answer);
    if (found.length === 0) return undefined;
    this.report(`${upstream}/${what}`, toolFingerprint(answer).sha256, found);
    return this.mode === 'hold' ? heldText(found) : undefined;
  }

  private report(where: string, sha256: string, found: readonly Finding[]): void {
    const key = `${where}\u0000${sha256}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log(`scan: ${where}: ${found.map(describe).join('; ')}${this.mode === 'hold' ? ' (held back)' : ''}`);
  }
}

/** Instructions are one text; every other kind is an object whose strings are all read, like a tool's. */
function scanDefinition(pinKind: PinKind, definition: unknown): Finding[] {
  return pinKind === 'instructions' && typeof definition === 'string' ? scanText(definition, 'instructions') : scanTool(definition);
}

function describe(finding: Finding): string {
  return `${finding.ruleId} at ${finding.path} (${finding.reason})`;
}

function heldText(found: readonly Finding[]): string {
  return `it is held back by the gateway: the poisoning scan found ${found.map(describe).join('; ')}. The call was not sent. If the definition is benign, the user can set scan: warn in the gateway config.`;
}
