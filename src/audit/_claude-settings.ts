/**
 * Claude Code's settings files: where they are on each platform, and what each one's `env` block
 * and MCP server lists say. Only the three variables the deferral posture reads keep their values
 * (`DEFERRAL_VARIABLES`); every other variable an env block sets is kept by name, since its value
 * may be a credential.
 */
import type * as JsoncParser from 'jsonc-parser';
import { readFile, readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ParseError } from 'jsonc-parser';
import { lazyRequire } from '../lazy/index.js';
import { lineAndColumn } from '../tokens/index.js';
import { isPlainObject } from '../json/index.js';
import type { AuditRoots, EnvSetting, PlaceState, PostureEvidence, ServerRule, SettingsSource, SettingsTier } from './_types.js';

const jsonc = lazyRequire<typeof JsoncParser>('jsonc-parser');

/** The variables whose values decide the deferral posture; the only env values a source keeps. */
export const DEFERRAL_VARIABLES: ReadonlyArray<PostureEvidence['variable']> = [
  'CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS',
  'ENABLE_TOOL_SEARCH',
  'ANTHROPIC_BASE_URL',
];

/** A settings file as `readSettings` reports it: the shared shape plus what the report can show about the rest of its env block. */
export interface ClaudeSettingsSource extends SettingsSource {
  /** Names of the other variables its env block sets (sorted); their values are not kept. */
  otherEnvNames: string[];
  /**
   * Set when the file has an `env` key that is not an object. It sets no variable then: a JSON string,
   * number or array has no key named like one of `DEFERRAL_VARIABLES`, so the file stays `read`.
   */
  envProblem?: string;
}

/** Settings files are a few kilobytes; anything far larger is not read into memory. */
const MAX_SETTINGS_BYTES = 8 * 1024 * 1024;

/** The managed settings file of a platform: the system directory its vendor documents, under `systemRoot`. */
function managedSettingsPath(roots: AuditRoots): string {
  switch (roots.platform) {
    case 'darwin':
      return join(roots.systemRoot, 'Library', 'Application Support', 'ClaudeCode', 'managed-settings.json');
    case 'win32':
      // Not %ProgramData%\ClaudeCode: the vendor names that a legacy path Claude Code no longer reads.
      return join(roots.systemRoot, 'Program Files', 'ClaudeCode', 'managed-settings.json');
    case 'linux':
      return join(roots.systemRoot, 'etc', 'claude-code', 'managed-settings.json');
  }
}

interface SettingsPlace {
  path: string;
  tier: SettingsTier;
  /** Set when this place is a drop-in directory that exists and could not be listed: its files are unknown. */
  listingError?: string;
}

async function settingsPlaces(roots: AuditRoots): Promise<SettingsPlace[]> {
  const managed = managedSettingsPath(roots);
  const dropInDir = join(dirname(managed), 'managed-settings.d');
  const places: SettingsPlace[] = [{ path: managed, tier: 'managed' }];
  try {
    const entries = await readdir(dropInDir, { withFileTypes: true });
    const names = entries
      .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith('.json') && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      // Code-unit order: the same on every machine, whatever its locale.
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) places.push({ path: join(dropInDir, name), tier: 'managed-drop-in' });
  } catch (error) {
    const code = errorCode(error);
    // No directory is no drop-ins; one that exists and cannot be listed hides what it holds.
    if (code !== 'ENOENT' && code !== 'ENOTDIR') places.push({ path: dropInDir, tier: 'managed-drop-in', listingError: describeError(error) });
  }
  places.push(
    { path: join(roots.cwd, '.claude', 'settings.local.json'), tier: 'local' },
    { path: join(roots.cwd, '.claude', 'settings.json'), tier: 'project' },
    { path: join(roots.home, '.claude', 'settings.json'), tier: 'user' },
  );
  return places;
}

/**
 * The settings files Claude Code reads, in precedence order: the managed file, its
 * `managed-settings.d/*.json` drop-ins (sorted by name), `<cwd>/.claude/settings.local.json`,
 * `<cwd>/.claude/settings.json`, `~/.claude/settings.json`. Async because the drop-ins are found by
 * listing their directory; a drop-in directory that exists and cannot be listed is listed itself
 * (tier `managed-drop-in`), and `readSettings` reports it unreadable.
 */
export async function settingsPaths(roots: AuditRoots): Promise<Array<{ path: string; tier: SettingsTier }>> {
  return (await settingsPlaces(roots)).map(({ path, tier }) => ({ path, tier }));
}

/** Every settings file of `settingsPaths`, each read, absent or unreadable, with what its env block and MCP server lists set. */
export async function readSettings(roots: AuditRoots): Promise<ClaudeSettingsSource[]> {
  const places = await settingsPlaces(roots);
  return Promise.all(places.map((place) => readSettingsFile(place)));
}

async function readSettingsFile(place: SettingsPlace): Promise<ClaudeSettingsSource> {
  const source = (state: PlaceState): ClaudeSettingsSource => ({ path: place.path, tier: place.tier, state, env: {}, otherEnvNames: [] });
  if (place.listingError !== undefined) return source({ state: 'unreadable', why: `the drop-in directory cannot be listed (${place.listingError})` });

  let text: string;
  try {
    const info = await stat(place.path);
    if (!info.isFile()) return source({ state: 'unreadable', why: 'not a regular file' });
    if (info.size > MAX_SETTINGS_BYTES) return source({ state: 'unreadable', why: `larger than ${MAX_SETTINGS_BYTES} bytes` });
    text = await readFile(place.path, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return source({ state: 'absent' });
    return source({ state: 'unreadable', why: describeError(error) });
  }

  const parsed = parseStrictJson(text);
  if ('unreadable' in parsed) return source(parsed.unreadable);
  if (!isPlainObject(parsed.value)) return source({ state: 'unreadable', why: `the top level is JSON ${jsonTypeOf(parsed.value)}, not an object` });

  const settings = parsed.value;
  const result = source({ state: 'read' });
  if (Object.hasOwn(settings, 'env')) {
    const env = settings.env;
    if (isPlainObject(env)) {
      const others: string[] = [];
      for (const [name, value] of Object.entries(env)) {
        if ((DEFERRAL_VARIABLES as readonly string[]).includes(name)) result.env[name] = envSetting(value);
        else others.push(name);
      }
      result.otherEnvNames = others.sort();
    } else {
      result.envProblem = `env is JSON ${jsonTypeOf(env)}, not an object`;
    }
  }
  if (Object.hasOwn(settings, 'allowedMcpServers')) result.allowedMcpServers = serverRules('allowedMcpServers', settings.allowedMcpServers);
  if (Object.hasOwn(settings, 'deniedMcpServers')) result.deniedMcpServers = serverRules('deniedMcpServers', settings.deniedMcpServers);
  // The .mcp.json approvals (Claude Code settings reference, keys enabledMcpjsonServers,
  // disabledMcpjsonServers, enableAllProjectMcpServers): names only; a value of the wrong type
  // approves or rejects nothing, as a list that is not a list of names cannot name a server.
  const enabled = nameList(settings, 'enabledMcpjsonServers');
  if (enabled !== undefined) result.enabledMcpjsonServers = enabled;
  const disabled = nameList(settings, 'disabledMcpjsonServers');
  if (disabled !== undefined) result.disabledMcpjsonServers = disabled;
  if (Object.hasOwn(settings, 'enableAllProjectMcpServers') && settings.enableAllProjectMcpServers === true) result.enableAllProjectMcpServers = true;
  if (Object.hasOwn(settings, 'allowManagedMcpServersOnly')) {
    const only = settings.allowManagedMcpServersOnly;
    result.allowManagedMcpServersOnly = typeof only === 'boolean' ? only : 'unreadable';
  }
  return result;
}

/**
 * Settings files are parsed as plain JSON: a comment or trailing comma is a parse error here. If
 * Claude Code is more lenient, such a file is refused as unreadable rather than read differently.
 * jsonc-parser places the errors; the value is JSON.parse's, as Claude Code reads it: jsonc-parser's
 * own value assigns keys, so `"__proto__": {"env": ...}` would become the settings' prototype and
 * its `env` would look set where Claude Code sees only a key named `__proto__`.
 */
function parseStrictJson(text: string): { value: unknown } | { unreadable: PlaceState } {
  const errors: ParseError[] = [];
  let value: unknown;
  try {
    jsonc().parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    if (errors.length === 0) value = JSON.parse(text) as unknown;
  } catch {
    // The parser recurses; a hostile nesting depth ends here instead of in the caller.
    return { unreadable: { state: 'unreadable', why: 'nests too deeply to parse' } };
  }
  const first = errors[0];
  if (first === undefined) return { value };
  const { line, column } = lineAndColumn(text, first.offset);
  return { unreadable: { state: 'unreadable', why: `JSON parse error: ${jsonc().printParseErrorCode(first.error)}`, line, column } };
}

/** The strings of a list of server names at `key`, or undefined when the key is not a list. */
function nameList(object: Readonly<Record<string, unknown>>, key: string): string[] | undefined {
  if (!Object.hasOwn(object, key)) return undefined;
  const value = object[key];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

function envSetting(value: unknown): EnvSetting {
  return typeof value === 'string' ? { kind: 'string', value } : { kind: 'unreadable', jsonType: jsonTypeOf(value) };
}

function serverRules(key: string, value: unknown): ServerRule[] {
  // A list that is not a list is still set: one unrecognized rule says so instead of dropping it.
  if (!Array.isArray(value)) return [{ unrecognized: `${key} is JSON ${jsonTypeOf(value)}, not an array` }];
  return value.map((item) => serverRule(item));
}

const RULE_KEYS = ['serverName', 'serverCommand', 'serverUrl'] as const;

/** One list entry; the description of an unrecognized one names types and keys, never values. */
function serverRule(item: unknown): ServerRule {
  if (!isPlainObject(item)) return { unrecognized: `an entry is JSON ${jsonTypeOf(item)}, not an object` };
  const keys = Object.keys(item);
  const known = keys.filter((key) => (RULE_KEYS as readonly string[]).includes(key));
  if (known.length !== 1) return { unrecognized: known.length === 0 ? 'an entry has none of serverName, serverCommand, serverUrl' : `an entry has more than one of ${known.join(', ')}` };
  if (keys.length !== 1) return { unrecognized: `an entry has keys besides ${known[0]}` };
  if ('serverName' in item) {
    return typeof item.serverName === 'string' ? { serverName: item.serverName } : { unrecognized: `serverName is JSON ${jsonTypeOf(item.serverName)}, not a string` };
  }
  if ('serverUrl' in item) {
    return typeof item.serverUrl === 'string' ? { serverUrl: item.serverUrl } : { unrecognized: `serverUrl is JSON ${jsonTypeOf(item.serverUrl)}, not a string` };
  }
  const command = item.serverCommand;
  if (!Array.isArray(command) || command.length === 0 || !command.every((part) => typeof part === 'string')) {
    return { unrecognized: 'serverCommand is not a non-empty array of strings' };
  }
  return { serverCommand: [...(command as string[])] };
}

/** The JSON type of a parsed value: boolean, number, null, string, object or array. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The `code` of a Node error (ENOENT, EACCES): an Error instance, so not a plain object. */
function errorCode(error: unknown): string | undefined {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' ? (error as NodeJS.ErrnoException).code : undefined;
}

function describeError(error: unknown): string {
  const code = errorCode(error);
  return code === undefined ? 'read error' : `read error ${code}`;
}
