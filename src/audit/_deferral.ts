/**
 * Whether Claude Code defers MCP tool definitions on this machine, read from three environment
 * variables in the shell and in its settings files' env blocks (the rules are the methodology's
 * "Who pays the number, and where it is deferred away"); where size decides, the range verdict
 * against the threshold; and whether an allow/deny rule matches a config entry.
 *
 * Model of Claude Code's documented behaviour (code.claude.com/docs/en/mcp.md, "Scale with MCP tool
 * search"; env-vars.md), not an observation of it: if those pages change, this file changes with them.
 */
import { McpctxError } from '../errors/index.js';
import type { ConfigEntry, DeferralPosture, PostureEvidence, PostureRefusal, ServerRule, SettingsSource, SettingsTier } from './_types.js';

type Variable = PostureEvidence['variable'];

/**
 * The published Claude divergence band: across the 86 measured servers, Claude's count of a stack
 * was 0.19x to 1.93x our o200k_base wire count (the methodology's threshold-range rule).
 */
export const CLAUDE_DIVERGENCE_BAND = { low: 0.19, high: 1.93 } as const;

/** Claude's standard context window, in tokens: what `auto`'s percentage is taken of unless a caller knows better. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/** `auto` alone: definitions defer once they reach 10% of the context window. */
const AUTO_DEFAULT_PERCENT = 10;

/** Values `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS` reads as on / off, in any casing. */
const TRUTHY = new Set(['1', 'true', 'yes', 'on']);
const FALSY = new Set(['0', 'false', 'no', 'off']);

/**
 * What one place in the read order says about one variable: nothing, a value, or an unknown that
 * refuses the posture if this variable is the one that decides.
 */
type Resolution =
  | { kind: 'unset' }
  | { kind: 'value'; value: string; evidence: PostureEvidence[] }
  | { kind: 'unknown'; refusal: Extract<PostureRefusal, 'conflict' | 'unreadable-settings' | 'unreadable-value'>; evidence: PostureEvidence[]; why: string };

/** A place a variable can be set: the managed pair (one source), another settings file, or the shell. */
type Place = { kind: 'files'; files: readonly SettingsSource[] } | { kind: 'shell'; shell: Readonly<Record<string, string | undefined>> };

const TIER_RANK: Record<SettingsTier, number> = { managed: 0, 'managed-drop-in': 0, local: 1, project: 2, user: 3 };

/**
 * The places in the order Claude Code lets them win. Settings files first, managed tier down to
 * user: "the first that sets a variable wins". The shell comes last: Claude Code reads a settings
 * file's env block itself and applies it to its own process environment, so it takes effect
 * however `claude` was launched (code.claude.com/docs/en/env-vars.md, "In settings files"; settings.md,
 * `env`: applied to every session). A value exported in the shell is what a settings env block replaces.
 */
function placesInOrder(shell: Readonly<Record<string, string | undefined>>, settings: readonly SettingsSource[]): Place[] {
  // The managed file and its drop-ins are documented as merged with no order between them: one place.
  const managed = settings.filter((source) => TIER_RANK[source.tier] === 0);
  const others = settings.filter((source) => TIER_RANK[source.tier] !== 0).sort((a, b) => TIER_RANK[a.tier] - TIER_RANK[b.tier]);
  return [{ kind: 'files', files: managed }, ...others.map((file): Place => ({ kind: 'files', files: [file] })), { kind: 'shell', shell }];
}

/** The evidence value a variable may show: `ANTHROPIC_BASE_URL` only by its host, since the URL may carry credentials. */
function shownValue(variable: Variable, value: string): string | undefined {
  return variable === 'ANTHROPIC_BASE_URL' ? baseUrlHost(value) : value;
}

function baseUrlHost(value: string): string | undefined {
  try {
    return new URL(value).hostname;
  } catch {
    return undefined;
  }
}

function evidenceOf(variable: Variable, source: string, value?: string): PostureEvidence {
  const shown = value === undefined ? undefined : shownValue(variable, value);
  return shown === undefined ? { variable, source } : { variable, source, value: shown };
}

/** What a group of settings files read as one source says about `variable`. */
function resolveInFiles(variable: Variable, files: readonly SettingsSource[]): Resolution {
  const setters = files.filter((file) => file.state.state === 'read' && file.env[variable] !== undefined);
  const blind = files.filter((file) => file.state.state === 'unreadable');
  const strings = new Set<string>();
  const evidence: PostureEvidence[] = [];
  let unreadableValueAt: string | undefined;
  for (const file of setters) {
    const setting = file.env[variable];
    if (setting?.kind === 'string') {
      strings.add(setting.value);
      evidence.push(evidenceOf(variable, file.path, setting.value));
    } else {
      unreadableValueAt ??= file.path;
      evidence.push(evidenceOf(variable, file.path));
    }
  }
  if (strings.size > 1) return { kind: 'unknown', refusal: 'conflict', evidence, why: `${variable} is set to different values in the managed settings file and its drop-ins, and no order between them is on record` };
  if (unreadableValueAt !== undefined) {
    return { kind: 'unknown', refusal: 'unreadable-value', evidence, why: `${unreadableValueAt} sets ${variable} to something other than a string, so what it is set to is unknown` };
  }
  if (blind.length > 0) {
    const blindEvidence = blind.map((file) => evidenceOf(variable, file.path));
    return { kind: 'unknown', refusal: 'unreadable-settings', evidence: [...evidence, ...blindEvidence], why: `${blind.map((file) => file.path).join(', ')} could not be read, so whether it sets ${variable} is unknown` };
  }
  const [value] = strings;
  return value === undefined ? { kind: 'unset' } : { kind: 'value', value, evidence };
}

/** The first place in the read order that sets `variable` (or cannot say whether it does) decides it; places below it are never consulted. */
function resolve(variable: Variable, places: readonly Place[]): Resolution {
  for (const place of places) {
    if (place.kind === 'shell') {
      const value = place.shell[variable];
      return value === undefined ? { kind: 'unset' } : { kind: 'value', value, evidence: [evidenceOf(variable, 'shell', value)] };
    }
    const found = resolveInFiles(variable, place.files);
    if (found.kind !== 'unset') return found;
  }
  return { kind: 'unset' };
}

type ToolSearchReading = { posture: 'up-front' } | { posture: 'deferred'; thresholdPercent?: number } | undefined;

/** The documented values of `ENABLE_TOOL_SEARCH`; `undefined` for any other. */
function readToolSearch(value: string): ToolSearchReading {
  if (value === 'true') return { posture: 'deferred' };
  if (value === 'false') return { posture: 'up-front' };
  if (value === 'auto') return { posture: 'deferred', thresholdPercent: AUTO_DEFAULT_PERCENT };
  const match = /^auto:(\d{1,3})$/.exec(value);
  if (match?.[1] !== undefined) {
    const percent = Number(match[1]);
    if (percent <= 100) return { posture: 'deferred', thresholdPercent: percent };
  }
  return undefined;
}

function refused(refusal: PostureRefusal, evidence: PostureEvidence[], reason: string): DeferralPosture {
  return { posture: 'refused', refusal, evidence, reason };
}

/**
 * Claude Code's deferral posture on this machine. The three variables are read in the
 * methodology's order (CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS, then ENABLE_TOOL_SEARCH, then
 * ANTHROPIC_BASE_URL while ENABLE_TOOL_SEARCH is unset everywhere); each is taken from the first
 * place that sets it (`placesInOrder`). A variable the read never reaches, and a place below the
 * one that decides, cannot refuse the answer.
 */
export function deferralPosture(shell: Readonly<Record<string, string | undefined>>, settings: readonly SettingsSource[]): DeferralPosture {
  const places = placesInOrder(shell, settings);
  const evidence: PostureEvidence[] = [];

  const betas = resolve('CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS', places);
  if (betas.kind === 'unknown') return refused(betas.refusal, betas.evidence, `${betas.why}; it is the variable read first.`);
  if (betas.kind === 'value') {
    evidence.push(...betas.evidence);
    const lowered = betas.value.toLowerCase();
    if (TRUTHY.has(lowered)) return betasOff(places, evidence);
    if (!FALSY.has(lowered)) {
      return refused('unrecognized-value', evidence, 'CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS holds a value that is neither a documented on nor off value, so whether tool search is off cannot be said.');
    }
    // A value read as off turned nothing off: the read moves on.
  }

  const toolSearch = resolve('ENABLE_TOOL_SEARCH', places);
  if (toolSearch.kind === 'unknown') return refused(toolSearch.refusal, [...evidence, ...toolSearch.evidence], `${toolSearch.why}; it would decide the posture.`);
  if (toolSearch.kind === 'value') {
    evidence.push(...toolSearch.evidence);
    const reading = readToolSearch(toolSearch.value);
    if (reading === undefined) return refused('unrecognized-value', evidence, 'ENABLE_TOOL_SEARCH holds a value the vendor does not document, so no posture is claimed from it.');
    if (reading.posture === 'up-front') return { posture: 'up-front', evidence, reason: 'ENABLE_TOOL_SEARCH is false, so every definition loads at session start.' };
    if (reading.thresholdPercent === undefined) return { posture: 'deferred', evidence, reason: 'ENABLE_TOOL_SEARCH is true, so every definition is deferred at any size.' };
    return {
      posture: 'deferred',
      thresholdPercent: reading.thresholdPercent,
      evidence,
      reason: `ENABLE_TOOL_SEARCH is ${toolSearch.value}, so definitions are deferred once they reach ${reading.thresholdPercent}% of the context window.`,
    };
  }

  const baseUrl = resolve('ANTHROPIC_BASE_URL', places);
  if (baseUrl.kind === 'unknown') return refused(baseUrl.refusal, [...evidence, ...baseUrl.evidence], `${baseUrl.why}; with ENABLE_TOOL_SEARCH unset it would decide the posture.`);
  if (baseUrl.kind === 'value') {
    evidence.push(...baseUrl.evidence);
    const host = baseUrlHost(baseUrl.value);
    if (host === undefined) return { posture: 'up-front', evidence, reason: 'ANTHROPIC_BASE_URL does not parse as a URL and ENABLE_TOOL_SEARCH is unset, so tool search is off and every definition loads at session start.' };
    if (host !== 'api.anthropic.com') {
      return { posture: 'up-front', evidence, reason: 'ANTHROPIC_BASE_URL points at a host other than api.anthropic.com and ENABLE_TOOL_SEARCH is unset, so tool search is off and every definition loads at session start.' };
    }
  }

  return { posture: 'deferred', evidence, reason: 'No setting read here changes the documented default: every definition is deferred, at any size.' };
}

/**
 * CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS is on: tool search is off, unless the organisation override
 * may be armed. Where the managed tier sets ENABLE_TOOL_SEARCH to an undocumented value, or to
 * something unknown, the disabling variable is no longer known to decide, so no posture is claimed.
 */
function betasOff(places: readonly Place[], evidence: PostureEvidence[]): DeferralPosture {
  const managed = places[0];
  const managedToolSearch = managed?.kind === 'files' ? resolveInFiles('ENABLE_TOOL_SEARCH', managed.files) : ({ kind: 'unset' } as const);
  if (managedToolSearch.kind === 'unknown') {
    return refused(managedToolSearch.refusal, [...evidence, ...managedToolSearch.evidence], `${managedToolSearch.why}; in the managed tier it could keep tool search on despite CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS.`);
  }
  if (managedToolSearch.kind === 'value' && readToolSearch(managedToolSearch.value) === undefined) {
    return refused(
      'unrecognized-value',
      [...evidence, ...managedToolSearch.evidence],
      'The managed tier sets ENABLE_TOOL_SEARCH to an undocumented value while CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS is on, which may keep tool search on, so no posture is claimed.',
    );
  }
  return { posture: 'up-front', evidence, reason: 'CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS is on, which turns tool search off, so every definition loads at session start.' };
}

/**
 * Where a stack's size sits against an `auto` threshold. Our count (o200k_base wire tokens) is
 * converted to Claude's units through `band` as a range, and servers with an exact Claude count
 * add it to both ends (`exactClaudeTokens`, already in Claude's units); the stack is above only
 * when the low end reaches the threshold (definitions defer once they reach it) and below only
 * when the high end does not. The ends are widened to whole tokens (low down, high up), so
 * rounding never narrows the range.
 */
export function thresholdVerdict(args: { deferredTokens: number; exactClaudeTokens?: number; thresholdPercent: number; contextWindow: number; band: { low: number; high: number } }): {
  verdict: 'above' | 'below' | 'straddles';
  lowTokens: number;
  highTokens: number;
  thresholdTokens: number;
} {
  const { deferredTokens, exactClaudeTokens = 0, thresholdPercent, contextWindow, band } = args;
  if (!Number.isFinite(deferredTokens) || deferredTokens < 0) throw new McpctxError('INVALID_ARGUMENT', 'deferredTokens must be a finite number of tokens, 0 or more.');
  if (!Number.isFinite(exactClaudeTokens) || exactClaudeTokens < 0) throw new McpctxError('INVALID_ARGUMENT', 'exactClaudeTokens must be a finite number of tokens, 0 or more.');
  if (!Number.isFinite(thresholdPercent) || thresholdPercent < 0 || thresholdPercent > 100) throw new McpctxError('INVALID_ARGUMENT', 'thresholdPercent must be between 0 and 100.');
  if (!Number.isFinite(contextWindow) || contextWindow <= 0) throw new McpctxError('INVALID_ARGUMENT', 'contextWindow must be a positive number of tokens.');
  if (!Number.isFinite(band.low) || !Number.isFinite(band.high) || band.low < 0 || band.low > band.high) {
    throw new McpctxError('INVALID_ARGUMENT', 'band must have 0 <= low <= high.');
  }
  // Rounded to a millionth first, so float noise (0.19 * 100 = 19.000000000000004) does not move a whole token.
  const lowTokens = Math.floor(roundMicro(deferredTokens * band.low)) + exactClaudeTokens;
  const highTokens = Math.ceil(roundMicro(deferredTokens * band.high)) + exactClaudeTokens;
  const thresholdTokens = roundMicro((contextWindow * thresholdPercent) / 100);
  const verdict = lowTokens >= thresholdTokens ? 'above' : highTokens < thresholdTokens ? 'below' : 'straddles';
  return { verdict, lowTokens, highTokens, thresholdTokens };
}

function roundMicro(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** A `${VAR}` or `${env:VAR}` left in a string: evaluated by an environment this audit does not hold. */
const EXPANSION = /\$\{[^}]*\}/;

/**
 * Whether an allow/deny rule matches an entry: `serverName` by exact name, `serverCommand` equal to
 * `[command, ...args]`, `serverUrl` with `*` matching any run of characters. `'unevaluable'` when the
 * rule is unrecognized or either side of the compared part holds a `${}` expansion.
 */
export function matchesServerRule(rule: ServerRule, entry: Pick<ConfigEntry, 'name' | 'command' | 'args' | 'url' | 'expansions'>): boolean | 'unevaluable' {
  if ('serverName' in rule) {
    if (EXPANSION.test(rule.serverName)) return 'unevaluable';
    return rule.serverName === entry.name;
  }
  if ('serverCommand' in rule) {
    if (entry.command === undefined) return false;
    const entryCommand = [entry.command, ...(entry.args ?? [])];
    const expanded = entry.expansions.some((expansion) => expansion.where === 'command' || expansion.where.startsWith('args['));
    if (expanded || [...entryCommand, ...rule.serverCommand].some((part) => EXPANSION.test(part))) return 'unevaluable';
    return entryCommand.length === rule.serverCommand.length && entryCommand.every((part, index) => part === rule.serverCommand[index]);
  }
  if ('serverUrl' in rule) {
    if (entry.url === undefined) return false;
    if (entry.expansions.some((expansion) => expansion.where === 'url') || EXPANSION.test(entry.url) || EXPANSION.test(rule.serverUrl)) return 'unevaluable';
    return wildcardPattern(rule.serverUrl).test(entry.url);
  }
  return 'unevaluable';
}

function wildcardPattern(pattern: string): RegExp {
  const escaped = pattern
    .split('*')
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${escaped}$`, 's');
}
