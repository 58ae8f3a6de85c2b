// Servers files for sweep tests: scripted servers (and the pinned reference servers) with the
// leak-check marker in every entry's env, written as YAML into a temporary folder.
import { createHash } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { markedEnv, SCRIPTED_SERVER } from '../../support/processes.js';

export interface FixtureEntry {
  name: string;
  /** A scripted-server mode, or a full command line. */
  mode?: string;
  /** A remote server: the entry gets `url` instead of a command. */
  url?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
  runs?: number;
  notApplicable?: { reason: string; expect: string };
}

export async function writeServersFile(dir: string, entries: readonly FixtureEntry[], file = 'servers.yaml'): Promise<string> {
  const list = entries.map((entry) =>
    entry.url === undefined
      ? launched(entry)
      : { name: entry.name, url: entry.url, runs: entry.runs ?? 1, ...(entry.timeoutMs === undefined ? {} : { timeoutMs: entry.timeoutMs }) },
  );
  const path = join(dir, file);
  await writeFile(path, stringify(list));
  return path;
}

function launched(entry: FixtureEntry): Record<string, unknown> {
  return {
    name: entry.name,
    command: entry.command ?? process.execPath,
    args: entry.args ?? [SCRIPTED_SERVER, entry.mode ?? 'normal'],
    env: markedEnv(entry.env ?? {}),
    runs: entry.runs ?? 1,
    ...(entry.timeoutMs === undefined ? {} : { timeoutMs: entry.timeoutMs }),
    ...(entry.notApplicable === undefined ? {} : { notApplicable: entry.notApplicable }),
  };
}

/** Every file under `dir` (relative POSIX path) with the sha256 of its bytes. */
export async function hashTree(dir: string, prefix = ''): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) Object.assign(hashes, await hashTree(dir, path));
    else hashes[path] = createHash('sha256').update(await readFile(join(dir, path))).digest('hex');
  }
  return hashes;
}

/** Every file under `dir`, with time fields (measuredAt, timings, elapsedMs) taken out of JSON files. */
export async function normalisedTree(dir: string, prefix = ''): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) Object.assign(files, await normalisedTree(dir, path));
    else {
      const text = await readFile(join(dir, path), 'utf8');
      files[path] = path.endsWith('.json') ? JSON.stringify(withoutTimes(JSON.parse(text)), null, 2) : text;
    }
  }
  return files;
}

const TIME_KEYS = new Set(['measuredAt', 'timings', 'elapsedMs']);
function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !TIME_KEYS.has(key)).map(([key, item]) => [key, withoutTimes(item)]));
}
