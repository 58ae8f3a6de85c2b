import { isMcpctxError } from '../errors/index.js';
import { defineProjection, truncationFlag, type FieldSpec, type Projection } from '../shape/index.js';
import { countTokens } from '../tokens/index.js';
import { isPlainObject, type JsonObject, setOwn } from '../json/index.js';
import { isContainer, isScalar } from './_json-value.js';

/** Lists up to this many characters of JSON in every record are kept whole. */
export const SHORT_TEXT_CHARS = 80;
/** Text up to this many characters is kept whole; longer text becomes a preview this long, with a `<field>_truncated` flag. */
export const PREVIEW_CHARS = 280;
/** A field holding at least this share of the payload's tokens carries the answer: it is never dropped nor reduced to an identifier. */
export const ANSWER_SHARE = 0.5;
/** Hex digests (a git sha, a sha256): 32 hex digits or more. */
const OPAQUE_HASH = /^[0-9a-f]{32,}$/i;
/** A nested object is reduced to the first of these it holds. */
export const IDENTIFYING_KEYS = Object.freeze(['login', 'name', 'full_name', 'key', 'title', 'ref', 'label', 'number', 'id']);

/** One field of the suggested projection. */
export interface SuggestedField {
  /** The name in the projected record. */
  name: string;
  /** Where its value comes from: a `defineProjection` path (`number`, `user.login`). */
  source: string;
  /** Why it is kept, and in what form. */
  rule: string;
  /** For long text: the preview length, in characters (the FieldSpec's `maxChars`). */
  previewChars?: number;
  /** For long text: the boolean field saying that this record's text was cut. */
  truncatedFlag?: string;
}

export interface DroppedField {
  path: string;
  reason: string;
}

/** A projection of the records that keeps what a follow-up needs; counted, never applied to anything. */
export interface ProjectionSuggestion {
  label: 'suggestion, not applied';
  /** The projection as `defineProjection(spec, { sample: records })` takes it, for the records at the payload's `path`. */
  spec: FieldSpec[];
  fields: SuggestedField[];
  dropped: DroppedField[];
  /** o200k tokens of the payload's compact JSON with the records projected by `defineProjection(spec).apply`; null when there is no suggestion. */
  tokens: number | null;
  /** `tokens` / tokens of the whole payload, rounded to 4 decimals; always under 1. */
  share: number | null;
  /** Why there is no suggestion; null when there is one. */
  note: string | null;
}

export interface ProjectionInput {
  /** The whole payload, as parsed. */
  payload: unknown;
  /** Keys from the payload's root to the records (or to the one object). */
  path: readonly string[];
  records: readonly JsonObject[];
  /** The records are one object (not a list). */
  single: boolean;
  payloadTokens: number;
  /** Tokens of each top-level field of the records, summed over them (see fieldCosts). */
  fieldTokens: ReadonlyMap<string, number>;
}

interface Kept {
  field: SuggestedField;
  /** Kept whole as the answer (said when the suggestion saves nothing). */
  whole: boolean;
}

interface Plan {
  kept: Kept[];
  dropped: DroppedField[];
  /** Why no projection may be suggested at all: the answer cannot be kept. */
  refusal?: string;
}

/**
 * Suggests a projection that never drops the answer. Records keep identifiers, scalars and short
 * text, long text as a preview, a nested object as its identifying value or else its scalar
 * fields; links, hashes and per-record constants are dropped. A field holding ANSWER_SHARE of the
 * payload or more is never dropped nor reduced to an identifier, and a single object keeps it and
 * its lists whole. The suggestion is emitted as the `FieldSpec[]` that `defineProjection` takes;
 * its token figure is that projection applied to the records, and a suggestion that would not cost
 * fewer tokens than the payload is not made (the note says why).
 */
export function suggestProjection(input: ProjectionInput): ProjectionSuggestion {
  const names = fieldNames(input.records);
  if (names.length === 0) return noProjection('the records have no fields: nothing to project');
  const plans = names.map((key) => planField(key, input));
  const refusal = plans.find((plan) => plan.refusal !== undefined)?.refusal;
  if (refusal !== undefined) return noProjection(refusal);
  const { kept, dropped } = withDistinctNames(plans);
  if (kept.length === 0) return noProjection('every field would be dropped: nothing would be left to read');
  const fields = kept.map((entry) => entry.field);
  const spec = fields.map(toFieldSpec);
  let projection: Projection;
  try {
    projection = defineProjection(spec, { sample: input.records });
  } catch (error) {
    if (!isMcpctxError(error, 'INVALID_PROJECTION')) throw error;
    return noProjection(`defineProjection refuses the suggestion: ${error.message}`);
  }
  const projected = input.records.map((record) => projection.apply(record));
  const tokens = countTokens(JSON.stringify(replaceAt(input.payload, input.path, input.single ? projected[0] : projected)));
  if (tokens >= input.payloadTokens) return noProjection(noSaving(tokens, input, kept));
  return { label: 'suggestion, not applied', spec, fields, dropped, tokens, share: ratio(tokens, input.payloadTokens), note: null };
}

/** Why nothing is suggested, in the same shape. */
export function noProjection(note: string): ProjectionSuggestion {
  return { label: 'suggestion, not applied', spec: [], fields: [], dropped: [], tokens: null, share: null, note };
}

function planField(key: string, input: ProjectionInput): Plan {
  const values = presentValues(input.records, key);
  const answerShare = answerShareOf(key, input);
  if (!isPathSegment(key)) {
    if (answerShare !== undefined) {
      return { kept: [], dropped: [], refusal: `"${key}" holds ${percent(answerShare)} of the payload, and a projection path cannot name it (${NAME_LIMIT})` };
    }
    return drop(key, `a projection path cannot name it (${NAME_LIMIT})`);
  }
  if (input.single && answerShare !== undefined) return keep(key, key, `holds ${percent(answerShare)} of the payload: the answer, kept whole`, true);
  if (input.single && values.some(Array.isArray)) return keep(key, key, 'a list in a single object: its content, kept whole', true);
  if (key === '_links' && answerShare === undefined) return drop(key, 'hypermedia links, rebuildable');
  if (values.some(isPlainObject)) return planNested(key, values.filter(isPlainObject), input, answerShare);
  if (values.some(Array.isArray)) {
    if (answerShare !== undefined) return keep(key, key, `holds ${percent(answerShare)} of the payload: the answer, kept whole`, true);
    return planList(key, values.filter(Array.isArray), input.records.length);
  }
  return planScalar({ name: key, path: key, key }, values, input.records.length, answerShare);
}

/** The field's share of the payload when it is ANSWER_SHARE or more. */
function answerShareOf(key: string, input: ProjectionInput): number | undefined {
  if (input.payloadTokens <= 0) return undefined;
  const share = (input.fieldTokens.get(key) ?? 0) / input.payloadTokens;
  return share >= ANSWER_SHARE ? share : undefined;
}

interface Target {
  /** Output name. */
  name: string;
  /** defineProjection path. */
  path: string;
  /** The key the value sits under (what identifier and link rules read). */
  key: string;
}

function planScalar(target: Target, values: readonly unknown[], recordCount: number, answerShare: number | undefined): Plan {
  const { name, path, key } = target;
  const strings = values.filter((value): value is string => typeof value === 'string');
  const long = strings.some((text) => text.length > PREVIEW_CHARS);
  if (answerShare !== undefined) {
    const why = `holds ${percent(answerShare)} of the payload: the answer`;
    return long ? preview(target, `${why}, as a preview of ${PREVIEW_CHARS} characters`) : keep(name, path, `${why}, kept`, true);
  }
  if (isIdentifierName(key)) return keep(name, path, 'identifier');
  const constant = constantValue(values, recordCount);
  if (constant !== undefined) return drop(path, `the same value in all ${recordCount} records (${constant}): say it once, not per record`);
  if (key === 'html_url') return keep(name, path, 'one human link');
  if (isLinkField(key, values)) return drop(path, 'rebuildable link');
  if (strings.length > 0 && strings.every((text) => OPAQUE_HASH.test(text))) {
    return drop(path, 'opaque hash: many tokens per record and nothing to read; the item itself carries it');
  }
  // Text that fits in a preview is kept whole: a preview of it would only add a flag.
  if (long) return preview(target, `long text, preview of ${PREVIEW_CHARS} characters`);
  return keep(name, path, strings.length > 0 ? `text of ${PREVIEW_CHARS} characters or fewer` : 'scalar');
}

/** A nested object: its identifying value, or (no identifying value, or the answer) its scalar fields. */
function planNested(key: string, objects: readonly JsonObject[], input: ProjectionInput, answerShare: number | undefined): Plan {
  const id = answerShare === undefined ? identifyingKey(objects) : undefined;
  if (id !== undefined) {
    const source = `${key}.${id}`;
    return {
      kept: [{ field: { name: key, source, rule: 'nested object, reduced to its identifying value' }, whole: false }],
      dropped: fieldNames(objects)
        .filter((child) => child !== id)
        .map((child) => ({ path: `${key}.${child}`, reason: `nested object, reduced to ${source}` })),
    };
  }
  const why = answerShare === undefined ? 'a nested object with no identifying value' : `which holds ${percent(answerShare)} of the payload`;
  const plan: Plan = { kept: [], dropped: [] };
  for (const child of fieldNames(objects)) {
    const path = `${key}.${child}`;
    const values = presentValues(objects, child);
    if (!isPathSegment(child)) {
      plan.dropped.push({ path, reason: `a projection path cannot name it (${NAME_LIMIT})` });
    } else if (values.some(isContainer)) {
      plan.dropped.push({ path, reason: `an object or list inside ${key}, ${why}` });
    } else {
      const own = planScalar({ name: `${key}_${child}`, path, key: child }, values, input.records.length, undefined);
      plan.kept.push(...own.kept.map((entry) => ({ ...entry, field: { ...entry.field, rule: `${entry.field.rule} (a field of ${key}, ${why})` } })));
      plan.dropped.push(...own.dropped);
    }
  }
  if (plan.kept.length > 0) return plan;
  if (answerShare !== undefined) return keep(key, key, `holds ${percent(answerShare)} of the payload: the answer, kept whole`, true);
  return drop(key, `nested object with no identifying value (${IDENTIFYING_KEYS.join(', ')}) and no scalar field`);
}

function planList(key: string, lists: readonly unknown[][], recordCount: number): Plan {
  const constant = constantValue(lists, recordCount);
  if (constant !== undefined) return drop(key, `the same value in all ${recordCount} records (${constant}): say it once, not per record`);
  if (lists.every((list) => JSON.stringify(list).length <= SHORT_TEXT_CHARS)) return keep(key, key, `short list (${SHORT_TEXT_CHARS} characters or fewer)`);
  const items = lists.flat();
  if (items.length > 0 && items.every(isPlainObject)) {
    const id = identifyingKey(items);
    const where = id === undefined ? '' : ` (their identifying values are at ${key}[].${id})`;
    return drop(key, `list of objects over ${SHORT_TEXT_CHARS} characters in some record: a projection keeps a list whole or leaves it out${where}`);
  }
  return drop(key, `long list (over ${SHORT_TEXT_CHARS} characters in some record)`);
}

function preview(target: Target, rule: string): Plan {
  return {
    kept: [{ field: { name: target.name, source: target.path, rule, previewChars: PREVIEW_CHARS, truncatedFlag: truncationFlag(target.name) }, whole: false }],
    dropped: [],
  };
}

function keep(name: string, source: string, rule: string, whole = false): Plan {
  return { kept: [{ field: { name, source, rule }, whole }], dropped: [] };
}

function drop(path: string, reason: string): Plan {
  return { kept: [], dropped: [{ path, reason }] };
}

/** Every output name (truncation flags included) once: a field whose name is taken is dropped, saying so. */
function withDistinctNames(plans: readonly Plan[]): { kept: Kept[]; dropped: DroppedField[] } {
  const taken = new Set<string>();
  const kept: Kept[] = [];
  const dropped: DroppedField[] = [];
  for (const plan of plans) {
    for (const entry of plan.kept) {
      const names = [entry.field.name, ...(entry.field.truncatedFlag === undefined ? [] : [entry.field.truncatedFlag])];
      const clash = names.find((name) => taken.has(name));
      if (clash !== undefined) {
        dropped.push({ path: entry.field.source, reason: `its output name "${clash}" is taken by another field` });
        continue;
      }
      for (const name of names) taken.add(name);
      kept.push(entry);
    }
    dropped.push(...plan.dropped);
  }
  return { kept, dropped };
}

function toFieldSpec(field: SuggestedField): FieldSpec {
  if (field.name === field.source && field.previewChars === undefined) return field.source;
  return {
    path: field.source,
    ...(field.name === field.source ? {} : { as: field.name }),
    ...(field.previewChars === undefined ? {} : { maxChars: field.previewChars }),
  };
}

function noSaving(tokens: number, input: ProjectionInput, kept: readonly Kept[]): string {
  const reasons: string[] = [];
  const nulls = input.records.reduce((count, record) => count + kept.filter((entry) => !hasPath(record, entry.field.source)).length, 0);
  if (nulls > 0) {
    reasons.push(`records of different shapes get null for every kept field they lack (${nulls} nulls): a projection gives every record the same keys`);
  }
  const whole = kept.filter((entry) => entry.whole).map((entry) => entry.field.name);
  if (whole.length > 0) reasons.push(`it keeps ${whole.join(', ')} whole: the answer`);
  if (reasons.length === 0) reasons.push('what it leaves out or shortens is too small');
  return `no projection saves tokens: the suggestion would cost ${tokens} tokens, ${percent(tokens / input.payloadTokens)} of the payload's ${input.payloadTokens}; ${reasons.join('; ')}`;
}

/** Whether the record holds the dot path (every step an own member). */
function hasPath(record: JsonObject, path: string): boolean {
  let node: unknown = record;
  for (const segment of path.split('.')) {
    if (!isPlainObject(node) || !Object.hasOwn(node, segment)) return false;
    node = node[segment];
  }
  return true;
}

/** The payload with the node at `path` replaced, key order kept. */
function replaceAt(root: unknown, path: readonly string[], node: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined || !isPlainObject(root)) return node;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(root)) setOwn(copy, key, key === head ? replaceAt(value, rest, node) : value);
  return copy;
}

/** Why some names are left out: defineProjection reads a dot as a step into a nested object. */
const NAME_LIMIT = 'an empty name, a name with a dot, or __proto__';

/** A name a defineProjection path can hold as one step, and an output name that is an ordinary key. */
function isPathSegment(key: string): boolean {
  return key !== '' && !key.includes('.') && key !== '__proto__';
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

/** The JSON of the one value every record holds for a field, when there are two or more records. */
function constantValue(values: readonly unknown[], recordCount: number): string | undefined {
  if (recordCount < 2 || values.length !== recordCount) return undefined;
  const first = JSON.stringify(values[0]);
  return values.every((value) => JSON.stringify(value) === first) ? first : undefined;
}

/** The first identifying key every object holds as a value (not null), else the first any of them holds. */
function identifyingKey(objects: readonly unknown[]): string | undefined {
  const holds = (object: unknown, key: string): boolean => isPlainObject(object) && Object.hasOwn(object, key) && isScalar(object[key]) && object[key] !== null;
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

function ratio(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null;
}

/** A share as a percentage with one decimal: `52.3%`. */
function percent(share: number): string {
  return `${(Math.round(share * 1000) / 10).toFixed(1)}%`;
}
