/**
 * Measuring the entries audit found: each distinct launch once (the same server configured for two
 * clients is one process, joined by its launch spec), with `measureServer`'s bounds. A url entry is
 * measured without its headers: their values are the user's credentials (often unevaluated
 * `${VAR}`s), so the first thing it gets is an initialize carrying only the OAuth login the user
 * stored for it (`mcpctx auth login`), if any, and a 401/403 answer is `remote-auth-wall` with the
 * challenge quoted and the login command. Entries that cannot be launched as written are not
 * measured and say why.
 */
import { createHash } from 'node:crypto';
import { measureServer, remoteTransportOfType, type Measurement } from '../measure/index.js';
import type { LaunchSpec, RemoteSpec } from '../mcp/index.js';
import type { ConfigEntry } from './_types.js';

/** Why an entry was not launched. */
export type Unmeasured =
  /** `by`: the client switch that turned it off (file and key), when not the entry's own field. */
  | { reason: 'disabled'; by?: string }
  | { reason: 'builtin' }
  | { reason: 'problem'; detail: string }
  | { reason: 'unevaluated-expansion'; detail: string }
  | { reason: 'not-measured' };

export interface MeasureEntriesOptions {
  timeoutMs?: number;
  runs?: number;
  /** Launches at once. Default 2. */
  concurrency?: number;
  /** Called once before any launch, with how many launches there are and how many run at once. */
  onPlan?: (total: number, concurrency: number) => void;
  /** Called as each launch starts; `ordinal` is its 1-based place in the order launches start. */
  onStart?: (ordinal: number, total: number, name: string) => void;
  /** Called as each launch ends (progress for long audits); `ordinal` is the one `onStart` gave it. */
  onMeasured?: (done: number, total: number, measurement: Measurement, ordinal: number) => void;
  /** The measuring function (tests inject a fake); default `measureServer`. */
  measureWith?: typeof measureServer;
  /** The user's environment: where the stored OAuth logins of url entries are found. Default process.env. */
  shellEnv?: Readonly<Record<string, string | undefined>>;
}


/** Why `entry` is not launched, or undefined when it is. */
export function whyNotLaunched(entry: ConfigEntry): Unmeasured | undefined {
  if (entry.disabled) return entry.disabledBy === undefined ? { reason: 'disabled' } : { reason: 'disabled', by: entry.disabledBy };
  if (entry.transport === 'builtin') return { reason: 'builtin' };
  if (entry.problem !== undefined) return { reason: 'problem', detail: entry.problem };
  const blocking = entry.expansions.filter((expansion) => /^(command|args\[\d+\]|url)$/.test(expansion.where));
  if (blocking.length > 0) {
    const where = blocking.map((expansion) => `${expansion.where} (\${${expansion.variables.join('}, ${')}})`).join(', ');
    return { reason: 'unevaluated-expansion', detail: `${where} holds an expansion audit does not evaluate` };
  }
  return undefined;
}

/** The launch of an entry that can be launched. A remote one is reached without headers. */
export function launchOf(entry: ConfigEntry): LaunchSpec | RemoteSpec {
  if (entry.transport === 'remote') {
    // Goose writes streamable_http where the other clients write streamable-http.
    const transport = entry.remoteType === undefined ? undefined : remoteTransportOfType(entry.remoteType.replace('_', '-'));
    return transport === undefined ? { url: entry.url ?? '' } : { url: entry.url ?? '', transport };
  }
  const launch: LaunchSpec = { command: entry.command ?? '', args: entry.args ?? [], env: entry.launchEnv };
  return launch;
}

/**
 * The identity two entries share when they start the same server: a hash over the launch (values
 * included, so two entries differing only in a token are two launches), never printed as such.
 */
export function launchKey(entry: ConfigEntry): string {
  const launch = launchOf(entry);
  const identity =
    'url' in launch
      ? ['url', launch.url, launch.transport ?? 'auto']
      : ['stdio', launch.command, launch.args ?? [], Object.entries(launch.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

/**
 * Measures every launchable entry, each distinct launch once. Returns the measurement per launch
 * key; entries that are not launched have none (see `whyNotLaunched`).
 */
export async function measureEntries(entries: readonly ConfigEntry[], options: MeasureEntriesOptions = {}): Promise<Map<string, Measurement>> {
  const measure = options.measureWith ?? measureServer;
  const jobs = new Map<string, ConfigEntry>();
  for (const entry of entries) {
    if (whyNotLaunched(entry) !== undefined) continue;
    const key = launchKey(entry);
    if (!jobs.has(key)) jobs.set(key, entry);
  }
  const results = new Map<string, Measurement>();
  const queue = [...jobs];
  const total = queue.length;
  let done = 0;
  let started = 0;
  const worker = async (): Promise<void> => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
      const [key, entry] = job;
      started += 1;
      const ordinal = started;
      options.onStart?.(ordinal, total, entry.name);
      const measureOptions: Parameters<typeof measureServer>[0] = { name: entry.name, launch: launchOf(entry) };
      if (options.timeoutMs !== undefined) measureOptions.timeoutMs = options.timeoutMs;
      if (options.shellEnv !== undefined) measureOptions.env = options.shellEnv;
      if (options.runs !== undefined) measureOptions.runs = options.runs;
      const measurement = await measure(measureOptions);
      results.set(key, measurement);
      done += 1;
      options.onMeasured?.(done, total, measurement, ordinal);
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 2, total));
  options.onPlan?.(total, concurrency);
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}
