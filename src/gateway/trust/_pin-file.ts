/**
 * The pin file on disk. Read: absent is an empty file (first contact everywhere); anything that
 * cannot be read or is not a pin file is `unreadable`, and the caller fails closed (every tool
 * held), never re-trusts. Written whole, through a temporary file renamed over it, so a crash or a
 * concurrent reader never meets half a file.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject, ownValue } from '../../json/index.js';
import { PIN_FILE_FORMAT, clonePins, emptyPinFile, type PinFile } from './_pins.js';

/** A pin file is small; one this big is not one. */
export const MAX_PIN_FILE_BYTES = 64 * 1024 * 1024;

export type PinFileRead = { status: 'read' | 'absent'; pins: PinFile } | { status: 'unreadable'; reason: string };

export async function readPinFile(file: string): Promise<PinFileRead> {
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.length > MAX_PIN_FILE_BYTES) return { status: 'unreadable', reason: `it is ${bytes.length} bytes, over ${MAX_PIN_FILE_BYTES}` };
    text = bytes.toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'absent', pins: emptyPinFile() };
    return { status: 'unreadable', reason: (error as Error).message };
  }
  return parsePinText(text);
}

/** A pin document's text (from a file or a shared store) read as pins, or why it is not a pin file. */
export function parsePinText(text: string): PinFileRead {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { status: 'unreadable', reason: `it is not JSON (${(error as Error).message})` };
  }
  const problem = pinFileProblem(value);
  if (problem !== undefined) return { status: 'unreadable', reason: problem };
  // Maps keyed by names an upstream chose become null-prototype objects: `__proto__` stays a key.
  return { status: 'read', pins: clonePins(value as unknown as PinFile) };
}

/** The text a pin document holds: the same bytes in a file and in a shared store. */
export function pinText(pins: PinFile): string {
  return `${JSON.stringify(pins, null, 2)}\n`;
}

export async function writePinFile(file: string, pins: PinFile): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, pinText(pins), { mode: 0o600 });
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw new McpctxError('IO', `Cannot write the pin file ${file}: ${(error as Error).message}`, { file }, { cause: error });
  }
}

/** Why a parsed value is not a pin file, or undefined when it is one. */
function pinFileProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'it is not a JSON object';
  if (value.format !== PIN_FILE_FORMAT) return `its format is ${JSON.stringify(value.format)}, not ${JSON.stringify(PIN_FILE_FORMAT)}`;
  if (!isPlainObject(value.upstreams)) return 'it has no upstreams object';
  for (const [upstream, entry] of Object.entries(value.upstreams)) {
    const where = `upstream ${JSON.stringify(upstream)}`;
    if (!isPlainObject(entry)) return `${where} is not an object`;
    if (Object.hasOwn(entry, 'toolsUnchecked') && entry.toolsUnchecked !== true) return `${where}: toolsUnchecked is not true`;
    const tools = sectionProblem(where, { pinned: ownValue(entry, 'tools'), pending: ownValue(entry, 'pending'), rejected: ownValue(entry, 'rejected') });
    if (tools !== undefined) return tools;
    for (const key of SECTIONS) {
      if (!Object.hasOwn(entry, key)) continue;
      const section = entry[key];
      if (!isPlainObject(section)) return `${where}: its ${key} is not an object`;
      const problem = sectionProblem(`${where}, ${key}`, { pinned: ownValue(section, 'pinned'), pending: ownValue(section, 'pending'), rejected: ownValue(section, 'rejected') });
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

const SECTIONS = ['prompts', 'resources', 'templates', 'instructions'] as const;

function sectionProblem(where: string, section: { pinned: unknown; pending: unknown; rejected: unknown }): string | undefined {
  const { pinned, pending, rejected } = section;
  if (!isPlainObject(pinned) || !isPlainObject(pending) || !isPlainObject(rejected)) return `${where} lacks its pins, pending or rejected object`;
  for (const [key, pin] of Object.entries(pinned)) {
    if (!isPlainObject(pin) || !isSha256(ownValue(pin, 'sha256')) || !isCount(ownValue(pin, 'tokens')) || typeof ownValue(pin, 'pinnedAt') !== 'string' || !Object.hasOwn(pin, 'definition')) {
      return `${where}: the pin of ${JSON.stringify(key)} is not {sha256, tokens, pinnedAt, definition}`;
    }
  }
  for (const [key, entry] of Object.entries(pending)) {
    const kind = isPlainObject(entry) ? ownValue(entry, 'kind') : undefined;
    const shown = isPlainObject(entry) ? ownValue(entry, 'shownSha256') : undefined;
    if (!isPlainObject(entry) || (kind !== 'new' && kind !== 'changed') || !isSha256(ownValue(entry, 'sha256')) || !isCount(ownValue(entry, 'tokens')) || (shown !== undefined && !isSha256(shown))) {
      return `${where}: the pending entry of ${JSON.stringify(key)} is malformed`;
    }
  }
  for (const [key, sha256] of Object.entries(rejected)) {
    if (!isSha256(sha256)) return `${where}: the rejected entry of ${JSON.stringify(key)} is not a sha256`;
  }
  return undefined;
}

function isSha256(value: unknown): boolean {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
