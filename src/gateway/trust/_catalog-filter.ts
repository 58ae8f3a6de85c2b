/**
 * What a trust gate (the pins, the poisoning scan) makes of the tools one upstream listed: the
 * ones the client may see and call, as the upstream gave them, and the ones held back with why.
 * The session chains them: the scan sees only what the pins trusted.
 */
export interface CatalogFilter {
  /** The tools the client may see and call, as the upstream gave them. */
  trusted: unknown[];
  /** Held tools by their upstream name: why, in words the client and the model can act on. */
  held: Map<string, string>;
  /** What the gate found worth saying in the list receipt (the scan's findings; the pins find none). */
  findings: Array<{ tool: string; ruleId: string; path: string }>;
}
