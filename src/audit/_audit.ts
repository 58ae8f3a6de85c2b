/**
 * `audit`: find every MCP config on the machine (or the files given), measure every server in them
 * once, total each file and each client session, read Claude Code's deferral posture and what the
 * other vendors have on record, and optionally join the servers to published results. Returns one
 * report object; nothing in it holds an env or header value.
 */
import { homedir } from 'node:os';
import { McpctxError } from '../errors/index.js';
import { recordedLaunch, type Measurement, type RecordedLaunch } from '../measure/index.js';
import { readCaptureIndex, readToolShape } from '../results/index.js';
import { judgeBudget, type AuditBudget } from './_budget.js';
import { changedAgainst, type ChangeRow } from './_changed.js';
import { applyClientSwitches } from './_client-switches.js';
import { readGeminiEnablement } from './_gemini-enablement.js';
import { claudeCounts, readPublished, type ClaudeCounts } from './_claude-counts.js';
import { readSettings, type ClaudeSettingsSource } from './_claude-settings.js';
import { CLAUDE_DIVERGENCE_BAND, DEFAULT_CONTEXT_WINDOW, deferralPosture, thresholdVerdict } from './_deferral.js';
import { launchKey, launchOf, measureEntries, whyNotLaunched, type MeasureEntriesOptions, type Unmeasured } from './_measure-entries.js';
import { clientPlaces, givenPlace } from './_places.js';
import { readPlaces } from './_read-config.js';
import { distinctServers, serverTotal, type AuditServer, type ServerTotal } from './_servers.js';
import { composeSessions, sessionTotals, tokensOf, totalsOf, type SessionComposition, type SessionTotals, type Totals } from './_sessions.js';
import { suggestDescriptions, type SuggestReport } from './_suggest.js';
import { proposeGatewayRules, type ProposedGateway } from './_gateway-rules.js';
import { readWrappedPlaces, sessionWrapped, type SessionWrapped } from './_wrapped.js';
import { filteredCatalog, type FilteredCatalog } from './_tool-filter.js';
import type { AuditPlatform, AuditRoots, ClientId, ConfigEntry, DeferralPosture, PlaceReport, PlaceState, SettingsTier } from './_types.js';
import { CLAUDE_CODE_POSTURE_SOURCES, deferralRecordOf, noRecordOf, type DeferralRecord, type NoRecord, type RecordSource } from './_vendor-records.js';

/** v2 (2026-12-05): `budget` judges every session (its v1 shape, the costliest session's total, is gone); servers, serverTotal, contextWindow, wrapped and proposedGateway added. */
export const AUDIT_METHOD = 'mcpctx-audit/v2';

export interface AuditOptions extends Pick<MeasureEntriesOptions, 'timeoutMs' | 'runs' | 'concurrency' | 'onPlan' | 'onStart' | 'onMeasured' | 'measureWith'> {
  /** Where to look; each defaults to this machine's. */
  roots?: Partial<AuditRoots>;
  /** Read only these files (each its own session, client unknown) instead of discovering. */
  configs?: readonly string[];
  /** The shell environment Claude Code would start in (deferral variables); default process.env. */
  shellEnv?: Readonly<Record<string, string | undefined>>;
  /** False: list what is configured without launching anything. Default true. */
  measure?: boolean;
  /** A results folder to join measured servers to (`capture-index.json`). */
  changed?: string;
  /**
   * A results folder of published records: a server whose capture matches a record's Claude count
   * (`claude` block) is converted with that exact count in the `auto` threshold, not the band.
   */
  published?: string;
  /** A results folder whose `tool-shape.json` is the baseline for description suggestions. */
  suggest?: string;
  /** Tokens every session may carry: each session is judged (`_budget.ts`), and `budget.verdict` is the worst. */
  budget?: number;
  /** Accept a session whose total is only a floor under the budget (`--budget-floor-ok`). Default false. */
  budgetFloorOk?: boolean;
  /** Claude's context window for the `auto` threshold; default 200,000. */
  contextWindow?: number;
}

/** What a measured entry's row shows: the numbers, not the capture. */
export interface MeasurementSummary {
  status: Measurement['status'];
  note: string;
  totalTokens: number | null;
  toolCount: number | null;
  canonicalSha256: string | null;
  /** Tool names plus instructions: what a deferring client pays at session start for this server. */
  sessionStartTokens: number | null;
}

export interface AuditEntry {
  name: string;
  client: ClientId;
  scope: string;
  path: string;
  transport: ConfigEntry['transport'];
  /** Command and arguments (credential-looking values withheld) or URL (credentials stripped). */
  launch: RecordedLaunch | null;
  envNames: string[];
  headerNames: string[];
  disabled: boolean;
  /** The client switch that turned it off (file and key), when not its own field. */
  disabledBy?: string;
  /** Claude Code `.mcp.json` server not yet approved: measured, not counted in the session. */
  pendingApproval?: string;
  alwaysLoad: boolean;
  expansions: ConfigEntry['expansions'];
  problem?: string;
  /** What reading changed or left out without stopping the launch (a url's user and password dropped, `${workspaceFolder}` substituted). */
  notes?: string[];
  measurement?: MeasurementSummary;
  /** Gemini CLI's includeTools/excludeTools on the measured catalog: what the session counts for it. */
  toolFilter?: FilteredCatalog;
  unmeasured?: Unmeasured;
}

export interface AuditPlace {
  client: ClientId;
  scope: string;
  path: string;
  format: string;
  state: PlaceState;
  entries: number;
}

export interface AuditSettingsFile {
  path: string;
  tier: SettingsTier;
  state: PlaceState;
  /** Variables its env block sets, by name only. */
  sets: string[];
  allowRules: number;
  denyRules: number;
  /** Why its env block could not be read as variables (not an object). */
  envProblem?: string;
}

export interface SessionDeferral {
  posture: DeferralPosture;
  /** What enters the context at session start under that posture. */
  atSessionStart:
    | { loads: 'everything'; tokens: number; complete: boolean }
    | { loads: 'pinned-only'; tokens: number; pinned: string[]; namesAndInstructions: StartLoad }
    | { loads: 'unknown'; why: string };
  threshold?: {
    percent: number;
    contextWindow: number;
    thresholdTokens: number;
    lowTokens: number;
    highTokens: number;
    verdict: 'above' | 'below' | 'straddles';
    /** How each deferred server was put into Claude's units: its exact count, or the band (stale counts are named, with why). */
    conversion: ThresholdConversion;
  };
  /** Conditions no config states, for the reader to check. */
  conditions: string[];
  /** Where the rules this posture was read by come from: the vendor's pages, with their dates. */
  sources: readonly RecordSource[];
}

/**
 * What a deferring session loads besides the pinned definitions: each deferred server's tool names
 * and instructions (its `sessionStartTokens`), and each pinned server's instructions (its names
 * are inside the definitions `tokens` already counts). Wire counts, as measure makes them: Claude
 * Code prefixes names and truncates instructions at 2 KB, so this is an index, not its exact bill.
 */
export interface StartLoad {
  tokens: number;
  /** False when a loaded server has no such count (not measured, failed): `tokens` is then a floor. */
  complete: boolean;
  /** Loaded servers without a count. */
  missing: string[];
}

export interface ThresholdConversion {
  /** Servers converted with their exact Claude count (capture matches), with where it was read. */
  exact: Array<{ name: string; claudeTokens: number; from: string }>;
  /** Servers converted through the divergence band. */
  band: string[];
  /** Servers whose Claude count belongs to other bytes: not used, converted through the band. */
  stale: Array<{ name: string; why: string }>;
}

export interface AuditSession {
  client: ClientId;
  paths: string[];
  loaded: string[];
  shadowed: SessionComposition['shadowed'];
  disabled: SessionComposition['disabled'];
  /** Claude Code `.mcp.json` servers awaiting approval: not loaded, not counted. */
  pending: SessionComposition['pending'];
  denied: SessionComposition['denied'];
  denyUnevaluable: SessionComposition['denyUnevaluable'];
  allow?: SessionComposition['allow'];
  managedExclusive?: boolean;
  refused?: string;
  /** Every request carries this, deferred or not: the definitions travel in the tools array. */
  totals: SessionTotals;
  /** Claude Code: the posture read from this machine. */
  deferral?: SessionDeferral;
  /** Other clients: what the vendor has on record, or that nothing is. */
  vendor?: { record: DeferralRecord } | { none: NoRecord } | { unknown: string };
  /** The gateway rules `gateway wrap` would write for the launchable servers this session loads. */
  proposedGateway?: ProposedGateway;
  /** The session's file was rewritten by `gateway wrap`: the fronted servers before, the gateway after. */
  wrapped?: SessionWrapped;
}

export interface AuditReport {
  method: typeof AUDIT_METHOD;
  roots: { home: string; cwd: string; platform: AuditPlatform; systemRoot: string };
  measured: boolean;
  places: AuditPlace[];
  settings: AuditSettingsFile[];
  entries: AuditEntry[];
  /** Each distinct launch once, with every place configuring it, costliest first. */
  servers: AuditServer[];
  /** The measured servers counted once each: no session carries this sum, it is what the machine has configured. */
  serverTotal: ServerTotal;
  /** The context window shares and the `auto` threshold are stated against. */
  contextWindow: number;
  /** Per config place (file and scope): never merged across clients. */
  configs: Array<{ client: ClientId; scope: string; path: string; totals: Totals }>;
  sessions: AuditSession[];
  /** Wrap manifests beside a client file that could not be read (`gateway wrap`'s before figure is then missing). */
  wrapProblems?: string[];
  budget?: AuditBudget;
  changed?: { rows: ChangeRow[] } | { problem: string };
  suggest?: SuggestReport | { problem: string };
}

/** Conditions under which even a deferring Claude Code pays the full number; none is readable from a config. */
const CLAUDE_CONDITIONS = [
  'a Microsoft Foundry deployment on Azure rejects tool search: the full total loads',
  "Google Cloud's Agent Platform below the Claude 4.5 generation does not defer",
  'a model without tool_reference support does not defer',
  'a tool whose _meta carries "anthropic/alwaysLoad": true loads at start; tool _meta is not read here',
  'deferring keeps definitions out of the context window, not out of the request: every request still sends the whole total in its tools array',
];

function hostPlatform(): AuditPlatform {
  return process.platform === 'darwin' || process.platform === 'win32' ? process.platform : 'linux';
}

export function resolveRoots(given: Partial<AuditRoots> = {}): AuditRoots {
  const platform = given.platform ?? hostPlatform();
  const home = given.home ?? homedir();
  const roots: AuditRoots = { home, cwd: given.cwd ?? process.cwd(), platform, systemRoot: given.systemRoot ?? (platform === 'win32' ? 'C:\\' : '/') };
  if (given.appData !== undefined) roots.appData = given.appData;
  return roots;
}

function summary(measurement: Measurement): MeasurementSummary {
  return {
    status: measurement.status,
    note: measurement.note,
    totalTokens: measurement.totalTokens,
    toolCount: measurement.toolCount,
    canonicalSha256: measurement.canonicalSha256,
    sessionStartTokens: measurement.sessionStart?.total ?? null,
  };
}

function publicEntry(entry: ConfigEntry, measurements: ReadonlyMap<string, Measurement>): AuditEntry {
  const unmeasured = whyNotLaunched(entry);
  const launchable = entry.problem === undefined && entry.transport !== 'builtin';
  const row: AuditEntry = {
    name: entry.name,
    client: entry.client,
    scope: entry.scope,
    path: entry.path,
    transport: entry.transport,
    launch: launchable ? recordedLaunch(launchOf(entry)) : null,
    envNames: entry.envNames,
    headerNames: entry.headerNames,
    disabled: entry.disabled,
    alwaysLoad: entry.alwaysLoad,
    expansions: entry.expansions,
  };
  if (entry.disabledBy !== undefined) row.disabledBy = entry.disabledBy;
  if (entry.pendingApproval !== undefined) row.pendingApproval = entry.pendingApproval;
  if (entry.problem !== undefined) row.problem = entry.problem;
  if (entry.notes !== undefined) row.notes = entry.notes;
  const measurement = unmeasured === undefined ? measurements.get(launchKey(entry)) : undefined;
  if (measurement !== undefined) row.measurement = summary(measurement);
  else row.unmeasured = unmeasured ?? { reason: 'not-measured' };
  const tokens = tokensOf(measurement);
  const filtered = entry.toolFilter === undefined || measurement === undefined || tokens === undefined ? undefined : filteredCatalog(entry.toolFilter, measurement, tokens);
  if (filtered !== undefined) row.toolFilter = filtered;
  return row;
}

/** Splits the deferred (counted, not pinned) entries into exact Claude counts and band-converted o200k tokens. */
function conversionOf(composition: SessionComposition, measurements: ReadonlyMap<string, Measurement>, counts: ClaudeCounts): { conversion: ThresholdConversion; exactClaudeTokens: number; exactO200kTokens: number } {
  const conversion: ThresholdConversion = { exact: [], band: [], stale: [] };
  let exactClaudeTokens = 0;
  let exactO200kTokens = 0;
  for (const entry of composition.loaded) {
    if (entry.alwaysLoad || whyNotLaunched(entry) !== undefined) continue;
    const measurement = measurements.get(launchKey(entry));
    const tokens = tokensOf(measurement);
    if (measurement === undefined || tokens === undefined) continue;
    const count = measurement.canonicalSha256 === null ? undefined : counts.get(measurement.canonicalSha256);
    if (count?.state === 'exact') {
      conversion.exact.push({ name: entry.name, claudeTokens: count.claudeTokens, from: count.from });
      exactClaudeTokens += count.claudeTokens;
      exactO200kTokens += tokens;
      continue;
    }
    conversion.band.push(entry.name);
    if (count?.state === 'stale') conversion.stale.push({ name: entry.name, why: count.why });
  }
  return { conversion, exactClaudeTokens, exactO200kTokens };
}

function startLoadOf(composition: SessionComposition, measurements: ReadonlyMap<string, Measurement>): StartLoad {
  const load: StartLoad = { tokens: 0, complete: true, missing: [] };
  for (const entry of composition.loaded) {
    const measurement = whyNotLaunched(entry) === undefined ? measurements.get(launchKey(entry)) : undefined;
    const start = tokensOf(measurement) === undefined ? undefined : measurement?.sessionStart;
    if (start === undefined || start === null) {
      load.complete = false;
      load.missing.push(entry.name);
    } else load.tokens += entry.alwaysLoad ? start.instructionsTokens : start.total;
  }
  return load;
}

function claudeDeferral(
  totals: SessionTotals,
  composition: SessionComposition,
  posture: DeferralPosture,
  contextWindow: number,
  measurements: ReadonlyMap<string, Measurement>,
  counts: ClaudeCounts,
): SessionDeferral {
  const pinned = composition.loaded.filter((entry) => entry.alwaysLoad).map((entry) => entry.name);
  const deferral: SessionDeferral = { posture, atSessionStart: { loads: 'unknown', why: posture.reason }, conditions: CLAUDE_CONDITIONS, sources: CLAUDE_CODE_POSTURE_SOURCES };
  if (posture.posture === 'up-front') {
    deferral.atSessionStart = { loads: 'everything', tokens: totals.tokens, complete: totals.complete };
    return deferral;
  }
  if (posture.posture === 'refused') return deferral;
  const pinnedOnly = { loads: 'pinned-only', tokens: totals.alwaysLoadTokens, pinned, namesAndInstructions: startLoadOf(composition, measurements) } as const;
  if (posture.thresholdPercent === undefined) {
    deferral.atSessionStart = pinnedOnly;
    return deferral;
  }
  // auto / auto:N: size decides, counted in other units than the client's, so the answer is a range.
  // A server whose capture has a published Claude count is converted exactly; the band takes the rest.
  const { conversion, exactClaudeTokens, exactO200kTokens } = conversionOf(composition, measurements, counts);
  const banded = totals.tokens - totals.alwaysLoadTokens - exactO200kTokens;
  const range = thresholdVerdict({ deferredTokens: banded, exactClaudeTokens, thresholdPercent: posture.thresholdPercent, contextWindow, band: CLAUDE_DIVERGENCE_BAND });
  deferral.threshold = { percent: posture.thresholdPercent, contextWindow, ...range, conversion };
  if (totals.collapsed.length > 0) {
    deferral.posture = { posture: 'refused', refusal: 'total-unknown', evidence: posture.evidence, reason: `entries ${totals.collapsed.map((names) => names.join(' and ')).join('; ')} start the same server, so the session's total cannot be established` };
  } else if (!totals.complete && range.verdict !== 'above') {
    deferral.posture = { posture: 'refused', refusal: 'total-unknown', evidence: posture.evidence, reason: `the total is a floor (${totals.uncounted.map((item) => item.name).join(', ')} not counted), and a floor below the threshold says nothing` };
  } else if (range.verdict === 'straddles') {
    deferral.posture = { posture: 'refused', refusal: 'threshold-straddles', evidence: posture.evidence, reason: `${range.lowTokens}-${range.highTokens} tokens in Claude's units straddles the threshold of ${range.thresholdTokens}` };
  } else if (range.verdict === 'above') {
    deferral.atSessionStart = pinnedOnly;
  } else {
    deferral.atSessionStart = { loads: 'everything', tokens: totals.tokens, complete: totals.complete };
  }
  return deferral;
}

function vendorOf(client: ClientId): AuditSession['vendor'] {
  const record = deferralRecordOf(client);
  if (record !== undefined) return { record };
  const none = noRecordOf(client);
  if (none !== undefined) return { none };
  return { unknown: 'which client reads a file given with --config is not knowable from the file: no deferral is assumed, every request carries the whole total' };
}

function publicSettings(source: ClaudeSettingsSource): AuditSettingsFile {
  const file: AuditSettingsFile = {
    path: source.path,
    tier: source.tier,
    state: source.state,
    sets: [...Object.keys(source.env), ...source.otherEnvNames].sort(),
    allowRules: source.allowedMcpServers?.length ?? 0,
    denyRules: source.deniedMcpServers?.length ?? 0,
  };
  if (source.envProblem !== undefined) file.envProblem = source.envProblem;
  return file;
}

export async function audit(options: AuditOptions = {}): Promise<AuditReport> {
  if (options.budget !== undefined && (!Number.isSafeInteger(options.budget) || options.budget < 0)) {
    throw new McpctxError('USAGE', `budget must be a non-negative integer of tokens, got ${String(options.budget)}`);
  }
  if (options.contextWindow !== undefined && (!Number.isSafeInteger(options.contextWindow) || options.contextWindow < 1)) {
    throw new McpctxError('USAGE', `contextWindow must be a positive integer of tokens, got ${String(options.contextWindow)}`);
  }
  const roots = resolveRoots(options.roots);
  const places: PlaceReport[] = await readPlaces(options.configs === undefined ? clientPlaces(roots) : options.configs.map((path) => givenPlace(path)));
  const discovering = options.configs === undefined;
  const settings: ClaudeSettingsSource[] = discovering ? await readSettings(roots) : [];
  // Before anything is launched: an entry a client switch turns off is not started.
  applyClientSwitches(places, settings, discovering ? await readGeminiEnablement(roots) : undefined);
  // An entry read by two places (the user and local scopes share ~/.claude.json) is listed once per place it is in.
  const entries = places.flatMap((place) => place.entries);
  const measuring = options.measure !== false;
  // Read before anything is launched: a folder that cannot be read fails the audit early.
  const published = options.published === undefined ? undefined : await readPublished(options.published);
  // A wrapped file's fronted servers are measured from its backup too: the before figure.
  const { wrapped, problems: wrapProblems } = discovering ? await readWrappedPlaces(places) : { wrapped: [], problems: [] };
  const measurements = measuring ? await measureEntries([...entries, ...wrapped.flatMap((item) => item.fronted)], options) : new Map<string, Measurement>();

  const compositions = composeSessions(places, settings);
  const posture = deferralPosture(options.shellEnv ?? process.env, settings);
  const contextWindow = options.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const counts: ClaudeCounts = await claudeCounts(measurements.values(), published);
  const sessions: AuditSession[] = compositions.map((composition) => {
    const totals = sessionTotals(composition, measurements);
    const session: AuditSession = {
      client: composition.client,
      paths: composition.paths,
      loaded: composition.loaded.map((entry) => entry.name),
      shadowed: composition.shadowed,
      disabled: composition.disabled,
      pending: composition.pending,
      denied: composition.denied,
      denyUnevaluable: composition.denyUnevaluable,
      totals,
    };
    if (composition.allow !== undefined) session.allow = composition.allow;
    if (composition.managedExclusive === true) session.managedExclusive = true;
    if (composition.refused !== undefined) session.refused = composition.refused;
    if (composition.client === 'claude-code') {
      session.deferral = composition.refused === undefined ? claudeDeferral(totals, composition, posture, contextWindow, measurements, counts) : { posture: { posture: 'refused', refusal: 'unreadable-settings', evidence: [], reason: composition.refused }, atSessionStart: { loads: 'unknown', why: composition.refused }, conditions: CLAUDE_CONDITIONS, sources: CLAUDE_CODE_POSTURE_SOURCES };
    } else session.vendor = vendorOf(composition.client);
    const wrappedHere = sessionWrapped(composition, wrapped, measurements);
    if (wrappedHere !== undefined) session.wrapped = wrappedHere;
    // What `gateway wrap` would front: the launchable servers, the gateway wrap added aside.
    const launchable = composition.loaded.filter((entry) => whyNotLaunched(entry) === undefined && entry.name !== wrappedHere?.gatewayEntry);
    if (launchable.length > 0) {
      const servers = launchable.map((entry) => ({
        name: entry.name,
        ...optionalTokens(tokensOf(measurements.get(launchKey(entry)))),
        ...(entry.toolFilter?.include === undefined ? {} : { includeTools: entry.toolFilter.include }),
        ...(entry.toolFilter?.exclude === undefined ? {} : { excludeTools: entry.toolFilter.exclude }),
      }));
      session.proposedGateway = proposeGatewayRules(servers, { measured: measuring });
    }
    return session;
  });

  const servers = distinctServers(entries, measurements);
  const report: AuditReport = {
    method: AUDIT_METHOD,
    roots: { home: roots.home, cwd: roots.cwd, platform: roots.platform, systemRoot: roots.systemRoot },
    measured: measuring,
    places: places.map((place) => ({ client: place.client, scope: place.scope, path: place.path, format: place.format, state: place.state, entries: place.entries.length })),
    settings: settings.map(publicSettings),
    entries: entries.map((entry) => publicEntry(entry, measurements)),
    servers,
    serverTotal: serverTotal(servers),
    contextWindow,
    configs: places.filter((place) => place.state.state === 'read').map((place) => ({ client: place.client, scope: place.scope, path: place.path, totals: totalsOf(place.entries, measurements) })),
    sessions,
  };
  if (wrapProblems.length > 0) report.wrapProblems = wrapProblems;
  if (options.budget !== undefined) {
    report.budget = judgeBudget({ limit: options.budget, floorOk: options.budgetFloorOk === true, measured: measuring, sessions, places });
  }
  const measuredServers = uniqueMeasured(entries, measurements);
  if (options.changed !== undefined) report.changed = await joinChanged(options.changed, measuredServers);
  if (options.suggest !== undefined) report.suggest = await suggestFrom(options.suggest, measuredServers);
  return report;
}

function optionalTokens(tokens: number | undefined): { tokens?: number } {
  return tokens === undefined ? {} : { tokens };
}

interface MeasuredServer {
  name: string;
  measurement: Measurement;
}

/** Each measured launch once, under the first label it was configured with. */
function uniqueMeasured(entries: readonly ConfigEntry[], measurements: ReadonlyMap<string, Measurement>): MeasuredServer[] {
  const seen = new Set<string>();
  const servers: MeasuredServer[] = [];
  for (const entry of entries) {
    if (whyNotLaunched(entry) !== undefined) continue;
    const key = launchKey(entry);
    const measurement = measurements.get(key);
    if (seen.has(key) || measurement === undefined || tokensOf(measurement) === undefined) continue;
    seen.add(key);
    servers.push({ name: entry.name, measurement });
  }
  return servers;
}

function problemOf(error: unknown): { problem: string } {
  if (error instanceof McpctxError) return { problem: error.message };
  throw error;
}

async function joinChanged(resultsDir: string, servers: readonly MeasuredServer[]): Promise<AuditReport['changed']> {
  try {
    const index = await readCaptureIndex(resultsDir);
    const measured = servers.flatMap(({ name, measurement }) =>
      measurement.canonicalSha256 === null || measurement.totalTokens === null ? [] : [{ name, canonicalSha256: measurement.canonicalSha256, tokens: measurement.totalTokens }],
    );
    return { rows: await changedAgainst(measured, index, resultsDir) };
  } catch (error) {
    return problemOf(error);
  }
}

async function suggestFrom(resultsDir: string, servers: readonly MeasuredServer[]): Promise<AuditReport['suggest']> {
  try {
    const shape = await readToolShape(resultsDir);
    return suggestDescriptions(servers.map(({ name, measurement }) => ({ name, perTool: measurement.perTool ?? [] })), shape);
  } catch (error) {
    return problemOf(error);
  }
}
