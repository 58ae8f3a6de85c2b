import type { IsolationKind, Measurement, RecordStatus } from '../measure/index.js';

// The shapes every published file of `results/` is made from. The files are derived from
// `ResultsState` by pure functions, so an unsharded sweep and merged shards write the same bytes.

/** Every status an entry of a sweep can end with: a record's, or `not-yet-run` (no record yet). */
export type PublishedStatus = RecordStatus | 'not-yet-run';

/** A date as published: `YYYY-MM-DD`, UTC. */
export type IsoDate = string;

/**
 * Which sweep of a results folder made something: its number counts the folder's sweeps (1, 2, ...),
 * so two sweeps of one day still order. Shards of one sweep start from the same folder and share it.
 */
export type SweepNumber = number;

/** One line of `history.csv`: what a server measured in one sweep. */
export interface HistoryRow {
  date: IsoDate;
  /** The sweep that wrote the row; absent on rows written before history kept every sweep (unknown). */
  sweep?: SweepNumber;
  server: string;
  status: RecordStatus;
  /** null unless the status is measured or dynamic. */
  tools: number | null;
  tokens: number | null;
  canonicalSha256: string | null;
  /** null: the row was recorded before isolation was (`not-recorded` in the file). */
  isolation: IsolationKind | null;
}

/** One tool of a captured catalog, as its tokens split. */
export interface ToolTokens {
  name: string;
  tokens: number;
  descriptionTokens: number;
  inputSchemaTokens: number;
  /** 0 for a tool with no output schema; absent in vectors written before it was kept (unknown, never guessed). */
  outputSchemaTokens?: number;
}

/** What a capture's number depends on besides the server's bytes: how it was launched and what version it said it was. */
export interface MeasuredWith {
  /** `[command, ...args]` of a stdio launch as recorded (credentials withheld), or `[url]` of a remote one. */
  launch: string[];
  /** The launch's working folder when the record names one; null otherwise. */
  cwd: string | null;
  /** `serverInfo.version` as the server sent it; null when it sent none. */
  serverVersion: string | null;
}

/** The per-tool tokens of one distinct capture (by canonical hash) of a server's catalog. */
export interface ToolVector {
  canonicalSha256: string;
  /** First and last sweep dates this capture was measured on. */
  firstSeen: IsoDate;
  lastSeen: IsoDate;
  /** First and last sweeps that measured it; absent in vectors written before sweeps were numbered. */
  firstSweep?: SweepNumber;
  lastSweep?: SweepNumber;
  /** The launch and server version of the last sweep that measured it; absent in vectors written before. */
  measuredWith?: MeasuredWith;
  isolation: IsolationKind | null;
  toolCount: number;
  totalTokens: number;
  tools: ToolTokens[];
}

/** `results/<server>/tool-vectors.json`: a short, hash-deduped history, oldest first. */
export interface ToolVectorsFile {
  method: 'tool-vectors/v1';
  server: string;
  vectors: ToolVector[];
}

/** One entry of the servers list as published after a sweep. */
export interface PublishedServer {
  name: string;
  status: PublishedStatus;
  /** Its current record; null when it has never been swept (`not-yet-run`). */
  measurement: Measurement | null;
  /** Date of the sweep that made `measurement`; null with it. */
  lastMeasured: IsoDate | null;
  /** Never null: an empty `vectors` list when nothing was captured yet. */
  vectors: ToolVectorsFile;
}

/** The state of `results/` that every derived file is computed from. */
export interface ResultsState {
  /** In the servers file's order. */
  servers: PublishedServer[];
  /** Sorted by date, then sweep (unknown first), then server name. */
  history: HistoryRow[];
}

/** What each published status means, in the words every page and file uses. */
export const STATUS_MEANINGS: Readonly<Record<PublishedStatus, string>> = Object.freeze({
  measured: 'a clean measurement at the default configuration; every capture agreed',
  dynamic: 'the tool set varied between captures; the figures are from the first',
  'auth-required': 'would not start or list its tools without real credentials',
  'startup-failure': 'crashed, exited or lacked a dependency before listing its tools (stderr tail recorded)',
  timeout: 'no complete answer within the budget (the note names the widest budget tried)',
  'protocol-mismatch': 'refused a request by naming the protocol version; never retried',
  'remote-auth-wall': 'a remote server that answered 401 or 403; listed, not measured (WWW-Authenticate quoted)',
  'protocol-limit':
    'answered, but broke a bound of the harness (the bytes of a frame or event, the page count, the tool count, the catalog bytes, nesting); the note names the bound and the value; never retried',
  'redirect-refused':
    'a remote server that sent the harness to another origin (a redirect, or an SSE endpoint event), or redirected more than 5 times; its headers are never sent there; never retried',
  'not-applicable': 'declared as something this harness cannot run, and the failure said so in the declared words',
  'not-yet-run': 'on the list, but not swept yet (shard, rotation or --only)',
});
