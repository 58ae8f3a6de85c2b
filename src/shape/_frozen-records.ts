import { readFile } from 'node:fs/promises';
import { McpctxError } from '../errors/index.js';
import { sha256Hex } from '../tokens/index.js';

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
 * A snapshot of records on disk that must not change under a session. `current()` re-reads the
 * files on every call; when their bytes changed it loads the new snapshot, calls `onChange`, and
 * throws SOURCE_CHANGED so that the call that noticed it fails instead of mixing revisions.
 */
export class FrozenRecords {
  readonly #options: FrozenRecordsOptions;
  #snapshot: FrozenSnapshot;
  #bytesHash: string;

  private constructor(options: FrozenRecordsOptions, snapshot: FrozenSnapshot, bytesHash: string) {
    this.#options = options;
    this.#snapshot = snapshot;
    this.#bytesHash = bytesHash;
  }

  /** Loads and validates the files; INVALID_RECORDS names the record and the rule it breaks. */
  static async load(options: FrozenRecordsOptions): Promise<FrozenRecords> {
    const bytes = await readSource(options);
    return new FrozenRecords(options, parseSnapshot(bytes, options), bytes.hash);
  }

  /** The snapshot as last loaded, without re-checking the files. */
  get snapshot(): FrozenSnapshot {
    return this.#snapshot;
  }

  /** The snapshot, after checking that the files still hold exactly the bytes it came from. */
  async current(): Promise<FrozenSnapshot> {
    const bytes = await readSource(this.#options);
    if (bytes.hash === this.#bytesHash) return this.#snapshot;
    const previous = this.#snapshot.revision;
    this.#options.onChange?.();
    // Broken new content fails this call and every later one until the files are fixed.
    try {
      this.#snapshot = parseSnapshot(bytes, this.#options);
    } catch (error) {
      const rule = (error as Error).message.replace(/\.$/, '');
      throw new McpctxError(
        'INVALID_RECORDS',
        `The server's data changed during this session and is now invalid (${rule}). ` +
          'Nothing can be served until the data is fixed: report this to whoever runs the server, or retry later.',
        { ...(error instanceof McpctxError ? error.data : {}), previous },
        { cause: error },
      );
    }
    this.#bytesHash = bytes.hash;
    throw new McpctxError(
      'SOURCE_CHANGED',
      `The data changed during this session (revision ${short(previous)} is now ${short(this.#snapshot.revision)}). ` +
        'Results and cursors from before are void; repeat the query without a cursor.',
      { previous, current: this.#snapshot.revision },
    );
  }
}

interface SourceBytes {
  readonly snapshot: Buffer;
  readonly fields: Buffer | undefined;
  readonly hash: string;
}

async function readSource(options: FrozenRecordsOptions): Promise<SourceBytes> {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const snapshot = await readLimited(options.path, maxBytes, 'snapshot');
  const fields = options.fieldsPath === undefined ? undefined : await readLimited(options.fieldsPath, maxBytes, 'allowlist');
  const hash = sha256Hex(Buffer.concat([Buffer.from(sha256Hex(snapshot)), Buffer.from(fields === undefined ? '' : sha256Hex(fields))]));
  return { snapshot, fields, hash };
}

async function readLimited(path: string, maxBytes: number, what: string): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new McpctxError('IO', `Cannot read the ${what} file ${path}: ${(error as Error).message}`, { path }, { cause: error });
  }
  if (bytes.length > maxBytes) {
    throw new McpctxError('INVALID_RECORDS', `The ${what} file ${path} is ${bytes.length} bytes, over the limit of ${maxBytes}.`, { path });
  }
  return bytes;
}

function parseSnapshot(bytes: SourceBytes, options: FrozenRecordsOptions): FrozenSnapshot {
  const maxRecords = options.maxRecords ?? 100_000;
  const maxFieldChars = options.maxFieldChars ?? 10_000;
  const where = options.path;
  const parsed = parseJson(bytes.snapshot, where);
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
  const fields = bytes.fields === undefined ? [...present] : parseAllowlist(bytes.fields, options.fieldsPath ?? '', present);
  return { records, fields, presentFields: [...present], revision: bytes.hash };
}

function parseAllowlist(bytes: Buffer, where: string, present: ReadonlySet<string>): string[] {
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

function parseJson(bytes: Buffer, where: string): unknown {
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

/** Id order: ids made only of digits compare as numbers ("2" before "10"), others as code points. */
export function compareIds(a: string, b: string): number {
  const numeric = /^\d+$/;
  if (numeric.test(a) && numeric.test(b)) {
    const left = a.replace(/^0+(?=\d)/, '');
    const right = b.replace(/^0+(?=\d)/, '');
    if (left.length !== right.length) return left.length - right.length;
    if (left !== right) return left < right ? -1 : 1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}
