/**
 * Where the pins live: a file on this host, or a key in the shared state (`--state redis://`) that
 * every gateway instance reads. Both give the same guarantee: every read-modify-write (a gateway's
 * check, `mcpctx gateway pins`) runs holding the document's lock and reads it inside, so
 * concurrent checks and approvals lose nothing; a document that cannot be read is `unreadable` and
 * its users fail closed.
 */
import { McpctxError } from '../../errors/index.js';
import { readPinFile, writePinFile, type PinFileRead } from './_pin-file.js';
import { withPinFileLock } from './_pin-lock.js';
import type { PinFile } from './_pins.js';

/** What a holder of the lock may do: read the document, and write it whole. */
export interface LockedPins {
  read(): Promise<PinFileRead>;
  write(pins: PinFile): Promise<void>;
}

export interface PinDocument {
  /** How messages name it: `the pin file FILE`, or `the shared pins at redis://host:port/db (key K)` (never a password). */
  readonly label: string;
  /** What `mcpctx gateway pins` takes to list and approve it: the file, or the state URL. */
  readonly target: string;
  /**
   * Runs `work` holding the document's lock. Rejects (IO, or STATE_UNAVAILABLE for a shared one)
   * when the lock cannot be had within `waitMs`; `work`'s own rejection passes through after the
   * lock is released.
   */
  withLock<T>(work: (pins: LockedPins) => Promise<T>, waitMs?: number): Promise<T>;
}

/** The pins in a file (0600, written through a rename), locked with proper-lockfile. */
export function pinFileDocument(file: string): PinDocument {
  const locked: LockedPins = { read: () => readPinFile(file), write: (pins) => writePinFile(file, pins) };
  return {
    label: `the pin file ${file}`,
    target: file,
    withLock: (work, waitMs) => withPinFileLock(file, () => work(locked), waitMs),
  };
}

/**
 * A team moving its gateway to a shared state keeps its approvals: when the shared pins are empty
 * and the config's pin file exists, the file's pins are copied in (under the shared lock, so two
 * instances starting at once copy once). True when it copied. A pin file that cannot be read is an
 * IO error: starting with nothing trusted would silently drop the team's approvals.
 */
export async function seedSharedPins(shared: PinDocument, file: string): Promise<boolean> {
  const local = await readPinFile(file);
  if (local.status === 'absent') return false;
  if (local.status === 'unreadable') {
    throw new McpctxError('IO', `The pin file ${file} cannot be copied into ${shared.label}: ${local.reason}. Repair it, or remove pin.file's file to start the shared pins empty.`, { file });
  }
  return shared.withLock(async (locked) => {
    if ((await locked.read()).status !== 'absent') return false;
    await locked.write(local.pins);
    return true;
  });
}
