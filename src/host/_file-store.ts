import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, linkSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { McpctxError } from '../errors/index.js';
import { PRIVATE_FILE_MODE } from '../private-file/index.js';
import { storeSettings, type OffloadStore, type OffloadStoreOptions } from '../gateway/results/index.js';

/** The folder of a host's kept results when none is given: $MCPCTX_HOST_STORE, else the user's cache folder (under `home`). */
export function defaultHostStoreDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (env.MCPCTX_HOST_STORE !== undefined && env.MCPCTX_HOST_STORE !== '') return env.MCPCTX_HOST_STORE;
  const cache = env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : join(home, '.cache');
  return join(cache, 'mcpctx', 'host-results');
}

const PRIVATE_DIR_MODE = 0o700;
/** Store ids are 24 hex characters; any name safe as a file name is taken, as the other stores take any id. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const ENTRY = /^[A-Za-z0-9_-]{1,64}\.json$/;
const KEY_FILE = 'key';
const KEY_BYTES = 32;

/**
 * An offload store in a folder, one 0600 file per entry in a 0700 folder: what a host keeps when
 * the hook that shapes a result and the read_result server that reads it are separate processes
 * (Claude Code runs a command hook per call). Each entry is written to a temporary file and
 * renamed into place, so concurrent hooks never see half an entry. The bounds are the memory
 * store's: entries older than ttlMs are gone, the sum of entry bytes stays under maxBytes (oldest
 * evicted first).
 */
export function createFileStore(dir: string, options?: OffloadStoreOptions): OffloadStore {
  const { ttlMs, maxBytes, now } = storeSettings(options);
  if (typeof dir !== 'string' || dir === '') throw new McpctxError('INVALID_ARGUMENT', 'The file store needs a folder path.');
  privateDir(dir);
  let closed = false;
  const open = (): void => {
    if (closed) throw new McpctxError('IO', 'The offload store is closed.');
  };
  const fileOf = (id: string): string => {
    if (!ID.test(id)) throw new McpctxError('INVALID_ARGUMENT', `Not a store id: ${JSON.stringify(id).slice(0, 40)}.`);
    return join(dir, `${id}.json`);
  };
  const remove = (file: string): void => {
    try {
      unlinkSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(`Cannot remove ${file}`, error);
    }
  };
  return {
    ttlMs,
    maxBytes,
    now: () => now(),
    put(id, value) {
      open();
      const file = fileOf(id);
      const bytes = Buffer.byteLength(value, 'utf8');
      if (bytes > maxBytes) return { stored: false, bytes, maxBytes };
      const at = now();
      remove(file);
      // Expired entries go; then the oldest until the new one fits.
      const entries = listEntries(dir).filter((entry) => {
        if (at - entry.at < ttlMs) return true;
        remove(entry.file);
        return false;
      });
      let total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
      for (const entry of entries.sort((a, b) => a.at - b.at)) {
        if (total + bytes <= maxBytes) break;
        remove(entry.file);
        total -= entry.bytes;
      }
      const temporary = join(dir, `.${id}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        writeFileSync(temporary, `${at}\n${value}`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
        renameSync(temporary, file);
      } catch (error) {
        remove(temporary);
        throw ioError(`Cannot write ${file}`, error);
      }
      return { stored: true, at, bytes };
    },
    get(id) {
      open();
      const file = fileOf(id);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw ioError(`Cannot read ${file}`, error);
      }
      const split = text.indexOf('\n');
      const at = Number(text.slice(0, split));
      if (split < 1 || !Number.isSafeInteger(at) || now() - at >= ttlMs) {
        remove(file);
        return undefined;
      }
      return text.slice(split + 1);
    },
    delete(id) {
      open();
      remove(fileOf(id));
    },
    close() {
      closed = true;
    },
  };
}

/**
 * The folder's HMAC key for handles and cursors (32 random bytes in a 0600 file), made on first
 * use: the hook that issues a handle and the server that reads it must share it. Two processes
 * making it at once agree: the key is linked into place only if none is there, and both read it.
 */
export function fileStoreKey(dir: string): Uint8Array {
  privateDir(dir);
  const file = join(dir, KEY_FILE);
  const existing = readKey(file);
  if (existing !== undefined) return existing;
  const temporary = join(dir, `.key.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, randomBytes(KEY_BYTES), { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    try {
      linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } catch (error) {
    throw ioError(`Cannot make the key ${file}`, error);
  } finally {
    try {
      unlinkSync(temporary);
    } catch {
      // Already gone.
    }
  }
  const made = readKey(file);
  if (made === undefined) throw new McpctxError('IO', `The key ${file} is not ${KEY_BYTES} bytes; remove it and the results it signed.`, { file });
  return made;
}

function readKey(file: string): Uint8Array | undefined {
  try {
    const key = readFileSync(file);
    return key.length === KEY_BYTES ? new Uint8Array(key) : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError(`Cannot read the key ${file}`, error);
  }
}

/** The folder, made 0700 (an existing one is narrowed to 0700: it holds whole tool results). */
function privateDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    if (process.platform !== 'win32' && (statSync(dir).mode & 0o077) !== 0) chmodSync(dir, PRIVATE_DIR_MODE);
  } catch (error) {
    throw ioError(`Cannot make the store folder ${dir}`, error);
  }
}

interface ListedEntry {
  readonly file: string;
  readonly at: number;
  readonly bytes: number;
}

/** The entries with their time (the first line) and value bytes; unreadable ones are skipped. */
function listEntries(dir: string): ListedEntry[] {
  const entries: ListedEntry[] = [];
  const head = Buffer.alloc(24);
  for (const name of readdirSync(dir)) {
    if (!ENTRY.test(name)) continue;
    const file = join(dir, name);
    let fd: number | undefined;
    try {
      fd = openSync(file, constants.O_RDONLY);
      const read = readSync(fd, head, 0, head.length, 0);
      const text = head.subarray(0, read).toString('latin1');
      const split = text.indexOf('\n');
      const size = statSync(file).size;
      const at = Number(text.slice(0, split));
      if (split > 0 && Number.isSafeInteger(at)) entries.push({ file, at, bytes: size - split - 1 });
    } catch {
      // Gone meanwhile (another process evicted it).
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return entries;
}

function ioError(what: string, error: unknown): McpctxError {
  return new McpctxError('IO', `${what}: ${(error as Error).message}`, undefined, { cause: error });
}
