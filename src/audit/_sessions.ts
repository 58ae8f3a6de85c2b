/**
 * What each client session loads, and what it costs. Per-file totals are facts about files and are
 * never merged across clients; a session is what one client reads together:
 * - Claude Code: `~/.claude.json` (user and this project's local map) with `<cwd>/.mcp.json`, one
 *   name loading once (local over project over user); where `managed-mcp.json` exists it is the
 *   session alone, and one that cannot be read refuses the composition. `deniedMcpServers` read in
 *   any settings file removes a server from the session (nothing overrides a deny); an allowlist is
 *   reported per entry and never subtracted (an unread tier could only broaden it).
 * - Every other client: the places it reads (user and project), together.
 * - A file given with `--config`: a session of its own.
 * Entries a client switch turned off (`_client-switches.ts`) are listed as disabled with the switch;
 * a Claude Code `.mcp.json` server awaiting approval is listed as pending, not loaded; a Gemini
 * entry's includeTools/excludeTools count only the tools they keep (`entryTokens`).
 */
import type { Measurement } from '../measure/index.js';
import { matchesServerRule } from './_deferral.js';
import { launchKey, whyNotLaunched, type Unmeasured } from './_measure-entries.js';
import { filteredCatalog } from './_tool-filter.js';
import type { ClientId, ConfigEntry, PlaceReport, ServerRule, SettingsSource } from './_types.js';

/** A total that may be a floor: entries that load but have no number make it one. */
export interface Totals {
  tokens: number;
  /** False when a loaded entry has no number: `tokens` is then a floor. */
  complete: boolean;
  /** Loaded entries counted, and those that load but could not be counted (with why). */
  counted: string[];
  uncounted: Array<{ name: string; why: string }>;
}

export interface AllowVerdict {
  name: string;
  verdict: 'allowed' | 'not-allowed' | 'unevaluable';
}

export interface SessionComposition {
  client: ClientId;
  /** The config files this session reads. */
  paths: string[];
  /** The entries it loads, after names shadowed by a higher scope, disabled, pending and denied entries are taken out. */
  loaded: ConfigEntry[];
  shadowed: Array<{ name: string; path: string; by: string }>;
  /** Entries turned off: by their own field, or by a client switch named in `by` (file and key). */
  disabled: Array<{ name: string; path: string; by?: string }>;
  /** Claude Code `.mcp.json` servers awaiting approval: measured, not loaded, not counted. */
  pending: Array<{ name: string; path: string; why: string }>;
  denied: Array<{ name: string; path: string; rule: string; source: string }>;
  /** Deny rules that could not be evaluated against an entry (a `${}` on either side): the entry stays in. */
  denyUnevaluable: Array<{ name: string; rule: string; source: string }>;
  /** Per loaded entry, when any allowlist was read. Reported, never subtracted. */
  allow?: AllowVerdict[];
  /** Claude Code with a managed MCP file: the session is that file alone. */
  managedExclusive?: boolean;
  /** Why the composition itself cannot be said (a managed MCP file that exists and cannot be read). */
  refused?: string;
}

export interface SessionTotals extends Totals {
  /** Tokens of loaded entries pinned with `alwaysLoad: true` (Claude Code). */
  alwaysLoadTokens: number;
  /** Loaded entries that share one launch: the session's total cannot be established (they collapsed onto one measurement). */
  collapsed: string[][];
}

/** A measurement has a number when the server answered with a catalog. */
export function tokensOf(measurement: Measurement | undefined): number | undefined {
  if (measurement === undefined) return undefined;
  if (measurement.status !== 'measured' && measurement.status !== 'dynamic') return undefined;
  return measurement.totalTokens ?? undefined;
}

/**
 * What `entry` costs a session: the measurement's number, less the tools the entry's own filter
 * (Gemini CLI's includeTools/excludeTools) removes. The measurement itself stays the server's.
 */
export function entryTokens(entry: ConfigEntry, measurement: Measurement | undefined): number | undefined {
  const tokens = tokensOf(measurement);
  if (tokens === undefined || measurement === undefined || entry.toolFilter === undefined) return tokens;
  return filteredCatalog(entry.toolFilter, measurement, tokens)?.tokens ?? tokens;
}

function uncountedWhy(entry: ConfigEntry, measurement: Measurement | undefined, unmeasured: Unmeasured | undefined): string {
  if (unmeasured !== undefined) return 'detail' in unmeasured ? `${unmeasured.reason}: ${unmeasured.detail}` : unmeasured.reason;
  if (measurement === undefined) return 'not measured (--no-measure)';
  return `${measurement.status}: ${measurement.note}`;
}

/** The total of `entries` as loaded (disabled entries are not loaded and not counted). */
export function totalsOf(entries: readonly ConfigEntry[], measurements: ReadonlyMap<string, Measurement>): Totals {
  const totals: Totals = { tokens: 0, complete: true, counted: [], uncounted: [] };
  for (const entry of entries) {
    if (entry.disabled) continue;
    const unmeasured = whyNotLaunched(entry);
    const measurement = unmeasured === undefined ? measurements.get(launchKey(entry)) : undefined;
    const tokens = entryTokens(entry, measurement);
    if (tokens === undefined) {
      totals.complete = false;
      totals.uncounted.push({ name: entry.name, why: uncountedWhy(entry, measurement, unmeasured) });
    } else {
      totals.tokens += tokens;
      totals.counted.push(entry.name);
    }
  }
  return totals;
}

export function sessionTotals(composition: SessionComposition, measurements: ReadonlyMap<string, Measurement>): SessionTotals {
  const totals = totalsOf(composition.loaded, measurements);
  let alwaysLoadTokens = 0;
  const byLaunch = new Map<string, string[]>();
  for (const entry of composition.loaded) {
    if (whyNotLaunched(entry) !== undefined) continue;
    const key = launchKey(entry);
    byLaunch.set(key, [...(byLaunch.get(key) ?? []), entry.name]);
    if (entry.alwaysLoad) alwaysLoadTokens += entryTokens(entry, measurements.get(key)) ?? 0;
  }
  return { ...totals, alwaysLoadTokens, collapsed: [...byLaunch.values()].filter((names) => names.length > 1) };
}

const CLAUDE_SCOPE_ORDER = ['local', 'project', 'user'];

function scopeRank(scope: string): number {
  return scope === 'project' || scope === 'workspace' ? 0 : 1;
}

function describeRule(rule: ServerRule): string {
  if ('serverName' in rule) return `serverName ${rule.serverName}`;
  if ('serverCommand' in rule) return `serverCommand ${JSON.stringify(rule.serverCommand)}`;
  if ('serverUrl' in rule) return `serverUrl ${rule.serverUrl}`;
  return `unrecognized rule (${rule.unrecognized})`;
}

/** Applies the deny rules of every read settings file and reports the allow rules (Claude Code only). */
function applyPolicy(composition: SessionComposition, settings: readonly SettingsSource[]): void {
  const kept: ConfigEntry[] = [];
  for (const entry of composition.loaded) {
    let denied: { rule: string; source: string } | undefined;
    const unevaluable: SessionComposition['denyUnevaluable'] = [];
    for (const source of settings) {
      for (const rule of source.deniedMcpServers ?? []) {
        if ('unrecognized' in rule) continue;
        const match = matchesServerRule(rule, entry);
        if (match === true) denied ??= { rule: describeRule(rule), source: source.path };
        else if (match === 'unevaluable') unevaluable.push({ name: entry.name, rule: describeRule(rule), source: source.path });
      }
    }
    // A rule that cannot be evaluated matters only for an entry no other rule denies.
    if (denied === undefined) {
      kept.push(entry);
      composition.denyUnevaluable.push(...unevaluable);
    } else composition.denied.push({ name: entry.name, path: entry.path, ...denied });
  }
  composition.loaded = kept;

  const managedOnly = settings.some((source) => (source.tier === 'managed' || source.tier === 'managed-drop-in') && source.allowManagedMcpServersOnly === true);
  const allowSources = settings.filter((source) => source.allowedMcpServers !== undefined && (!managedOnly || source.tier === 'managed' || source.tier === 'managed-drop-in'));
  if (allowSources.length === 0) return;
  const rules = allowSources.flatMap((source) => source.allowedMcpServers ?? []).filter((rule) => !('unrecognized' in rule));
  composition.allow = composition.loaded.map((entry) => {
    const matches = rules.map((rule) => matchesServerRule(rule, entry));
    const verdict = matches.includes(true) ? 'allowed' : matches.includes('unevaluable') ? 'unevaluable' : 'not-allowed';
    return { name: entry.name, verdict };
  });
}

function emptyComposition(client: ClientId, paths: string[]): SessionComposition {
  return { client, paths, loaded: [], shadowed: [], disabled: [], pending: [], denied: [], denyUnevaluable: [] };
}

/** Entries of `places` in order, a name loading once: the first place holding it wins. */
function loadInOrder(composition: SessionComposition, places: readonly PlaceReport[]): void {
  const holder = new Map<string, ConfigEntry>();
  for (const place of places) {
    for (const entry of place.entries) {
      const first = holder.get(entry.name);
      if (first !== undefined) {
        composition.shadowed.push({ name: entry.name, path: entry.path, by: `${first.path} (${first.scope})` });
        continue;
      }
      holder.set(entry.name, entry);
      if (entry.disabled) composition.disabled.push(entry.disabledBy === undefined ? { name: entry.name, path: entry.path } : { name: entry.name, path: entry.path, by: entry.disabledBy });
      else if (entry.pendingApproval !== undefined) composition.pending.push({ name: entry.name, path: entry.path, why: entry.pendingApproval });
      else composition.loaded.push(entry);
    }
  }
}

function claudeCodeSession(places: readonly PlaceReport[], settings: readonly SettingsSource[]): SessionComposition {
  const managed = places.find((place) => place.scope === 'managed');
  if (managed !== undefined && managed.state.state !== 'absent') {
    const composition = emptyComposition('claude-code', [managed.path]);
    composition.managedExclusive = true;
    if (managed.state.state === 'unreadable') {
      composition.refused = `${managed.path} exists and cannot be read (${managed.state.why}): it alone decides which servers a session loads, so that cannot be said`;
      return composition;
    }
    loadInOrder(composition, [managed]);
    applyPolicy(composition, settings);
    return composition;
  }
  const ordered = CLAUDE_SCOPE_ORDER.flatMap((scope) => places.filter((place) => place.scope === scope && place.state.state === 'read'));
  const composition = emptyComposition('claude-code', [...new Set(ordered.map((place) => place.path))]);
  loadInOrder(composition, ordered);
  applyPolicy(composition, settings);
  return composition;
}

/**
 * The sessions of the places read: one per client (Claude Code by its own rules), and one per
 * given file. Clients with no readable place have none.
 */
export function composeSessions(places: readonly PlaceReport[], settings: readonly SettingsSource[]): SessionComposition[] {
  const sessions: SessionComposition[] = [];
  const clients = [...new Set(places.map((place) => place.client))];
  for (const client of clients) {
    const own = places.filter((place) => place.client === client);
    if (client === 'claude-code') {
      const session = claudeCodeSession(own, settings);
      if (session.paths.length > 0) sessions.push(session);
      continue;
    }
    const read = own.filter((place) => place.state.state === 'read');
    if (client === 'custom') {
      for (const place of read) {
        const composition = emptyComposition(client, [place.path]);
        loadInOrder(composition, [place]);
        sessions.push(composition);
      }
      continue;
    }
    if (read.length === 0) continue;
    // A project's own config is the nearer one: where a name is in both, the project's loads.
    read.sort((a, b) => scopeRank(a.scope) - scopeRank(b.scope));
    const composition = emptyComposition(client, [...new Set(read.map((place) => place.path))]);
    loadInOrder(composition, read);
    sessions.push(composition);
  }
  return sessions;
}
