import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { McpctxError } from '../errors/index.js';
import { checkBudgetMs, isEnvName } from '../mcp/index.js';
import { safeSegment } from './_files.js';
import type { MeasureOptions } from './_measure.js';

const ENTRY_KEYS = new Set(['name', 'command', 'args', 'env', 'cwd', 'capabilities', 'protocolVersion', 'timeoutMs', 'runs']);

/**
 * Reads a YAML list of servers (`name`, `command`, `args`, `env`, `cwd`, and optionally
 * `capabilities`, `protocolVersion`, `timeoutMs`, `runs`). A relative `cwd` is taken from the
 * file's folder, which is also the default, so entries can point into the project beside it.
 */
export async function loadServersFile(file: string): Promise<MeasureOptions[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new McpctxError('IO', `cannot read servers file ${file}: ${(error as Error).message}`, { file });
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw invalid(file, `not valid YAML: ${(error as Error).message}`);
  }
  const list = Array.isArray(document) ? document : (document as { servers?: unknown } | null)?.servers;
  if (!Array.isArray(list) || list.length === 0) {
    throw invalid(file, 'expected a non-empty YAML list of servers (each with at least name and command)');
  }
  const folder = dirname(resolve(file));
  const seen = new Map<string, string>();
  return list.map((entry, index) => {
    const options = serverEntry(entry, `${file}: entry ${index + 1}`, folder);
    const segment = safeSegment(options.name);
    const clash = seen.get(segment);
    if (clash !== undefined) throw invalid(file, `entry ${index + 1}: name "${options.name}" collides with "${clash}"; names must be unique`);
    seen.set(segment, options.name);
    return options;
  });
}

function serverEntry(entry: unknown, where: string, folder: string): MeasureOptions {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw invalidEntry(where, 'is not a mapping');
  const fields = entry as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !ENTRY_KEYS.has(key));
  if (unknown.length > 0) throw invalidEntry(where, `has unknown key(s) ${unknown.join(', ')}; allowed: ${[...ENTRY_KEYS].join(', ')}`);
  const name = requiredString(fields.name, where, 'name');
  const place = `${where} (${name})`;
  const options: MeasureOptions = {
    name,
    launch: {
      command: requiredString(fields.command, place, 'command'),
      args: stringList(fields.args, place, 'args'),
      cwd: fields.cwd === undefined ? folder : resolve(folder, requiredString(fields.cwd, place, 'cwd')),
      env: envMap(fields.env, place),
    },
  };
  if (fields.capabilities !== undefined) options.capabilities = stringList(fields.capabilities, place, 'capabilities');
  if (fields.protocolVersion !== undefined) options.protocolVersion = requiredString(fields.protocolVersion, place, 'protocolVersion');
  if (fields.timeoutMs !== undefined) {
    try {
      options.timeoutMs = checkBudgetMs(fields.timeoutMs, 'timeoutMs');
    } catch (error) {
      throw invalidEntry(place, (error as Error).message);
    }
  }
  if (fields.runs !== undefined) options.runs = positiveInteger(fields.runs, place, 'runs');
  return options;
}

function requiredString(value: unknown, where: string, key: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalidEntry(where, `needs ${key} as a non-empty string`);
  return value;
}

function stringList(value: unknown, where: string, key: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidEntry(where, `${key} must be a list`);
  return value.map((item, index) => {
    if (typeof item === 'string') return item;
    if (typeof item === 'number' || typeof item === 'boolean') return String(item);
    throw invalidEntry(where, `${key}[${index}] must be a string`);
  });
}

function envMap(value: unknown, where: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidEntry(where, 'env must be a mapping of NAME: value');
  const env: Record<string, string> = {};
  for (const [name, raw] of Object.entries(value)) {
    if (!isEnvName(name)) throw invalidEntry(where, `env name "${name}" is not a valid variable name`);
    if (typeof raw === 'string') env[name] = raw;
    else if (typeof raw === 'number' || typeof raw === 'boolean') env[name] = String(raw);
    else throw invalidEntry(where, `env ${name} must be a string`);
  }
  return env;
}

function positiveInteger(value: unknown, where: string, key: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalidEntry(where, `${key} must be a positive integer`);
  return value;
}

function invalid(file: string, message: string): McpctxError {
  return new McpctxError('INVALID_CONFIG', `${file}: ${message}`, { file });
}

function invalidEntry(where: string, message: string): McpctxError {
  return new McpctxError('INVALID_CONFIG', `${where} ${message}`, { where });
}
