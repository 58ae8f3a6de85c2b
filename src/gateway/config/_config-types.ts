import type { LaunchSpec, RemoteAuthMode } from '../../mcp/index.js';
import type { FieldSpec, TextFormat } from '../../shape/index.js';

export interface StdioUpstream {
  readonly name: string;
  readonly kind: 'stdio';
  /** As configured: the command, args and env values may hold `${NAME}` references until `resolveUpstream`. */
  readonly launch: LaunchSpec;
  /** Why the gateway cannot serve this entry as written (a legacy SSE url, a VS Code `${input:...}`): reported unavailable, never started. */
  readonly cannotServe?: string;
}

export interface HttpUpstream {
  readonly name: string;
  readonly kind: 'http';
  readonly url: string;
  /**
   * `sse`: the older HTTP+SSE transport (protocol 2024-11-05: a GET stream that names where to
   * POST), as a client config's `type: sse` says; absent, streamable HTTP.
   */
  readonly transport?: 'sse';
  /** header name -> template with ${ENV} references (never a resolved value) */
  readonly headers: Readonly<Record<string, string>>;
  /** `oauth`: use the stored login of `mcpctx auth login` (also used, when there is one, if unset); `none`: never. */
  readonly auth?: RemoteAuthMode;
  /** As for a stdio upstream: why it cannot be served as written. */
  readonly cannotServe?: string;
}

export type UpstreamSpec = StdioUpstream | HttpUpstream;

export type ResolvedUpstream = StdioUpstream | (HttpUpstream & { readonly resolvedHeaders: Readonly<Record<string, string>> });

/** Keys of a tool definition the `drop` rule may remove. */
export const DROPPABLE_TOOL_KEYS = ['title', 'annotations', 'icons'] as const;
export type DroppableToolKey = (typeof DROPPABLE_TOOL_KEYS)[number];

export interface ToolRules {
  description?: string;
  maxDescriptionTokens?: number;
  dropOutputSchema?: boolean;
  drop?: readonly DroppableToolKey[];
  /** Path of the list project, format and pageTokens apply to (`entities`, `data.items`). */
  records?: string;
  project?: readonly FieldSpec[];
  format?: TextFormat;
  pageTokens?: number;
  maxTokens?: number;
}

export interface SearchSettings {
  readonly enabled: boolean;
  readonly topK: number;
  /** Rule keys, as allow and deny take them (matched as written, not folded). */
  readonly pinned: readonly string[];
}

/**
 * `allow` / `deny` as written: a list of rule keys (`SERVER/tool`, `SERVER<separator>tool` or a
 * bare `tool` for every upstream, globs in either part; see `parseToolSelector`), or a map from
 * server name to names or globs matched against that server's own tool names.
 */
export type NamePatterns =
  | { readonly kind: 'names'; readonly patterns: readonly string[] }
  | { readonly kind: 'per-server'; readonly byServer: Readonly<Record<string, readonly string[]>> };

export interface GatewayConfig {
  readonly upstreams: readonly UpstreamSpec[];
  /** Names of `disabled: true` entries, in file order. */
  readonly skipped: readonly string[];
  readonly separator: string;
  readonly allow: NamePatterns | undefined;
  readonly deny: NamePatterns | undefined;
  readonly capTokens: number;
  /**
   * For caps meant in Claude tokens: o200k counts are multiplied by this calibrated factor before
   * they meet `capTokens` and each tool's `maxTokens` and `pageTokens` (`mcpctx calibrate` measures
   * it per model). Absent: caps are in o200k tokens.
   */
  readonly claudeSafetyFactor?: number;
  readonly offload: boolean;
  readonly search: SearchSettings;
  /** By rule key as written (see NamePatterns); a null-prototype map, so "constructor" is never a rule. */
  readonly tools: Readonly<Record<string, ToolRules>>;
  /** Tool pins: absent, every tool is trusted as listed. */
  readonly pin?: PinSettings;
  /**
   * The poisoning scan of every listed definition: `warn` (default) logs a finding and writes it in
   * the list receipt, `hold` holds the tool back like a changed pin, `off` skips the scan.
   */
  readonly scan: 'off' | 'warn' | 'hold';
  /**
   * Hold each call to a tool annotated `destructiveHint: true` until the user confirms it, asked
   * through elicitation when the client declared that capability (clients that did not are not asked).
   */
  readonly confirmDestructive: boolean;
  /**
   * What the gateway read past, one line each, for `gateway check` and the log at start: the
   * settings of the client file it was given (Claude Desktop's `globalShortcut`, Cline's
   * `autoApprove`), which are not the gateway's and are not applied.
   */
  readonly notes: readonly string[];
  readonly file?: string;
}

/** `pin`: where the pins are kept, and whether a first contact is trusted (`tofu`) or held (`strict`). */
export interface PinSettings {
  readonly file: string;
  readonly mode: 'tofu' | 'strict';
}

export type { ConfigProblem } from '../../config/index.js';

export const DEFAULT_SEPARATOR = '__';
/** Budgets of the gateway's waits in ms: every upstream's start and initialize, one relayed request, one request relayed to the client. */
export const DEFAULT_TIMEOUTS = { startupMs: 30_000, requestMs: 300_000, clientRequestMs: 600_000 } as const;
export const DEFAULT_CAP_TOKENS = 25_000;
/**
 * The HTTP front's session limits unless flags set them: sessions open at once, per client (remote
 * address; on loopback every local process is one address, so there the total applies), and the
 * silence after which a session with no stream open and no request in flight ends with its servers.
 */
export const DEFAULT_HTTP_SESSIONS = { maxSessions: 64, maxSessionsPerClient: 16, sessionIdleMs: 5 * 60_000 } as const;
export const DEFAULT_SEARCH_TOP_K = 5;
