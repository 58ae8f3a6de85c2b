import type { FieldSpec, TextFormat } from '../../shape/index.js';

/** The result rules of one tool (a subset of the config's ToolRules, which it merges with). */
export interface ResultRules {
  /** Path of the list the other rules apply to (`entities`), for results with several arrays or a nested one. */
  records?: string;
  project?: readonly FieldSpec[];
  format?: TextFormat;
  pageTokens?: number;
  maxTokens?: number;
}

export interface ResultContext {
  sessionId: string;
  /** The tool's name as the client sees it. */
  tool: string;
  rules: ResultRules | undefined;
  /** The global cap on a delivered result, in o200k tokens (default 25,000). */
  capTokens: number;
  /**
   * Caps in Claude tokens: o200k counts times this factor must stay within them, so every cap
   * (capTokens, maxTokens, pageTokens) is divided by it before o200k counts meet it. Absent: 1.
   */
  safetyFactor?: number;
  /** Offload a result over the cap (default true); false refuses it. */
  offload: boolean;
  /**
   * Where later pages of a `pageTokens` tool come from: `tool` (the gateway's default), the tool
   * called again with `cursor`, answered from the store before the upstream sees it; `read_result`
   * (a host, which cannot answer a call in the server's place), the result over `pageTokens` is
   * offloaded with a first page as its preview and read on through read_result.
   */
  pages?: 'tool' | 'read_result';
}

export type ResultAction = 'passed' | 'projected' | 'paged' | 'offloaded' | 'refused';

export interface ShapeOutcome {
  /** The CallToolResult to send. */
  result: Record<string, unknown>;
  action: ResultAction;
  /** Tokens of what the upstream sent (0 when the upstream was not called). */
  upstreamTokens: number;
  /** Tokens of `result`. */
  deliveredTokens: number;
  /** For the receipt: what was done and why (which list was paged, why a rule did not apply). */
  note?: string;
}

/** Shape of a stored entry (JSON text in the store). */
export interface StoredEntry {
  readonly v: 1;
  /** `list`: the shaped records a paged tool's continuations are served from; `offload`: a result too large to send. */
  readonly kind: 'list' | 'offload';
  readonly session: string;
  readonly tool: string;
  /** SHA-256 of the stored value's JSON: the revision the entry's cursors page. */
  readonly revision: string;
  /** The page budget the tool had when the entry was made. */
  readonly pageTokens: number | undefined;
  /** Tokens of the value as it would have been sent. */
  readonly tokens: number;
  readonly value: unknown;
}
