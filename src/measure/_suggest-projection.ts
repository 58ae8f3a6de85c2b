import { countTokens } from '../tokens/index.js';
import { isPlainObject, isScalar, type JsonObject } from './_json-value.js';

/** Lists up to this many characters of JSON in every record are kept whole. */
export const SHORT_TEXT_CHARS = 80;
/** Text up to this many characters is kept whole; longer text becomes a preview this long, with a `<field>_truncated` flag. */
export const PREVIEW_CHARS = 280;
/** Hex digests (a git sha, a sha256): 32 hex digits or more. */
const OPAQUE_HASH = /^[0-9a-f]{32,}$/i;
/** A nested object is reduced to the first of these it holds. */
export const IDENTIFYING_KEYS = Object.freeze(['login', 'name', 'full_name', 'key', 'title', 'ref', 'label', 'number', 'id']);

/** One field of the suggested projection. */
export interface SuggestedField {
  /** The name in the projected record. */
  name: string;
  /** Where its value comes from: `number`, `user.login`, `labels[].name`. */
  source: string;
  /** Why it is kept, and in what form. */
  rule: string;
  /** For long text: the preview length, in characters. */
  previewChars?: number;
  /** For long text: the boolean field saying that this record's text was cut. */
  truncatedFlag?: string;
}

export interface DroppedField {
  path: string;
  reason: string;
}

/** A projection of the records that keeps what a follow-up needs; computed, never applied to anything. */
export interface ProjectionSuggestion {
  label: 'suggestion, not applied';
  fields: SuggestedField[];
  dropped: DroppedField[];
  /** o200k tokens of the compact JSON of the projected records (the projected object for a single object); null when there is nothing to project. */
  tokens: number | null;
  /** `tokens` / tokens of the whole payload, rounded to 4 decimals. */
  share: number | null;
  note?: string;
}

type Project = (record: JsonObject, out: JsonObject) => void;

interface Plan {
  field?: SuggestedField;
  dropped: DroppedField[];
  project?: Project;
}

/**
 * Suggests a projection of records: identifiers, scalars and short strings kept; links dropped
 * (but `html_url`, one human link); each nested object reduced to one identifying value; long text
 * as a capped preview with a flag. Every projected record has the same keys (null where a record
 * lacks the field, the flag in every record). The token total is counted on the projected records, not estimated.
 */
export function suggestProjection(
  records: readonly JsonObject[],
  options: { single: boolean; payloadTokens: number },
): ProjectionSuggestion {
  const plans = fieldNames(records).map((key) => planField(key, presentValues(records, key), records.length));
  const projected = records.map((record) => {
    const out: JsonObject = {};
    for (const plan of plans) plan.project?.(record, out);
    return out;
  });
  const tokens = countTokens(JSON.stringify(options.single ? (projected[0] ?? {}) : projected));
  return {
    label: 'suggestion, not applied',
    fields: plans.flatMap((plan) => (plan.field ? [plan.field] : [])),
    dropped: plans.flatMap((plan) => plan.dropped),
    tokens,
    share: options.payloadTokens > 0 ? Math.round((tokens / options.payloadTokens) * 10_000) / 10_000 : null,
  };
}

/** Why nothing can be projected (a payload that is not records), in the same shape. */
export function noProjection(note: string): ProjectionSuggestion {
  return { label: 'suggestion, not applied', fields: [], dropped: [], tokens: null, share: null, note };
}

function planField(key: string, values: readonly unknown[], recordCount: number): Plan {
  if (key === '_links') return drop(key, 'hypermedia links, rebuildable');
  if (values.some(isPlainObject)) return planNested(key, values.filter(isPlainObject));
  if (values.some(Array.isArray)) return planList(key, values.filter(Array.isArray));
  if (isIdentifierName(key)) return keep(key, 'identifier');
  const constant = constantValue(values, recordCount);
  if (constant !== undefined) return drop(key, `the same value in all ${recordCount} records (${constant}): say it once, not per record`);
  if (key === 'html_url') return keep(key, 'one human link');
  if (isLinkField(key, values)) return drop(key, 'rebuildable link');
  const strings = values.filter((value): value is string => typeof value === 'string');
  if (strings.length > 0 && strings.every((text) => OPAQUE_HASH.test(text))) {
    return drop(key, 'opaque hash: many tokens per record and nothing to read; the item itself carries it');
  }
  // Text that fits in a preview is kept whole: a preview of it would only add a flag.
  if (strings.some((text) => text.length > PREVIEW_CHARS)) return planPreview(key);
  return keep(key, strings.length > 0 ? `text of ${PREVIEW_CHARS} characters or fewer` : 'scalar');
}

/** The JSON of the one value every record holds for a field, when there are two or more records. */
function constantValue(values: readonly unknown[], recordCount: number): string | undefined {
  if (recordCount < 2 || values.length !== recordCount) return undefined;
  const first = JSON.stringify(values[0]);
  return values.every((value) => JSON.stringify(value) === first) ? first : undefined;
}

function planNested(key: string, objects: readonly JsonObject[]): Plan {
  const id = identifyingKey(objects);
  if (id === undefined) {
    return drop(key, `nested object with no identifying value (${IDENTIFYING_KEYS.join(', ')})`);
  }
  const source = `${key}.${id}`;
  return {
    field: { name: key, source, rule: 'nested object, reduced to its identifying value' },
    dropped: fieldNames(objects)
      .filter((child) => child !== id)
      .map((child) => ({ path: `${key}.${child}`, reason: `nested object, reduced to ${source}` })),
    project: (record, out) => {
      const value = memberOf(record, key);
      setMember(out, key, isPlainObject(value) ? scalarOrNull(memberOf(value, id)) : scalarOrNull(value));
    },
  };
}

function planList(key: string, lists: readonly unknown[][]): Plan {
  const items = lists.flat();
  if (items.length > 0 && items.every(isPlainObject)) {
    const id = identifyingKey(items);
    if (id === undefined) return drop(key, `list of nested objects with no identifying value (${IDENTIFYING_KEYS.join(', ')})`);
    return {
      field: { name: key, source: `${key}[].${id}`, rule: 'list of nested objects, reduced to their identifying values' },
      dropped: [],
      project: (record, out) => {
        const value = memberOf(record, key);
        const reduce = (item: unknown): unknown => scalarOrNull(isPlainObject(item) ? memberOf(item, id) : item);
        setMember(out, key, Array.isArray(value) ? value.map(reduce) : scalarOrNull(value));
      },
    };
  }
  if (lists.every((list) => JSON.stringify(list).length <= SHORT_TEXT_CHARS)) return keep(key, `short list (${SHORT_TEXT_CHARS} characters or fewer)`);
  return drop(key, `long list (over ${SHORT_TEXT_CHARS} characters in some record)`);
}

function planPreview(key: string): Plan {
  const flag = `${key}_truncated`;
  return {
    field: { name: key, source: key, rule: `long text, preview of ${PREVIEW_CHARS} characters`, previewChars: PREVIEW_CHARS, truncatedFlag: flag },
    dropped: [],
    project: (record, out) => {
      const value = memberOf(record, key);
      if (typeof value !== 'string') {
        setMember(out, key, value);
        setMember(out, flag, false);
        return;
      }
      setMember(out, key, preview(value));
      setMember(out, flag, value.length > PREVIEW_CHARS);
    },
  };
}

function keep(key: string, rule: string): Plan {
  return {
    field: { name: key, source: key, rule },
    dropped: [],
    project: (record, out) => setMember(out, key, memberOf(record, key)),
  };
}

function drop(path: string, reason: string): Plan {
  return { dropped: [{ path, reason }] };
}

/** `id`, `number`, `key`, `name`, or a name ending in `_id`. */
function isIdentifierName(key: string): boolean {
  return key === 'id' || key === 'number' || key === 'key' || key === 'name' || key.endsWith('_id');
}

/** `url`, a name ending in `_url`, or values that are all links. */
function isLinkField(key: string, values: readonly unknown[]): boolean {
  if (key === 'url' || key.endsWith('_url')) return true;
  const present = values.filter((value) => value !== null);
  return present.length > 0 && present.every((value) => typeof value === 'string' && /^https?:\/\//i.test(value));
}

/** The first identifying key every object holds as a value (not null), else the first any of them holds. */
function identifyingKey(objects: readonly JsonObject[]): string | undefined {
  const holds = (object: JsonObject, key: string): boolean => Object.hasOwn(object, key) && isScalar(object[key]) && object[key] !== null;
  return IDENTIFYING_KEYS.find((key) => objects.every((object) => holds(object, key))) ?? IDENTIFYING_KEYS.find((key) => objects.some((object) => holds(object, key)));
}

/** Field names in the order they first appear across the records. */
function fieldNames(records: readonly JsonObject[]): string[] {
  const names = new Set<string>();
  for (const record of records) for (const key of Object.keys(record)) names.add(key);
  return [...names];
}

function presentValues(records: readonly JsonObject[], key: string): unknown[] {
  return records.filter((record) => Object.hasOwn(record, key)).map((record) => record[key]);
}

/** A record's member; null when the record lacks it, so every projected record has the same keys. */
function memberOf(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : null;
}

function scalarOrNull(value: unknown): unknown {
  return isScalar(value) ? value : null;
}

/** The first PREVIEW_CHARS characters, never ending inside a surrogate pair. */
function preview(text: string): string {
  if (text.length <= PREVIEW_CHARS) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(PREVIEW_CHARS - 1)) ? PREVIEW_CHARS - 1 : PREVIEW_CHARS;
  return text.slice(0, end);
}

/** Defines a member, so a key such as `__proto__` is an ordinary key. */
function setMember(object: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
