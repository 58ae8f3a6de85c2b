/**
 * A client file `gateway wrap` rewrote carries a manifest beside it (`<file>.mcpctx-wrap.json`).
 * Audit reads it to show the session both ways: after (the gateway entry, measured like any
 * server: what the gateway lists) and before (the fronted entries read from the backup with the
 * same reader, measured). The manifest's shape lives here so audit needs nothing of wrap.
 */
import { readFile, stat } from 'node:fs/promises';
import type { Measurement } from '../measure/index.js';
import { isPlainObject } from '../json/index.js';
import { launchKey, whyNotLaunched } from './_measure-entries.js';
import { readPlace } from './_read-config.js';
import { tokensOf, totalsOf, type SessionComposition } from './_sessions.js';
import type { ConfigEntry, ConfigFormat, PlaceReport } from './_types.js';

export const WRAP_MANIFEST_SUFFIX = '.mcpctx-wrap.json';
export const WRAP_BACKUP_SUFFIX = '.mcpctx-backup';
export const WRAP_METHOD = 'mcpctx-wrap/v1';
const MAX_MANIFEST_BYTES = 1024 * 1024;

export interface WrapManifest {
  method: typeof WRAP_METHOD;
  client: string;
  scope: string;
  /** The client file as the client names it (a symlink stays the link). */
  path: string;
  format: ConfigFormat;
  serversAt: string[];
  backup: string;
  originalSha256: string;
  wrappedSha256: string;
  gatewayConfig: string;
  gatewayEntry: string;
  fronted: string[];
  date: string;
}

export function wrapManifestPath(clientFile: string): string {
  return `${clientFile}${WRAP_MANIFEST_SUFFIX}`;
}

const STRING_FIELDS = ['client', 'scope', 'path', 'format', 'backup', 'originalSha256', 'wrappedSha256', 'gatewayConfig', 'gatewayEntry', 'date'] as const;

/** The manifest beside `clientFile`: undefined when there is none, `{problem}` when it cannot be read as one. */
export async function readWrapManifest(clientFile: string): Promise<WrapManifest | { problem: string } | undefined> {
  const at = wrapManifestPath(clientFile);
  let text: string;
  try {
    // A manifest is a few hundred bytes; anything far larger is not one, and is not read whole.
    if ((await stat(at)).size > MAX_MANIFEST_BYTES) return { problem: `${at} is over ${MAX_MANIFEST_BYTES / 1024} KiB, larger than a manifest` };
    text = await readFile(at, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { problem: `${at} cannot be read: ${(error as Error).message}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `${at} is not JSON` };
  }
  if (!isPlainObject(value) || value.method !== WRAP_METHOD) return { problem: `${at} is not a ${WRAP_METHOD} manifest` };
  for (const key of STRING_FIELDS) if (!Object.hasOwn(value, key) || typeof value[key] !== 'string') return { problem: `${at}: ${key} is not a string` };
  const lists = ['serversAt', 'fronted'] as const;
  for (const key of lists) {
    const list = Object.hasOwn(value, key) ? value[key] : undefined;
    if (!Array.isArray(list) || list.some((item) => typeof item !== 'string')) return { problem: `${at}: ${key} is not a list of strings` };
  }
  return value as unknown as WrapManifest;
}

/** A read place with a manifest beside it, and the fronted entries as the backup holds them. */
export interface WrappedPlace {
  place: PlaceReport;
  manifest: WrapManifest;
  fronted: ConfigEntry[];
  /** Why the backup could not be read (the before figure is then unknown). */
  problem?: string;
}

/** The wrapped places among `places`, and why a manifest beside one could not be read (said, never skipped in silence). */
export async function readWrappedPlaces(places: readonly PlaceReport[]): Promise<{ wrapped: WrappedPlace[]; problems: string[] }> {
  const wrapped: WrappedPlace[] = [];
  const problems: string[] = [];
  for (const place of places) {
    if (place.state.state !== 'read') continue;
    const manifest = await readWrapManifest(place.path);
    if (manifest === undefined) continue;
    if ('problem' in manifest) {
      problems.push(`${manifest.problem}: the session is shown as the file is, without its before figure`);
      continue;
    }
    // ~/.claude.json holds two scopes: the manifest names the one wrapped.
    if (manifest.scope !== place.scope || manifest.client !== place.client) continue;
    // The place as read (its substitutes and variable forms), pointed at the backup.
    const { state: _state, entries: _entries, switches: _switches, ...configPlace } = place;
    const backup = await readPlace({ ...configPlace, path: manifest.backup, serversAt: manifest.serversAt });
    const item: WrappedPlace = { place, manifest, fronted: backup.entries.filter((entry) => manifest.fronted.includes(entry.name)) };
    if (backup.state.state !== 'read') item.problem = `the backup ${manifest.backup} is ${backup.state.state}${backup.state.state === 'unreadable' ? `: ${backup.state.why}` : ''}`;
    wrapped.push(item);
  }
  return { wrapped, problems: [...new Set(problems)] };
}

export interface SessionWrapped {
  gatewayEntry: string;
  gatewayConfig: string;
  fronted: string[];
  /** The fronted servers measured from the backup. */
  before: { tokens: number; complete: boolean };
  /** What the gateway entry lists, measured like any server. */
  after: { tokens: number; complete: boolean };
  backup: string;
  manifest: string;
  problem?: string;
}

/** The before/after of the wrapped places this session reads, when it reads any. */
export function sessionWrapped(composition: SessionComposition, wrapped: readonly WrappedPlace[], measurements: ReadonlyMap<string, Measurement>): SessionWrapped | undefined {
  const item = wrapped.find((candidate) => candidate.place.client === composition.client && composition.paths.includes(candidate.place.path));
  if (item === undefined) return undefined;
  const before = totalsOf(item.fronted, measurements);
  const gateway = composition.loaded.find((entry) => entry.name === item.manifest.gatewayEntry && entry.path === item.place.path);
  const afterTokens = gateway === undefined || whyNotLaunched(gateway) !== undefined ? undefined : tokensOf(measurements.get(launchKey(gateway)));
  const result: SessionWrapped = {
    gatewayEntry: item.manifest.gatewayEntry,
    gatewayConfig: item.manifest.gatewayConfig,
    fronted: item.manifest.fronted,
    before: { tokens: before.tokens, complete: before.complete && before.counted.length === item.manifest.fronted.length },
    after: { tokens: afterTokens ?? 0, complete: afterTokens !== undefined },
    backup: item.manifest.backup,
    manifest: wrapManifestPath(item.place.path),
  };
  if (item.problem !== undefined) result.problem = item.problem;
  return result;
}
