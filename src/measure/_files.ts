import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpctxError } from '../errors/index.js';
import type { Measurement } from './_measure.js';

/** A server label as one safe path segment: letters, digits, `.`, `_`, `-`; anything else becomes `-`. */
export function safeSegment(name: string): string {
  const segment = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 120);
  return segment === '' ? 'server' : segment;
}

/** Serialized exactly as written to disk: two-space indent and a final newline. */
export function measurementJson(measurement: Measurement): string {
  return `${JSON.stringify(measurement, null, 2)}\n`;
}

/** Writes `DIR/<name>/measurement.json` and returns its path. */
export async function writeMeasurement(dir: string, measurement: Measurement): Promise<string> {
  const folder = join(dir, safeSegment(measurement.name));
  const file = join(folder, 'measurement.json');
  try {
    await mkdir(folder, { recursive: true });
    await writeFile(file, measurementJson(measurement), 'utf8');
  } catch (error) {
    throw new McpctxError('IO', `cannot write ${file}: ${(error as Error).message}`, { file });
  }
  return file;
}
