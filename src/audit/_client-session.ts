/**
 * One client's session as audit composes it, for `gateway wrap`: its places read, the composition
 * (what loads, what is shadowed, disabled or denied), and the catalog tokens of chosen entries
 * measured once per launch. The same readers audit uses, so wrap fronts what audit counts.
 */
import { readSettings } from './_claude-settings.js';
import { applyClientSwitches } from './_client-switches.js';
import { readGeminiEnablement } from './_gemini-enablement.js';
import { launchKey, measureEntries, whyNotLaunched, type MeasureEntriesOptions } from './_measure-entries.js';
import { clientPlaces } from './_places.js';
import { readPlaces } from './_read-config.js';
import { composeSessions, tokensOf, type SessionComposition } from './_sessions.js';
import type { AuditRoots, ClientId, ConfigEntry, PlaceReport } from './_types.js';

export interface ClientSession {
  places: PlaceReport[];
  /** Undefined when no place of the client could be read. */
  composition: SessionComposition | undefined;
}

export async function readClientSession(roots: AuditRoots, client: ClientId): Promise<ClientSession> {
  const places = await readPlaces(clientPlaces(roots).filter((place) => place.client === client));
  const settings = client === 'claude-code' ? await readSettings(roots) : [];
  // The client's own off switches, as audit applies them: what they turn off is not fronted.
  applyClientSwitches(places, settings, client === 'gemini-cli' ? await readGeminiEnablement(roots) : undefined);
  const [composition] = composeSessions(places, settings);
  return { places, composition };
}

/** Catalog tokens per entry name (undefined: not launched, or no number), each launch measured once. */
export async function measureEntryTokens(
  entries: readonly ConfigEntry[],
  options: Pick<MeasureEntriesOptions, 'timeoutMs' | 'runs' | 'concurrency' | 'measureWith' | 'onPlan' | 'onStart' | 'onMeasured'> = {},
): Promise<Map<string, number | undefined>> {
  const measurements = await measureEntries(entries, options);
  return new Map(entries.map((entry) => [entry.name, whyNotLaunched(entry) === undefined ? tokensOf(measurements.get(launchKey(entry))) : undefined]));
}
