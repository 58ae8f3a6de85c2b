import { constants, open, stat, type FileHandle } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { McpctxError, type McpctxErrorData } from '../../errors/index.js';
import { sha256Hex } from '../../tokens/index.js';

/** A flat record: every value a string; `id` unique and non-empty, `revision` present. */
export type FlatRecord = Readonly<Record<string, string>> & { readonly id: string; readonly revision: string };

export interface FrozenRecordsOptions {
  /** The JSON array of flat records. */
  readonly path: string;
  /**
   * Optional allowlist file: a JSON array of field names (or `{ "fields": [...] }`) that must
   * include `id` and `revision` and name only fields the snapshot has. Checked with the snapshot.
   */
  readonly fieldsPath?: string;
  /** Most records accepted; default 100,000. */
  readonly maxRecords?: number;
  /** Longest string value accepted, in characters; default 10,000. */
  readonly maxFieldChars?: number;
  /** Largest file accepted, in bytes; default 64 MiB. */
  readonly maxBytes?: number;
  /** Called when a re-check finds a changed file (for example to clear a result cache). */
  readonly onChange?: () => void;
}

export interface FrozenSnapshot {
  readonly records: readonly FlatRecord[];
  /** Field names allowed out: the allowlist if given, else every field of the snapshot. */
  readonly fields: readonly string[];
  /** Every field some record has (a superset of `fields`), to tell unknown from not allowed. */
  readonly presentFields: readonly string[];
  /** Hash of the snapshot's bytes (and the allowlist's), so any edit is a new revision. */
  readonly revision: string;
}

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const REQUIRED_FIELDS = ['id', 'revision'] as const;

/**
 * A snapshot of records on disk that must not change under a session. `current()` checks the
 * files on every call: when neither file's identity changed (size, modification time in
 * nanoseconds, inode, change time) it answers from memory; otherwise it reads and hashes them, and
 * when their bytes changed it loads the new snapshot, calls `onChange`, and throws SOURCE_CHANGED so
 * that the call that noticed it fails instead of mixing revisions. Files are read only when they
 * are regular files within `maxBytes`, and never more than `maxBytes` + 1 bytes.
 *
 * The identity check trusts the file system's clock: a rewrite with the same size, inode and
 * timestamps (a file system with coarse timestamps, or a writer that restores them) is not seen.
 * Replace files atomically (write a new file, rename it over the old one): the inode changes.
 */
export class FrozenRecords {
  readonly #options: FrozenRecordsOptions;
  #snapshot: FrozenSnapshot;
  #bytesHash: string;
  #identity: string;

  private constructor(options: FrozenRecordsOptions, snapshot: FrozenSnapshot, source: SourceBytes) {
    this.#options = options;
    this.#snapshot = snapshot;
    this.#bytesHash = source.hash;
    this.#identity = source.identity;
  }

  /** Loads and validates the files; INVALID_RECORDS names the record and the rule it breaks. */
  static async load(options: FrozenRecordsOptions): Promise<FrozenRecords> {
    checkOptions(options);
    const source = await readSource(options);
    return new FrozenRecords(options, parseSnapshot(source, options), source);
  }

  /** The snapshot as last loaded, without re-checking the files. */
  get snapshot(): FrozenSnapshot {
    return this.#snapshot;
  }

  /** The snapshot, after checking that the files still hold exactly the bytes it came from. */
  async current(): Promise<FrozenSnapshot> {
    if ((await sourceIdentity(this.#options)) === this.#identity) return this.#snapshot;
    const source = await readSource(this.#options);
    if (source.hash === this.#bytesHash) {
      // Touched or copied over with the same bytes: nothing changed for the model.
      this.#identity = source.identity;
      return this.#snapshot;
    }
    const previous = this.#snapshot.revision;
    this.#options.onChange?.();
    // Broken new content fails this call and every later one until the files are fixed.
    try {
      this.#snapshot = parseSnapshot(source, this.#options);
    } catch (error) {
      const rule = (error as Error).message.replace(/\.$/, '');
      throw new McpctxError(
        'INVALID_RECORDS',
        `The server's data changed during this session and is now invalid (${rule}). ` +
          'Nothing can be served until the data is fixed: report this to whoever runs the server, or retry later.',
        // parseSnapshot throws INVALID_RECORDS: its keys are this error's.
        { ...(error instanceof McpctxError ? (error.data as McpctxErrorData['INVALID_RECORDS']) : {}), previous },
        { cause: error },
      );
    }
    this.#bytesHash = source.hash;
    this.#identity = source.identity;
    throw new McpctxError(
      'SOURCE_CHANGED',
      `The data changed during this session (revision ${short(previous)} is now ${short(this.#snapshot.revision)}). ` +
        'Results and cursors from before are void; repeat the query without a cursor.',
      { previous, current: this.#snapshot.revision },
    );
  }
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

interface SourceBytes {
  readonly snapshot: Buffer;
  readonly fields: Buffer | undefined;
  readonly hash: string;
  /** The files' identities when they were opened, as `sourceIdentity` computes them. */
  readonly identity: string;
}

function checkOptions(options: FrozenRecordsOptions): void {
  for (const name of ['maxRecords', 'maxFieldChars', 'maxBytes'] as const) {
    const value = options[name];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      throw new McpctxError('INVALID_ARGUMENT', `FrozenRecords: ${name} must be a positive integer, got ${String(value)}.`);
    }
  }
}

async function readSource(options: FrozenRecordsOptions): Promise<SourceBytes> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const snapshot = await readLimited(options.path, maxBytes, 'snapshot');
  const fields = options.fieldsPath === undefined ? undefined : await readLimited(options.fieldsPath, maxBytes, 'allowlist');
  const hash = sha256Hex(
    Buffer.concat([Buffer.from(sha256Hex(snapshot.bytes)), Buffer.from(fields === undefined ? '' : sha256Hex(fields.bytes))]),
  );
  return { snapshot: snapshot.bytes, fields: fields?.bytes, hash, identity: joinIdentities(snapshot.identity, fields?.identity) };
}

/** The identities of the files now, without opening them. */
async function sourceIdentity(options: FrozenRecordsOptions): Promise<string> {
  const snapshot = identityOf(await statOf(options.path, 'snapshot'));
  const fields = options.fieldsPath === undefined ? undefined : identityOf(await statOf(options.fieldsPath, 'allowlist'));
  return joinIdentities(snapshot, fields);
}

function joinIdentities(snapshot: string, fields: string | undefined): string {
  return `${snapshot}|${fields ?? ''}`;
}

function identityOf(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

async function statOf(path: string, what: string): Promise<BigIntStats> {
  try {
    return await stat(path, { bigint: true });
  } catch (error) {
    throw cannotRead(path, what, error);
  }
}

/**
 * The file's bytes, checked before reading: a regular file (a FIFO, a device or a directory is
 * refused, so `/dev/zero` or a pipe nobody writes cannot hang the server) of at most `maxBytes`.
 * Reads at most `maxBytes` + 1 bytes, so a file that grows while it is read is refused too.
 */
async function readLimited(path: string, maxBytes: number, what: string): Promise<{ bytes: Buffer; identity: string }> {
  let handle: FileHandle;
  try {
    // Non-blocking, so that opening a FIFO with no writer returns at once (and is then refused).
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw cannotRead(path, what, error);
  }
  try {
    const info = await handle.stat({ bigint: true });
    if (!info.isFile()) {
      throw new McpctxError('IO', `The ${what} file ${path} is not a regular file (it is ${kindOf(info)}); give the path of a JSON file.`, {
        path,
        reason: 'not-a-file',
      });
    }
    if (info.size > BigInt(maxBytes)) throw tooLarge(path, what, info.size.toLocaleString('en-US'), maxBytes);
    const bytes = await readAtMost(handle, Number(info.size), maxBytes);
    if (bytes === undefined) throw tooLarge(path, what, `more than ${maxBytes.toLocaleString('en-US')}`, maxBytes);
    return { bytes, identity: identityOf(info) };
  } catch (error) {
    if (error instanceof McpctxError) throw error;
    throw cannotRead(path, what, error);
  } finally {
    await handle.close();
  }
}

/** Up to `maxBytes` bytes of the file from its start, or undefined when it holds more. */
async function readAtMost(handle: FileHandle, expected: number, maxBytes: number): Promise<Buffer | undefined> {
  // One byte more than the size it had: reading it means the file grew since it was checked.
  let buffer = Buffer.allocUnsafe(Math.min(expected, maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > maxBytes) return undefined;
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) return buffer.subarray(0, length);
    length += bytesRead;
  }
}

function kindOf(info: BigIntStats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a file';
}

function tooLarge(path: string, what: string, size: string, maxBytes: number): McpctxError {
  return new McpctxError('INVALID_RECORDS', `The ${what} file ${path} is ${size} bytes, over the limit of ${maxBytes.toLocaleString('en-US')}.`, {
    path,
    maxBytes,
  });
}

function cannotRead(path: string, what: string, error: unknown): McpctxError {
  return new McpctxError('IO', `Cannot read the ${what} file ${path}: ${(error as Error).message}`, { path }, { cause: error });
}

function parseSnapshot(bytes: SourceBytes, options: FrozenRecordsOptions): FrozenSnapshot {
  return { ...parseFlatRecords({ ...options, snapshot: bytes.snapshot, fields: bytes.fields }), revision: bytes.hash };
}

export interface FlatRecordsBytes {
  /** The snapshot file's bytes (UTF-8 JSON) and its path, for messages. */
  readonly snapshot: Uint8Array;
  readonly path: string;
  /** The allowlist file's bytes and path, when there is one. */
  readonly fields?: Uint8Array | undefined;
  readonly fieldsPath?: string | undefined;
  readonly maxRecords?: number | undefined;
  readonly maxFieldChars?: number | undefined;
}

/**
 * The records and allowlist in bytes already read, checked by the rules `FrozenRecords.load`
 * applies (the same function), for callers that must hash and parse one read of the files.
 * Throws INVALID_RECORDS naming the file, the record (index and id) and the rule.
 */
export function parseFlatRecords(input: FlatRecordsBytes): { records: FlatRecord[]; fields: string[]; presentFields: string[] } {
  const maxRecords = input.maxRecords ?? 100_000;
  const maxFieldChars = input.maxFieldChars ?? 10_000;
  const where = input.path;
  const parsed = parseJson(input.snapshot, where);
  if (!Array.isArray(parsed)) throw invalid(where, 'the snapshot must be a JSON array of records.');
  if (parsed.length > maxRecords) throw invalid(where, `it holds ${parsed.length} records, over the limit of ${maxRecords}.`);
  const ids = new Set<string>();
  const present = new Set<string>();
  const records = parsed.map((record: unknown, index): FlatRecord => {
    const label = `record ${index}`;
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw invalid(where, `${label} is not an object.`);
    const entries = Object.entries(record as Record<string, unknown>);
    const named = typeof (record as { id?: unknown }).id === 'string' ? `${label} (id "${(record as { id: string }).id}")` : label;
    for (const [key, value] of entries) {
      if (!FIELD_NAME.test(key)) throw invalid(where, `${named}: field name ${JSON.stringify(key)} is not like an identifier (letters, digits, _; not starting with a digit).`);
      if (typeof value !== 'string') throw invalid(where, `${named}: field "${key}" is not a string (records are flat: every value is a string).`);
      if (value.length > maxFieldChars) throw invalid(where, `${named}: field "${key}" has ${value.length} characters, over the limit of ${maxFieldChars}.`);
      present.add(key);
    }
    const { id, revision } = record as { id?: unknown; revision?: unknown };
    if (typeof id !== 'string' || id === '') throw invalid(where, `${named}: "id" must be a non-empty string.`);
    if (ids.has(id)) throw invalid(where, `${named}: "id" repeats an earlier record; ids must be unique.`);
    ids.add(id);
    if (typeof revision !== 'string') throw invalid(where, `${named}: "revision" must be a string.`);
    // No prototype: a field name such as "constructor" that a record lacks reads as undefined.
    return Object.assign(Object.create(null) as Record<string, string>, record) as FlatRecord;
  });
  const fields = input.fields === undefined ? [...present] : parseAllowlist(input.fields, input.fieldsPath ?? '', present);
  return { records, fields, presentFields: [...present] };
}

function parseAllowlist(bytes: Uint8Array, where: string, present: ReadonlySet<string>): string[] {
  const parsed = parseJson(bytes, where);
  const list: unknown = Array.isArray(parsed) ? parsed : (parsed as { fields?: unknown } | null)?.fields;
  if (!Array.isArray(list) || !list.every((name): name is string => typeof name === 'string')) {
    throw invalid(where, 'the allowlist must be a JSON array of field names, or an object with such an array in "fields".');
  }
  for (const required of REQUIRED_FIELDS) {
    if (!list.includes(required)) throw invalid(where, `the allowlist must include "${required}".`);
  }
  const unknown = list.filter((name) => !present.has(name));
  if (unknown.length > 0) throw invalid(where, `the allowlist names fields the snapshot does not have: ${unknown.map((name) => `"${name}"`).join(', ')}.`);
  if (new Set(list).size !== list.length) throw invalid(where, 'the allowlist names a field twice.');
  return list;
}

function parseJson(bytes: Uint8Array, where: string): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  } catch (error) {
    throw invalid(where, `it is not valid UTF-8 JSON (${(error as Error).message}).`);
  }
}

function invalid(path: string, rule: string): McpctxError {
  return new McpctxError('INVALID_RECORDS', `${path}: ${rule}`, { path });
}

function short(revision: string): string {
  return revision.slice(0, 12);
}
