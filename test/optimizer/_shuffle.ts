// Seeded reorderings of an optimizer input that keep everything its order means (the rule is in
// src/optimizer/_recency.ts): every array is permuted and the arrays' keys come in another order,
// but undated records keep their order among themselves, and so do records sharing a timestamp.
// The optimizer must then give the same bytes, except `origin` (`toolOutputs[3]`), which names an
// input position by design; `inInputOrder` maps those back so whole results compare byte for byte.
import { seededRandom } from '../../bench/optimizer/_generate.js';
import { RECORD_ARRAYS, type RecordArrayName } from '../../src/optimizer/_types.js';

type Arrays = Partial<Record<RecordArrayName, unknown[]>>;

export interface Reordered<T> {
  input: T;
  /** For each array, the original index of the record now at each position. */
  from: Partial<Record<RecordArrayName, number[]>>;
  /** Records that changed position: a reordering that moved nothing would prove nothing. */
  moved: number;
}

export { seededRandom };

const ORIGIN = new RegExp(`\\b(${RECORD_ARRAYS.map((entry) => entry.array).join('|')})\\[(\\d+)\\]`, 'g');

/** Records of one array whose relative order is information share a clock key. */
function clockKey(record: unknown): string {
  const timestamp = (record as { timestamp?: unknown }).timestamp;
  return typeof timestamp === 'string' ? `at ${Date.parse(timestamp)}` : 'undated';
}

function permutation(length: number, random: () => number): number[] {
  const order = Array.from({ length }, (_, i) => i);
  for (let i = length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * A random permutation of `records` (for each new position, the original index), then each clock
 * group put back in its own order on the slots it landed on.
 */
export function reorderArray(records: readonly unknown[], random: () => number): number[] {
  const from = permutation(records.length, random);
  const groups = new Map<string, number[]>();
  from.forEach((original, position) => {
    const key = clockKey(records[original]);
    groups.set(key, [...(groups.get(key) ?? []), position]);
  });
  for (const positions of groups.values()) {
    const members = positions.map((position) => from[position]!).sort((a, b) => a - b);
    positions.forEach((position, k) => (from[position] = members[k]!));
  }
  return from;
}

/** The input with its records reordered as described at the top, and its keys in a shuffled order. */
export function reorderInput<T extends object>(input: T, seed: number): Reordered<T> {
  const random = seededRandom(seed);
  const arrays = input as Arrays;
  for (const { array } of RECORD_ARRAYS) {
    if (JSON.stringify(arrays[array] ?? []).match(ORIGIN) !== null) throw new Error(`${array}: record text that looks like an origin would be rewritten by inInputOrder`);
  }
  const from: Reordered<T>['from'] = {};
  const values: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  let moved = 0;
  for (const { array } of RECORD_ARRAYS) {
    const records = arrays[array];
    if (records === undefined) continue;
    const order = reorderArray(records, random);
    from[array] = order;
    values[array] = order.map((original) => records[original]);
    moved += order.filter((original, position) => original !== position).length;
  }
  const keys = Object.keys(values);
  const reordered = Object.fromEntries(permutation(keys.length, random).map((i) => [keys[i]!, values[keys[i]!]]));
  return { input: reordered as T, from, moved };
}

/** A result's JSON with every `array[i]` naming the record's position in the original input. */
export function inInputOrder(result: unknown, reordered: Pick<Reordered<unknown>, 'from'>): string {
  return JSON.stringify(result).replace(ORIGIN, (_, array: RecordArrayName, index: string) => `${array}[${reordered.from[array]![Number(index)]}]`);
}
