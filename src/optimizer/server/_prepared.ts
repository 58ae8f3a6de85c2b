// What the server keeps between tool calls, so no call re-reads the store: the stored records as
// given (what build_context's worker builds from), the same records normalized (ids exactly as
// build_context's source tags name them) and the search index over their fragments. Read from the
// store once at start; each successful ingest appends its batch. The index is filled in the
// background in small slices (about 4 s per 10,000 records), so the other tools answer meanwhile;
// a search waits for it.
import { fragmentRecord } from '../_fragments.js';
import { normalizeRecords } from '../_normalize.js';
import { storableRecords, type RecordStore } from '../_store.js';
import { RECORD_ARRAYS, type NormalizedRecord, type RecordArrayName, type SessionRecords } from '../_types.js';
import type { ValidationOptions } from '../_validate.js';
import { FragmentIndex } from './_search.js';

/** Records indexed between two yields to the event loop (a few tens of milliseconds). */
const INDEX_SLICE = 100;

export class PreparedSession {
  readonly #store: RecordStore;
  readonly #validation: ValidationOptions;
  readonly #given: Record<RecordArrayName, unknown[]>;
  #records: NormalizedRecord[] = [];
  readonly #index = new FragmentIndex();
  /** Records not yet in the index, by position (`messages[3]`). */
  readonly #unindexed = new Map<string, NormalizedRecord>();
  #filling: Promise<void> | undefined;
  #closed = false;

  constructor(store: RecordStore, validation: ValidationOptions = {}) {
    this.#store = store;
    this.#validation = validation;
    const stored = store.all() as Record<string, unknown[] | undefined>;
    this.#given = Object.fromEntries(RECORD_ARRAYS.map(({ array }) => [array, [...(stored[array] ?? [])]])) as Record<RecordArrayName, unknown[]>;
    this.#renormalize();
    void this.#fill();
  }

  /** Stores the batch (all or nothing, the store's refusals pass through), then adds it here. Returns what the store kept. */
  ingest(batch: SessionRecords): { added: number; stored: SessionRecords } {
    const stored = storableRecords(batch);
    const { added } = this.#store.add(stored);
    for (const { array } of RECORD_ARRAYS) {
      const list = (stored as Record<string, unknown[] | undefined>)[array];
      if (list !== undefined) this.#given[array].push(...list);
    }
    this.#renormalize();
    void this.#fill();
    return { added, stored };
  }

  /** The records as stored, in the input format: what buildContext takes. Not a copy; do not mutate. */
  given(): SessionRecords {
    const records: Record<string, unknown[]> = {};
    for (const { array } of RECORD_ARRAYS) if (this.#given[array].length > 0) records[array] = this.#given[array];
    return records as SessionRecords;
  }

  /** Every record normalized together, ids as build_context's source tags use them. Not a copy. */
  records(): readonly NormalizedRecord[] {
    return this.#records;
  }

  count(): number {
    return this.#records.length;
  }

  /** The search index with every record in it. */
  async index(): Promise<FragmentIndex> {
    while (this.#unindexed.size > 0 && !this.#closed) await this.#fill();
    return this.#index;
  }

  /** Stops filling the index, so a closed server leaves nothing running. */
  close(): void {
    this.#closed = true;
  }

  /** Adds the unindexed records a slice at a time, yielding to the event loop between slices. */
  #fill(): Promise<void> {
    this.#filling ??= (async () => {
      while (this.#unindexed.size > 0 && !this.#closed) {
        let slice = 0;
        for (const [key, record] of this.#unindexed) {
          this.#unindexed.delete(key);
          this.#index.add(record, fragmentRecord(record));
          if (++slice >= INDEX_SLICE) break;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })().finally(() => {
      this.#filling = undefined;
    });
    return this.#filling;
  }

  /**
   * Normalizes every record again (a later record can change an earlier derived id, so a batch is
   * not normalized alone), and re-indexes only the records whose id or content changed.
   */
  #renormalize(): void {
    const previous = new Map<string, NormalizedRecord>();
    for (const record of this.#records) previous.set(`${record.origin.array}[${record.origin.index}]`, record);
    const records = normalizeRecords(this.given(), this.#validation).records;
    for (const record of records) {
      const key = `${record.origin.array}[${record.origin.index}]`;
      const before = previous.get(key);
      previous.delete(key);
      if (before !== undefined && before.id === record.id && before.contentHash === record.contentHash && before.label === record.label) {
        // Unchanged: what is indexed stays; what waits keeps waiting, as the current record.
        if (this.#unindexed.has(key)) this.#unindexed.set(key, record);
        continue;
      }
      if (before !== undefined) this.#unindex(key, before);
      this.#unindexed.set(key, record);
    }
    for (const [key, gone] of previous) this.#unindex(key, gone);
    this.#records = records;
  }

  #unindex(key: string, record: NormalizedRecord): void {
    if (this.#unindexed.delete(key)) return;
    this.#index.remove(fragmentRecord(record).map((fragment) => fragment.id));
  }
}
