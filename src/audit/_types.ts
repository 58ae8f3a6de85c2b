/**
 * The shapes `mcpctx audit` passes between its stages: where configs live (`_places.ts`), what an
 * entry in one says (`_read-config.ts`), what Claude Code's settings files set (`_claude-settings.ts`)
 * and the deferral posture read from them (`_deferral.ts`). Values of env variables and headers a
 * config holds never leave `ConfigEntry.launchEnv`: every other field here is safe to print.
 */

/** The platform whose paths are consulted; the host's by default, overridable for tests. */
export type AuditPlatform = 'linux' | 'darwin' | 'win32';

/** Where discovery looks. Every path is built from these, so a test can point all of them at a temp folder. */
export interface AuditRoots {
  home: string;
  cwd: string;
  platform: AuditPlatform;
  /**
   * Prefix of system-wide paths (Claude Code's managed settings and managed MCP file): `/` in real
   * use (on Windows the drive root), a temp folder in tests. `/etc/claude-code/...` is read as
   * `<systemRoot>/etc/claude-code/...`.
   */
  systemRoot: string;
  /** Windows `%APPDATA%`; default `<home>/AppData/Roaming`. Unused on other platforms. */
  appData?: string;
}

export const CLIENT_IDS = [
  'claude-code',
  'claude-desktop',
  'cursor',
  'vscode',
  'windsurf',
  'gemini-cli',
  'zed',
  'goose',
  'codex-cli',
  'kiro',
  /** A file given with `--config`: which client reads it is not knowable from the file. */
  'custom',
] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export type ConfigFormat = 'json' | 'jsonc' | 'yaml' | 'toml';

/** One place a client keeps MCP servers. */
export interface ConfigPlace {
  client: ClientId;
  /** `user`, `project`, `local` (Claude Code's per-project map in ~/.claude.json), `managed`, `workspace`, `given`. */
  scope: string;
  path: string;
  format: ConfigFormat;
  /** Where the servers sit inside the document, as a key path (`['mcpServers']`, `['mcp', 'servers']`, `['projects', <cwd>, 'mcpServers']`). */
  serversAt: readonly string[];
  /**
   * Variables the client itself substitutes in this file's entries, by name (VS Code's
   * `${workspaceFolder}` is the audited folder in a workspace file): replaced, never reported as
   * unevaluated. Values are paths, safe to print.
   */
  substitutes?: Readonly<Record<string, string>>;
  /** The client expands `$VAR` as well as `${VAR}` in this file (Gemini CLI's settings). */
  bareDollarVariables?: boolean;
  /**
   * The client's own switches beside the server map, as key paths from the object holding it
   * (`['disabledMcpServers']` in Claude Code's `projects[<cwd>]`, `['mcp', 'excluded']` in Gemini's
   * settings): read into `PlaceReport.switches`, lists of names and booleans only.
   */
  switchPaths?: ReadonlyArray<readonly string[]>;
}

/** What reading a place found: read, absent, or unreadable with why (and where, for a parse error: 1-based). */
export type PlaceState =
  | { state: 'read' }
  | { state: 'absent' }
  | { state: 'unreadable'; why: string; line?: number; column?: number };

/** A `${VAR}` or `${env:VAR}` in a value: reported as set, never evaluated. */
export interface Expansion {
  /** Where in the entry: `command`, `args[2]`, `env.GITHUB_TOKEN`, `url`, `headers.Authorization`. */
  where: string;
  /** The variable names it refers to, in order. */
  variables: string[];
}

/** How an entry is reached: a command over stdio, a URL over HTTP, or inside the client (Goose builtins). */
export type EntryTransport = 'stdio' | 'remote' | 'builtin';

/** One server entry of one config place. */
export interface ConfigEntry {
  /** The key the config gives it: a local label, not an identity. */
  name: string;
  client: ClientId;
  scope: string;
  /** The config file it was read from. */
  path: string;
  transport: EntryTransport;
  command?: string;
  args?: string[];
  /** Names of the variables the entry sets for the server (sorted); values stay in `launchEnv`. */
  envNames: string[];
  url?: string;
  /** `type`/`transport` of a remote entry when the config states it (`sse`, `http`, `streamable-http`). */
  remoteType?: string;
  /** Names of the headers the entry sends (sorted), never their values. */
  headerNames: string[];
  disabled: boolean;
  /**
   * Set when a switch outside the entry turned it off (Claude Code's `disabledMcpServers`, Gemini
   * CLI's `mcp.excluded`): which file and key. Absent when the entry's own field did, or nothing did.
   */
  disabledBy?: string;
  /**
   * Claude Code: a `.mcp.json` server neither approved nor rejected in any place read. Claude Code
   * asks at session start and does not load it until approved: it is measured, not counted.
   */
  pendingApproval?: string;
  /** Gemini CLI's `includeTools`/`excludeTools`: the session counts only the tools they keep. */
  toolFilter?: ToolFilter;
  /** Claude Code's `alwaysLoad: true`: loads at session start whatever deferral says. */
  alwaysLoad: boolean;
  expansions: Expansion[];
  /** Why the entry cannot be launched as written (no command or url, a field of the wrong type). Absent when it can. */
  problem?: string;
  /** What reading changed or left out that does not stop the launch (a url's user and password dropped, a variable substituted). */
  notes?: string[];
  /**
   * The variables to start the server with: the entry's literal values, without the ones holding an
   * expansion (they are not evaluated). Never printed, never written: only `envNames` is.
   */
  launchEnv: Record<string, string>;
}

/**
 * A client's per-server tool filter (Gemini CLI `includeTools`/`excludeTools`, Codex CLI
 * `enabled_tools`/`disabled_tools`, Kiro and Windsurf `disabledTools`): excluded names win.
 */
export interface ToolFilter {
  /** The allow list: a tool is kept when an item equals its name or starts with `<name>(` (Gemini's argument form). */
  include?: string[];
  /** Exact tool names removed. */
  exclude?: string[];
  /** The config keys the lists came from, as the client spells them (`includeTools/excludeTools`), for the report. */
  keys: string;
}

/** A place with what reading it found. */
export interface PlaceReport extends ConfigPlace {
  state: PlaceState;
  /** Entries in file order; empty unless `state` is read. */
  entries: ConfigEntry[];
  /**
   * What the place's `switchPaths` hold, by the path joined with dots: the strings of a list (server
   * names), or a boolean. A path that is absent or holds anything else is left out.
   */
  switches?: Record<string, string[] | boolean>;
}

// ---------------------------------------------------------------------------------------------
// Claude Code settings and deferral
// ---------------------------------------------------------------------------------------------

/** The settings files Claude Code reads, in precedence order (managed first, user last). */
export type SettingsTier = 'managed' | 'managed-drop-in' | 'local' | 'project' | 'user';

/** A variable an env block sets: a string, or something else (a JSON boolean, number, null, object), which is unreadable. */
export type EnvSetting = { kind: 'string'; value: string } | { kind: 'unreadable'; jsonType: string };

/** One entry of `allowedMcpServers` / `deniedMcpServers`. */
export type ServerRule =
  | { serverName: string }
  | { serverCommand: string[] }
  | { serverUrl: string }
  /** Anything else: reported, never applied. */
  | { unrecognized: string };

export interface SettingsSource {
  path: string;
  tier: SettingsTier;
  state: PlaceState;
  /** What its `env` block sets (only when read): variable name -> setting. */
  env: Record<string, EnvSetting>;
  allowedMcpServers?: ServerRule[];
  deniedMcpServers?: ServerRule[];
  /** `allowManagedMcpServersOnly` when the file sets it: true/false, or unreadable (not a boolean). */
  allowManagedMcpServersOnly?: boolean | 'unreadable';
  /** `.mcp.json` approvals: `enabledMcpjsonServers` / `disabledMcpjsonServers` (names), `enableAllProjectMcpServers`. */
  enabledMcpjsonServers?: string[];
  disabledMcpjsonServers?: string[];
  enableAllProjectMcpServers?: boolean;
}

/** Where a variable's value came from: the shell, or a settings file. */
export interface PostureEvidence {
  variable: 'CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS' | 'ENABLE_TOOL_SEARCH' | 'ANTHROPIC_BASE_URL';
  /** `shell`, or the settings file's path. */
  source: string;
  /** The value as read (ANTHROPIC_BASE_URL: its host only); absent when it is not a string. */
  value?: string;
}

/** Why no posture is claimed; each is a different thing for the reader to check. */
export type PostureRefusal =
  | 'conflict'
  | 'unreadable-settings'
  | 'unreadable-value'
  | 'unrecognized-value'
  | 'threshold-straddles'
  | 'total-unknown';

export type DeferralPosture =
  /** Every definition in context at session start. */
  | { posture: 'up-front'; evidence: PostureEvidence[]; reason: string }
  /** Deferred at any size (`threshold` absent), or once definitions reach `thresholdPercent` of the context window. */
  | { posture: 'deferred'; thresholdPercent?: number; evidence: PostureEvidence[]; reason: string }
  | { posture: 'refused'; refusal: PostureRefusal; evidence: PostureEvidence[]; reason: string };
