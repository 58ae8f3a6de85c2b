import type * as AjvDraft07 from 'ajv';
import type * as AjvDraft2019 from 'ajv/dist/2019.js';
import type * as AjvDraft2020 from 'ajv/dist/2020.js';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { lazyRequire } from '../../lazy/index.js';
import { sha256Hex } from '../../tokens/index.js';
import { isPlainObject, nestsDeeperThan, type JsonObject } from '../../json/index.js';
import { PatternBudgetExceeded, linearRegExp, withPatternBudget } from './_linear-patterns.js';

/** Largest `inputSchema` (compact JSON, UTF-16 units) compiled; GitHub's largest is about 10 KB. */
export const MAX_SCHEMA_CHARS = 256 * 1024;
/** Deepest `inputSchema` nesting (JSON levels) compiled: ajv generates code recursively. */
export const MAX_SCHEMA_DEPTH = 64;
/** Compiled schemas one cache keeps; past this it starts over (a hostile upstream cannot grow it without bound). */
const MAX_CACHED_SCHEMAS = 4096;
/** One way a call's arguments miss the tool's schema. */
export interface ArgumentProblem {
  /** Where in the arguments (JSON Pointer, ajv's instancePath), `/` for the arguments object itself. */
  readonly path: string;
  /** What the schema expected there, as a short phrase: `required property "owner"`, `type string`, `one of: open, closed`. */
  readonly expected: string;
  /** The schema keyword that failed (JSON Pointer into the inputSchema, ajv's schemaPath). */
  readonly schemaPath: string;
}

/** `unchecked` says why a call is passed on without a verdict (its strings would take too long to test against the schema's patterns). */
export type ArgumentCheck = { readonly ok: true; readonly unchecked?: string } | { readonly ok: false; readonly problems: readonly ArgumentProblem[] };

/** A tool whose `inputSchema` could not be compiled: its calls go upstream unchecked. */
export interface UncheckedTool {
  readonly tool: string;
  readonly error: string;
}

type Compiled = { readonly validate: ValidateFunction } | { readonly error: string };

/**
 * Compiled `inputSchema`s shared by every catalog of one gateway, keyed by the schema's hash: each
 * session and each `list_changed` rebuild reuses them instead of compiling 100 schemas again.
 */
export class SchemaCache {
  private readonly compiled = new Map<string, Compiled>();
  private readonly validators = new Map<string, Ajv>();

  /** The compiled schema, and whether this call compiled it (a failure is worth logging once, not per session). */
  compile(schema: JsonObject): { compiled: Compiled; fresh: boolean } {
    // Walked before anything stringifies it: a hostile schema may nest 200,000 levels.
    if (nestsDeeperThan(schema, MAX_SCHEMA_DEPTH)) {
      return { compiled: { error: `the inputSchema nests deeper than ${MAX_SCHEMA_DEPTH} levels (not compiled)` }, fresh: true };
    }
    const text = JSON.stringify(schema);
    const key = sha256Hex(text);
    const known = this.compiled.get(key);
    if (known) return { compiled: known, fresh: false };
    if (this.compiled.size >= MAX_CACHED_SCHEMAS) this.compiled.clear();
    const compiled =
      text.length > MAX_SCHEMA_CHARS
        ? { error: `the inputSchema is ${text.length} characters of JSON, over ${MAX_SCHEMA_CHARS} (not compiled)` }
        : this.compileNew(schema);
    this.compiled.set(key, compiled);
    return { compiled, fresh: true };
  }

  private compileNew(schema: JsonObject): Compiled {
    const draft = draftOf(schema.$schema);
    let ajv = this.validators.get(draft);
    if (!ajv) {
      ajv = newValidator(draft);
      this.validators.set(draft, ajv);
    }
    try {
      return { validate: ajv.compile(schema) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    } finally {
      // Forget the schema's `$id`: two upstreams (or two versions of one tool) may reuse an id,
      // and the compiled function keeps what it needs.
      try {
        ajv.removeSchema(schema);
      } catch {
        // nothing was registered
      }
    }
  }
}

/**
 * Checks a call's arguments against the `inputSchema` of the tool the client saw, before the call
 * leaves the gateway. Each schema is compiled once, on the tool's first call or by `compileAll`,
 * with the draft its `$schema` names (2020-12, 2019-09; draft-07 otherwise), formats on, unknown
 * keywords allowed (real schemas carry vendor keys) and every error collected. Compiling costs
 * milliseconds per schema, so a 100-tool catalog is not compiled on the way to `tools/list`.
 *
 * Patterns run on RE2 (`linearRegExp`), in time linear in the text. A schema that cannot be
 * compiled (too large, too deep, a `$ref` to nowhere, a pattern RE2 does not accept or that repeats
 * too much, ...) never stops the gateway: it is listed in `unchecked` as `{ tool, error }` and
 * calls to that tool pass upstream unchecked, as they would without the gateway. A tool without an
 * object `inputSchema` is not checked either, nor is a call whose strings would take the schema's
 * patterns longer than PATTERN_CHECK_BUDGET (its check says `unchecked`).
 */
export class ArgumentChecker {
  private readonly schemas = new Map<string, JsonObject>();
  private readonly compiled = new Map<string, Compiled>();
  private readonly cache: SchemaCache;
  private readonly failures: UncheckedTool[] = [];

  constructor(tools: Iterable<{ readonly name: string; readonly inputSchema: unknown }>, cache: SchemaCache = new SchemaCache()) {
    this.cache = cache;
    for (const { name, inputSchema } of tools) if (isPlainObject(inputSchema)) this.schemas.set(name, inputSchema);
  }

  /** Tools found so far whose schema did not compile (all of them once `compileAll` has run): their calls are not checked. */
  get unchecked(): readonly UncheckedTool[] {
    return this.failures;
  }

  /**
   * Compiles every schema not compiled yet, yielding to the event loop between tools, and gives
   * the failures this gateway had not met before (a schema another session already reported is
   * left out, so the operator's log says it once).
   */
  async compileAll(): Promise<UncheckedTool[]> {
    const fresh: UncheckedTool[] = [];
    for (const name of [...this.schemas.keys()]) {
      if (this.compiled.has(name)) continue;
      const { compiled, fresh: isFresh } = this.compile(name);
      if ('error' in compiled && isFresh) fresh.push({ tool: name, error: compiled.error });
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return fresh;
  }

  /** Whether `args` (the call's `arguments`, `{}` when it sent none) fit the tool's schema; ok for a tool with no compiled schema. */
  check(toolName: string, args: unknown): ArgumentCheck {
    if (!this.schemas.has(toolName)) return { ok: true };
    const compiled = this.compiled.get(toolName) ?? this.compile(toolName).compiled;
    if (!('validate' in compiled)) return { ok: true };
    let valid: boolean;
    try {
      valid = withPatternBudget(() => compiled.validate(args ?? {}) as boolean);
    } catch (error) {
      if (error instanceof PatternBudgetExceeded) return { ok: true, unchecked: error.message };
      throw error;
    }
    if (valid) return { ok: true };
    return { ok: false, problems: (compiled.validate.errors ?? []).map(problemOf) };
  }

  private compile(name: string): { compiled: Compiled; fresh: boolean } {
    const outcome = this.cache.compile(this.schemas.get(name) ?? {});
    this.compiled.set(name, outcome.compiled);
    if ('error' in outcome.compiled) this.failures.push({ tool: name, error: outcome.compiled.error });
    return outcome;
  }
}

type Draft = '2020-12' | '2019-09' | 'draft-07';

function draftOf(declared: unknown): Draft {
  if (typeof declared !== 'string') return 'draft-07';
  if (declared.includes('2020-12')) return '2020-12';
  if (declared.includes('2019-09')) return '2019-09';
  return 'draft-07';
}

// ajv is loaded by the first call checked, not with the gateway: most sessions start without one.
const ajvDraft07 = lazyRequire<typeof AjvDraft07>('ajv');
const ajvDraft2019 = lazyRequire<typeof AjvDraft2019>('ajv/dist/2019.js');
const ajvDraft2020 = lazyRequire<typeof AjvDraft2020>('ajv/dist/2020.js');
const ajvFormats = lazyRequire<{ default: (ajv: Ajv) => Ajv }>('ajv-formats');
function newValidator(draft: Draft): Ajv {
  // logger: false, because the gateway's stdout may be the protocol stream and ajv's warnings
  // (unknown formats, a $schema it has no meta-schema for) are not the operator's business.
  // validateSchema: false, so a `$schema` ajv has no meta-schema for (draft-04, draft-06) is
  // read with draft-07's keywords instead of refused; a malformed schema still fails to compile.
  // ownProperties: arguments a peer sends are checked on their own keys, so `{}` lacks a required
  // "constructor" or "toString" instead of finding Object's (ajv reads `data[name]` otherwise).
  // code.regExp: schema patterns run on RE2, in time linear in the text (linearRegExp).
  const options = { strict: false, allErrors: true, logger: false as const, validateSchema: false, ownProperties: true, code: { regExp: linearRegExp } };
  const ajv = draft === '2020-12' ? new (ajvDraft2020().Ajv2020)(options) : draft === '2019-09' ? new (ajvDraft2019().Ajv2019)(options) : new (ajvDraft07().Ajv)(options);
  ajvFormats().default(ajv);
  return ajv;
}

function problemOf(error: ErrorObject): ArgumentProblem {
  return { path: error.instancePath === '' ? '/' : error.instancePath, expected: expectedOf(error), schemaPath: error.schemaPath };
}

/** What the schema wanted, from ajv's keyword and params, as a phrase a model can act on. */
function expectedOf(error: ErrorObject): string {
  const params = error.params as JsonObject;
  switch (error.keyword) {
    case 'required':
      return `required property ${JSON.stringify(params.missingProperty)}`;
    case 'dependentRequired':
    case 'dependencies':
      return `property ${JSON.stringify(params.missingProperty)} when ${JSON.stringify(params.property)} is given`;
    case 'type':
      return `type ${Array.isArray(params.type) ? params.type.join(' or ') : String(params.type)}`;
    case 'enum':
      return `one of: ${Array.isArray(params.allowedValues) ? params.allowedValues.map(plain).join(', ') : '?'}`;
    case 'const':
      return `the value ${plain(params.allowedValue)}`;
    case 'additionalProperties':
      return `no property ${JSON.stringify(params.additionalProperty)} (not in the schema)`;
    case 'unevaluatedProperties':
      return `no property ${JSON.stringify(params.unevaluatedProperty)} (not in the schema)`;
    case 'format':
      return `format ${String(params.format)}`;
    case 'pattern':
      return `a string matching ${String(params.pattern)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `a number ${String(params.comparison)} ${String(params.limit)}`;
    case 'minLength':
      return `at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `at most ${String(params.limit)} characters`;
    case 'minItems':
      return `at least ${String(params.limit)} items`;
    case 'maxItems':
      return `at most ${String(params.limit)} items`;
    case 'anyOf':
    case 'oneOf':
      return `${error.keyword === 'oneOf' ? 'exactly one' : 'at least one'} of the schema's alternatives`;
    default:
      return (error.message ?? error.keyword).replace(/^must /, '');
  }
}

/** An enum or const value as a person writes it: strings bare, anything else as JSON. */
function plain(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Problems named in a refusal's text; the rest are counted. */
const MAX_PROBLEMS_SHOWN = 10;

/**
 * The text a refused call gets back (a tool error result, so the model can correct its call):
 * each problem's place in the arguments, what the schema expected and the schema path.
 */
export function argumentRefusalText(tool: string, problems: readonly ArgumentProblem[]): string {
  const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((problem) => `- ${problem.path}: expected ${problem.expected} (schema ${problem.schemaPath})`);
  if (problems.length > shown.length) shown.push(`- and ${problems.length - shown.length} more`);
  return [
    `${tool} was not sent to the server: its arguments do not match the tool's inputSchema.`,
    ...shown,
    `Fix the arguments and call ${tool} again.`,
  ].join('\n');
}
