/**
 * The servers of an audit, each once: entries that start the same launch (the same server
 * configured for eight clients) are one server, with every place that configures it. Entries that
 * are not launched (disabled, builtin, unevaluated) are grouped the same way under their reason.
 * Sorted by cost, costliest first; servers without a number last (disabled ones at the end), by name.
 */
import type { Measurement } from '../measure/index.js';
import { launchKey, whyNotLaunched } from './_measure-entries.js';
import { tokensOf } from './_sessions.js';
import type { ClientId, ConfigEntry } from './_types.js';

export interface AuditServer {
  /** The label of the first entry that configures it. */
  name: string;
  /** Every label it is configured under, first one first. */
  names: string[];
  /** Every place that configures it, in the order the audit read them. */
  where: Array<{ client: ClientId; scope: string; path: string }>;
  /** The measurement's status, or why it was not launched (`disabled`, `builtin`, `unevaluated-expansion`, `problem`, `not-measured`). */
  status: string;
  toolCount: number | null;
  /** Tokens every request carries for it; null when it has no number. */
  totalTokens: number | null;
  /** Why it has no number (the measurement's note, or what stops the launch). */
  note?: string;
}

export interface ServerTotal {
  /** Distinct launches with a number, and their sum: each counted once, whichever sessions load it. */
  counted: number;
  tokens: number;
  /** Distinct servers that are not disabled and have no number (failed, not launched, not measured). */
  uncounted: number;
}

function compareServers(a: AuditServer, b: AuditServer): number {
  if (a.totalTokens !== b.totalTokens) {
    if (a.totalTokens === null) return 1;
    if (b.totalTokens === null) return -1;
    return b.totalTokens - a.totalTokens;
  }
  // Among those without a number, what loads (failed, not measured) before what does not (disabled).
  const aOff = a.status === 'disabled' ? 1 : 0;
  const bOff = b.status === 'disabled' ? 1 : 0;
  if (aOff !== bOff) return aOff - bOff;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function distinctServers(entries: readonly ConfigEntry[], measurements: ReadonlyMap<string, Measurement>): AuditServer[] {
  const byKey = new Map<string, AuditServer>();
  for (const entry of entries) {
    const unmeasured = whyNotLaunched(entry);
    const measurement = unmeasured === undefined ? measurements.get(launchKey(entry)) : undefined;
    const key = `${unmeasured?.reason ?? 'launched'}:${launchKey(entry)}`;
    let server = byKey.get(key);
    if (server === undefined) {
      server = {
        name: entry.name,
        names: [],
        where: [],
        status: measurement?.status ?? unmeasured?.reason ?? 'not-measured',
        toolCount: measurement?.toolCount ?? null,
        totalTokens: tokensOf(measurement) ?? null,
      };
      const note = measurement !== undefined && server.totalTokens === null ? measurement.note : unmeasured !== undefined && 'detail' in unmeasured ? unmeasured.detail : undefined;
      if (note !== undefined) server.note = note;
      byKey.set(key, server);
    }
    if (!server.names.includes(entry.name)) server.names.push(entry.name);
    server.where.push({ client: entry.client, scope: entry.scope, path: entry.path });
  }
  return [...byKey.values()].sort(compareServers);
}

export function serverTotal(servers: readonly AuditServer[]): ServerTotal {
  const counted = servers.filter((server) => server.totalTokens !== null);
  const uncounted = servers.filter((server) => server.totalTokens === null && server.status !== 'disabled');
  return { counted: counted.length, tokens: counted.reduce((sum, server) => sum + (server.totalTokens ?? 0), 0), uncounted: uncounted.length };
}
