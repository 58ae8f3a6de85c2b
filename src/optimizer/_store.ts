import { McpctxError } from '../errors/index.js';
import { RECORD_ARRAYS, type RecordArrayName, type SessionRecords } from './_types.js';
import { parseSessionRecords } from './_validate.js';

/**
 * Where ingested records live between tool calls, in insertion order per array. The size of a
 * record's text is the caller's limit (the server applies its `maxRecordChars` before `add`).
 */
export interface RecordStore {
  /**
   * Stores the whole batch or nothing: a batch that is not the input format (INVALID_RECORDS naming
   * the record and field), or a caller id already stored or repeated in the batch, refuses it all.
   */
  add(records: SessionRecords): { added: number };
  /** Every stored record, each array in insertion order; arrays without records are left out. */
  all(): SessionRecords;
  count(): number;
  close(): void;
}

/**
 * The batch checked as the input format and copied (known fields, plain values), each record's keys
 * in the caller's order: what a store may keep. A store is a public class and cannot trust that its
 * caller validated; text of any length passes, the caller having applied its own limit.
 */
export function storableRecords(records: SessionRecords): SessionRecords {
  const valid = parseSessionRecords(records, { maxRecordChars: Number.MAX_SAFE_INTEGER }) as Record<string, Record<string, unknown>[]>;
  const given = records as Record<string, object[]>;
  const ordered: Record<string, Record<string, unknown>[]> = {};
  for (const [array, copies] of Object.entries(valid)) {
    ordered[array] = copies.map((copy, index) => {
      const record: Record<string, unknown> = {};
      for (const key of Object.keys(given[array]![index]!)) if (Object.hasOwn(copy, key)) record[key] = copy[key];
      return record;
    });
  }
  return ordered as SessionRecords;
}

/** One record of a batch with where it sits in it (`decisions[2]`), in `RECORD_ARRAYS` order. */
export interface BatchEntry {
  array: RecordArrayName;
  index: number;
  record: Record<string, unknown>;
}

export function batchEntries(records: SessionRecords): BatchEntry[] {
  const entries: BatchEntry[] = [];
  for (const { array } of RECORD_ARRAYS) {
    const list = records[array] as readonly object[] | undefined;
    list?.forEach((record, index) => entries.push({ array, index, record: record as Record<string, unknown> }));
  }
  return entries;
}

/** The id the caller gave the record, if any (derived ids are the optimizer's business). */
export function callerId(record: Record<string, unknown>): string | undefined {
  return typeof record.id === 'string' ? record.id : undefined;
}

/**
 * Refuses the batch at its first caller id that is already stored or repeats an earlier id of
 * the batch. Ids name records in source tags, so two records may never share one.
 */
export function checkUniqueIds(entries: readonly BatchEntry[], isStored: (id: string) => boolean): void {
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const id = callerId(entry.record);
    if (id === undefined) continue;
    const where = `${entry.array}[${entry.index}].id`;
    const earlier = seen.get(id);
    if (earlier !== undefined) {
      throw new McpctxError('INVALID_RECORDS', `${where} repeats the id ${JSON.stringify(id)} of ${earlier} in the same batch; ids must be unique`, { path: where, id });
    }
    if (isStored(id)) {
      throw new McpctxError(
        'INVALID_RECORDS',
        `${where} uses the id ${JSON.stringify(id)}, which a stored record already has; ids must be unique across the store (give a new id, or leave it out to get one derived from the content)`,
        { path: where, id },
      );
    }
    seen.set(id, `${entry.array}[${entry.index}]`);
  }
}

/** Groups records back into the input format's arrays, leaving out the empty ones. */
export function groupRecords(rows: Iterable<{ array: RecordArrayName; record: unknown }>): SessionRecords {
  const grouped = new Map<RecordArrayName, unknown[]>();
  for (const { array, record } of rows) {
    const list = grouped.get(array);
    if (list === undefined) grouped.set(array, [record]);
    else list.push(record);
  }
  const result: Record<string, unknown[]> = {};
  for (const { array } of RECORD_ARRAYS) {
    const list = grouped.get(array);
    if (list !== undefined) result[array] = list;
  }
  return result as SessionRecords;
}

/** A store for one process: gone when it ends. Holds copies, so callers may mutate what they passed or got. */
export class MemoryRecordStore implements RecordStore {
  readonly #rows: { array: RecordArrayName; record: Record<string, unknown> }[] = [];
  readonly #ids = new Set<string>();
  #closed = false;

  add(records: SessionRecords): { added: number } {
    this.#checkOpen();
    // storableRecords copies: later changes to the caller's objects do not reach the store.
    const entries = batchEntries(storableRecords(records));
    checkUniqueIds(entries, (id) => this.#ids.has(id));
    for (const row of entries) {
      this.#rows.push({ array: row.array, record: row.record });
      const id = callerId(row.record);
      if (id !== undefined) this.#ids.add(id);
    }
    return { added: entries.length };
  }

  all(): SessionRecords {
    this.#checkOpen();
    return groupRecords(this.#rows.map((row) => ({ array: row.array, record: structuredClone(row.record) })));
  }

  count(): number {
    this.#checkOpen();
    return this.#rows.length;
  }

  close(): void {
    this.#closed = true;
  }

  #checkOpen(): void {
    if (this.#closed) throw new McpctxError('IO', 'the record store is closed');
  }
}
