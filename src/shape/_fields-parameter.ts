import type * as Zod from 'zod';
import { JSON_RPC_CODES, McpctxError } from '../errors/index.js';

/** The most of a refused field name a refusal repeats. */
const MAX_SHOWN_NAME_CHARS = 100;

export interface FieldsParameterOptions {
  /** The fields returned when the caller omits `fields`; default every allowed field. */
  readonly defaults?: readonly string[];
  /** Fields that always come back whatever the caller asks (an id, a revision); allowed ones, named in the description. */
  readonly always?: readonly string[];
  /**
   * Every field the data has, allowed or not: a requested field in here but not allowed is
   * FIELD_NOT_ALLOWED, one nowhere is UNKNOWN_FIELD. Without it every field outside the allowlist is UNKNOWN_FIELD.
   */
  readonly known?: Iterable<string>;
  /** The text the description starts with; default "Fields to return". */
  readonly description?: string;
}

/** The JSON Schema of the `fields` argument, as `tools/list` shows it. */
export interface FieldsJsonSchema {
  readonly type: 'array';
  readonly items: { readonly type: 'string'; readonly enum: readonly string[] };
  readonly maxItems: number;
  readonly uniqueItems: true;
  readonly description: string;
}

export interface FieldsParameter {
  readonly allowed: readonly string[];
  readonly defaults: readonly string[];
  /** The property to put under `properties.fields` of a tool's JSON Schema `inputSchema`. */
  readonly jsonSchema: FieldsJsonSchema;
  /**
   * The same as an optional zod schema for the SDK's `registerTool` (pass your `zod` module; mcpctx
   * does not load it). It advertises the enum in `tools/list` but accepts any strings, so that
   * `choose` refuses a wrong field with its code and the allowed list rather than the SDK's
   * generic validation message.
   */
  zod(z: typeof Zod): Zod.ZodOptional<Zod.ZodArray<Zod.ZodString>>;
  /** Throws UNKNOWN_FIELD or FIELD_NOT_ALLOWED (with the allowed fields) unless `name` is allowed. */
  check(name: string, argument?: string): void;
  /**
   * The fields to return for a caller's `fields` argument: the defaults when it is undefined,
   * else its fields checked and deduplicated with `always` added, in allowlist order (so two
   * spellings of one choice give the same list). Throws INVALID_ARGUMENT for a value that is not
   * an array of at most `maxItems` strings.
   */
  choose(requested: unknown): string[];
  /** A record's chosen fields, read from its own properties only; a missing field is null. */
  project(record: object, fields: readonly string[]): Record<string, unknown>;
}

/**
 * A caller-chosen `fields` argument checked against an allowlist: its schema (JSON Schema and zod),
 * the check that refuses an unknown or disallowed field with a message listing the allowed ones,
 * and the projection of a record to the chosen fields. Field names are compared as strings in
 * sets, never looked up as object keys, so `__proto__` or `constructor` from a peer is merely unknown.
 */
export function fieldsParameter(allowed: readonly string[], options: FieldsParameterOptions = {}): FieldsParameter {
  if (!Array.isArray(allowed) || allowed.length === 0 || !allowed.every((name) => typeof name === 'string' && name !== '')) {
    throw new McpctxError('INVALID_ARGUMENT', 'fieldsParameter needs a non-empty list of field names.', { argument: 'allowed' });
  }
  const allowedList = [...new Set(allowed)];
  if (allowedList.includes('__proto__')) {
    throw new McpctxError('INVALID_ARGUMENT', 'A field named "__proto__" cannot be allowed: it is not an ordinary key of a JSON object in JavaScript.', { argument: 'allowed', value: '__proto__' });
  }
  const allowedSet = new Set(allowedList);
  const subset = (names: readonly string[] | undefined, option: string): string[] => {
    const list = [...new Set(names ?? [])];
    const outside = list.filter((name) => !allowedSet.has(name));
    if (outside.length > 0) {
      throw new McpctxError('INVALID_ARGUMENT', `${option} must name allowed fields only; not allowed: ${outside.join(', ')}.`, { option, value: outside });
    }
    return list;
  };
  const always = subset(options.always, 'always');
  const defaults = options.defaults === undefined ? allowedList : allowedList.filter((name) => subset(options.defaults, 'defaults').includes(name));
  const known = new Set(options.known ?? []);
  const allowedText = `Allowed fields: ${allowedList.join(', ')}.`;
  const description =
    `${options.description ?? 'Fields to return'}${always.length > 0 ? ` (${always.join(' and ')} always come${always.length === 1 ? 's' : ''} back)` : ''}. ` +
    `Default: ${defaults.length === allowedList.length ? 'all allowed fields' : defaults.join(', ')}.`;
  const jsonSchema: FieldsJsonSchema = {
    type: 'array',
    items: { type: 'string', enum: allowedList },
    maxItems: allowedList.length,
    uniqueItems: true,
    description,
  };

  const check = (name: string, argument = 'fields'): void => {
    if (allowedSet.has(name)) return;
    // A caller's name is echoed to the model: bounded, so one huge string is not sent back whole.
    const field = name.length > MAX_SHOWN_NAME_CHARS ? `${name.slice(0, MAX_SHOWN_NAME_CHARS)}…` : name;
    const shown = JSON.stringify(field);
    const data = { field, argument, allowed: allowedList, rpcCode: JSON_RPC_CODES.invalidParams };
    const remedy = `${allowedText} Pass only those in "${argument}".`;
    if (known.has(name)) {
      throw new McpctxError(
        'FIELD_NOT_ALLOWED',
        `Field ${shown} exists in the records but is not in this server's field allowlist, so it can be neither searched nor returned. ${remedy}`,
        data,
      );
    }
    const why = options.known === undefined ? 'this tool returns no field of that name' : 'no record has a field of that name';
    throw new McpctxError('UNKNOWN_FIELD', `Unknown field ${shown}: ${why} (names are case-sensitive). ${remedy}`, data);
  };

  const choose = (requested: unknown): string[] => {
    if (requested === undefined) return [...defaults];
    if (!Array.isArray(requested) || requested.length > allowedList.length || !requested.every((name) => typeof name === 'string')) {
      throw new McpctxError(
        'INVALID_ARGUMENT',
        `"fields" must be a list of at most ${allowedList.length} field names (strings). ${allowedText}`,
        { argument: 'fields', limit: allowedList.length, rpcCode: JSON_RPC_CODES.invalidParams },
      );
    }
    for (const name of requested as string[]) check(name);
    const wanted = new Set<string>([...always, ...(requested as string[])]);
    return allowedList.filter((name) => wanted.has(name));
  };

  const project = (record: object, fields: readonly string[]): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const name of fields) {
      // defineProperty: a field name is data, never a prototype to set.
      Object.defineProperty(out, name, {
        value: Object.hasOwn(record, name) ? ((record as Record<string, unknown>)[name] ?? null) : null,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };

  return {
    allowed: allowedList,
    defaults,
    jsonSchema,
    zod: (z) =>
      z
        .array(z.string().meta({ enum: allowedList }))
        .meta({ maxItems: allowedList.length, uniqueItems: true })
        .describe(description)
        .optional(),
    check,
    choose,
    project,
  };
}
