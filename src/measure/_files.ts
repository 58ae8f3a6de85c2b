import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpctxError } from '../errors/index.js';
import { redactArgs, redactUrl } from '../mcp/index.js';
import { isPlainObject } from '../json/index.js';
import type { Measurement, RecordedRemoteLaunch, RecordedStdioLaunch } from './_measure.js';

/** What tells two launches apart: the command and arguments, or the URL. */
type LaunchIdentity = Pick<RecordedStdioLaunch, 'command' | 'args'> | Pick<RecordedRemoteLaunch, 'url'>;

export const MEASUREMENT_FILE = 'measurement.json';

/** A server label as one safe path segment: letters, digits, `.`, `_`, `-`; anything else becomes `-`. */
export function safeSegment(name: string): string {
  const segment = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 120);
  return segment === '' ? 'server' : segment;
}

/** `DIR/<name>/measurement.json`. */
export function measurementPath(dir: string, name: string): string {
  return join(dir, safeSegment(name), MEASUREMENT_FILE);
}

/** Serialized exactly as written to disk: two-space indent and a final newline. */
export function measurementJson(measurement: Measurement): string {
  return `${JSON.stringify(measurement, null, 2)}\n`;
}

/**
 * Refuses (`OUTPUT_CONFLICT`) when `DIR/<name>/measurement.json` exists and is not a measurement
 * of the same launch (command and arguments as recorded, or the URL): two servers that share a label must
 * not replace each other's results. A file of the same launch may be replaced; a missing one is fine.
 */
export async function checkMeasurementTarget(dir: string, name: string, launch: LaunchIdentity): Promise<string> {
  const file = measurementPath(dir, name);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return file;
    throw new McpctxError('IO', `cannot read ${file}: ${(error as Error).message}`, { file });
  }
  let existing: unknown;
  try {
    existing = JSON.parse(text);
  } catch {
    existing = undefined;
  }
  const recorded = isPlainObject(existing) && isPlainObject(existing.launch) ? existing.launch : undefined;
  if (recorded && sameLaunch(recorded, launch)) return file;
  const whose = recorded ? `a measurement of another server (${describeLaunch(recorded)})` : 'something that is not a measurement';
  throw new McpctxError(
    'OUTPUT_CONFLICT',
    `${file} holds ${whose}; not replacing it with "${name}" (${describeLaunch(launch)}). Give this server another name (--name, or name: in a servers file), or remove that file`,
    { file, name },
  );
}

/**
 * Writes `DIR/<name>/measurement.json` and returns its path. Atomic: the text goes to a temporary
 * file beside it, then a rename, so an interrupted write never leaves a half-written measurement.
 * Refuses to replace the measurement of another launch (see `checkMeasurementTarget`).
 */
export async function writeMeasurement(dir: string, measurement: Measurement): Promise<string> {
  const file = await checkMeasurementTarget(dir, measurement.name, measurement.launch);
  const folder = join(dir, safeSegment(measurement.name));
  const temporary = join(folder, `.${MEASUREMENT_FILE}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    await mkdir(folder, { recursive: true });
    await writeFile(temporary, measurementJson(measurement), { encoding: 'utf8', flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw new McpctxError('IO', `cannot write ${file}: ${(error as Error).message}`, { file });
  }
  return file;
}

/** Same URL as recorded; or same command and arguments, compared with credentials withheld on both sides (a file may hold either form). */
function sameLaunch(recorded: Record<string, unknown>, launch: LaunchIdentity): boolean {
  if ('url' in launch) return recorded.url === launch.url;
  const args = recorded.args;
  if (recorded.command !== launch.command || !Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) return false;
  return JSON.stringify(redactArgs(args as string[]).args) === JSON.stringify(redactArgs(launch.args).args);
}

function describeLaunch(launch: Record<string, unknown> | LaunchIdentity): string {
  if ('url' in launch && typeof launch.url === 'string') {
    const url = redactUrl(launch.url).url;
    return url.length > 160 ? `${url.slice(0, 160)}…` : url;
  }
  const fields = launch as Record<string, unknown>;
  const args = Array.isArray(fields.args) ? (fields.args as unknown[]).filter((arg) => typeof arg === 'string') : [];
  const text = [typeof fields.command === 'string' ? fields.command : '?', ...args].join(' ');
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}
