/**
 * The poisoning scan in the relay: every definition an upstream lists is scanned when a session
 * builds its catalog. `warn` logs each finding once per definition (and the list receipt carries
 * them); `hold` holds the tool back like a changed pin, with the findings as the reason.
 */
import type { CatalogFilter } from './_catalog-filter.js';
import { toolFingerprint, toolName } from './_pins.js';
import { scanTool, shadowedNames, type Finding, type NamedTool, type Shadowing } from './scan/index.js';

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
}

function describe(finding: Finding): string {
  return `${finding.ruleId} at ${finding.path} (${finding.reason})`;
}

function heldText(found: readonly Finding[]): string {
  return `it is held back by the gateway: the poisoning scan found ${found.map(describe).join('; ')}. The call was not sent. If the definition is benign, the user can set scan: warn in the gateway config.`;
}
