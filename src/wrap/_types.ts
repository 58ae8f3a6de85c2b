import type { AuditOptions, AuditRoots, ConfigFormat, ProposedGateway } from '../audit/index.js';
import type { measureServer } from '../measure/index.js';

/** Every client audit reads, and so every client wrap takes (a `--config` file has no client to wrap). */
export const WRAP_CLIENTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'windsurf', 'gemini-cli', 'zed', 'goose', 'codex-cli', 'kiro'] as const;
export type WrapClient = (typeof WRAP_CLIENTS)[number];

/** The name of the one entry wrap adds. */
export const GATEWAY_ENTRY = 'mcpctx-gateway';

export interface GatewayLaunch {
  command: string;
  args: string[];
}

export interface WrapOptions {
  client: string;
  scope?: string;
  roots?: Partial<AuditRoots>;
  /** Where XDG_CONFIG_HOME is read from; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** False: no server is started; search is left off and the plan says so. Default true. */
  measure?: boolean;
  searchAbove?: number;
  capTokens?: number;
  deny?: readonly string[];
  /** What starts the gateway; default this node and this mcpctx's dist/cli/main.js. */
  launch?: GatewayLaunch;
  timeoutMs?: number;
  runs?: number;
  concurrency?: number;
  measureWith?: typeof measureServer;
  /** Progress of measuring the fronted servers (as audit reports it). */
  progress?: Pick<AuditOptions, 'onPlan' | 'onStart' | 'onMeasured'>;
}

/** Why nothing was done: `usage` (the command can be fixed: exit 2), `state` (the files are not in a state to do it: exit 1), `io` (exit 3). */
export interface WrapRefusal {
  refused: string;
  kind: 'usage' | 'state' | 'io';
  /** A diff to show with the refusal (unwrap of a changed file), secrets redacted. */
  diff?: string;
}

export interface NotFronted {
  name: string;
  why: string;
}

export interface WrapPlan {
  client: WrapClient;
  scope: string;
  /** The client file as the client names it; `target` is where it resolves (a symlink followed). */
  path: string;
  target: string;
  format: ConfigFormat;
  serversAt: string[];
  backupPath: string;
  manifestPath: string;
  gatewayConfigPath: string;
  gatewayEntry: string;
  gatewayLaunch: GatewayLaunch;
  fronted: Array<{ name: string; tokens?: number }>;
  notFronted: NotFronted[];
  rules: ProposedGateway;
  measured: boolean;
  originalSha256: string;
  wrappedSha256: string;
  /** What would be printed: secrets redacted. */
  clientDiff: string;
  gatewayDiff: string;
  /** Never printed: they hold env values. */
  originalBytes: Buffer;
  wrappedText: string;
  gatewayText: string;
}
