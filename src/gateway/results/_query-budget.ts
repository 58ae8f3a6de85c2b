import type * as Jmespath from '@jmespath-community/jmespath';

type Library = typeof Jmespath;
type QueryNode = ReturnType<Library['compile']>;
type Interpreter = Library['TreeInterpreter'];
type Value = Parameters<Library['search']>[0];

/**
 * Steps one read_result query may take. A step is one node of the query applied to one value
 * (`items[*].id` over 1,000 items is 1,002 steps), one value walked to weigh it, or a few
 * characters of text a function reads or writes (TEXT_CHARS_PER_STEP, CODEPOINTS_PER_STEP). The
 * budget keeps the worst query to a few tens of milliseconds of the gateway's one thread.
 */
export const QUERY_STEP_BUDGET = 1_000_000;

/** Wall-clock bound on a query's evaluation, behind the step budget (a slow machine, a cost the step counts missed). */
export const QUERY_DEADLINE_MS = 75;

/**
 * Largest value a query may build, in characters of its JSON (about): the answer is written out,
 * counted and paged, and shared references (`[@,@]|[@,@]|...`) are written out once per reference.
 * A result as large as the stored value itself is always allowed: reading it without a query
 * costs the same.
 */
export const QUERY_RESULT_CHARS = 2_000_000;

/** Characters of plain text (search, copy, join, JSON) one step pays for. */
const TEXT_CHARS_PER_STEP = 32;
/** Characters one step pays for when the library splits text into code points (string length, reverse, sort and slices of strings). */
const CODEPOINTS_PER_STEP = 2;
/** A `let` scope builds a new interpreter and its function table. */
const SCOPE_STEPS = 50;
/** Steps between two looks at the clock. */
const CLOCK_EVERY = 1024;

export interface QueryLimits {
  /** Step budget (default QUERY_STEP_BUDGET). */
  readonly steps?: number;
  /** Wall-clock bound in ms (default QUERY_DEADLINE_MS). */
  readonly deadlineMs?: number;
  /** Largest result, in JSON characters, unless the stored value is larger (default QUERY_RESULT_CHARS). */
  readonly resultChars?: number;
  /** Deepest result nesting (JSON levels). */
  readonly maxDepth: number;
}

/** Why a query was stopped; `runQuery` turns it into INVALID_QUERY with a message the client can act on. */
export class QueryLimitError extends Error {
  constructor(
    readonly limit: 'steps' | 'deadline' | 'size' | 'depth',
    message: string,
  ) {
    super(message);
    this.name = 'QueryLimitError';
  }
}

/** The size of a value written out: values, JSON characters, nesting; shared references counted each time they are written. */
interface Size {
  readonly nodes: number;
  readonly chars: number;
  readonly depth: number;
}

const TOO_DEEP: Size = { nodes: Infinity, chars: Infinity, depth: Infinity };

/**
 * The steps a query has used, and what it knows about the values it met. Sizes and key counts are
 * remembered per object, so a value shared a million times is walked once: the walks that weigh a
 * value (for an equality, `to_string`, the result) cost the distinct values, never the copies.
 */
class Meter {
  used = 0;
  private charges = 0;
  private readonly deadline: number;
  private readonly sizes = new Map<object, Size>();
  private readonly keyCounts = new Map<object, number>();
  /** The expression references handed to functions: what a key expression returns is compared or hashed whole. */
  readonly keyExpressions = new WeakSet<object>();
  /** Off while the finished result is weighed: that walk is the price of writing it out, bounded by its own limit. */
  charging = true;

  constructor(
    readonly budget: number,
    readonly deadlineMs: number,
    readonly maxDepth: number,
  ) {
    this.deadline = performance.now() + deadlineMs;
  }

  charge(steps: number): void {
    if (!this.charging) return;
    this.used += steps;
    this.charges += 1;
    if (this.used > this.budget || this.charges === CLOCK_EVERY) this.check();
  }

  /** One step, the cost of visiting a node: the hot path, so the checks are left to `check`. */
  tick(): void {
    if (++this.used > this.budget || ++this.charges === CLOCK_EVERY) this.check();
  }

  private check(): void {
    if (this.used > this.budget) throw new QueryLimitError('steps', `it needs more than the ${this.budget.toLocaleString('en-US')}-step budget of a query`);
    if (this.charges < CLOCK_EVERY) return;
    this.charges = 0;
    if (performance.now() > this.deadline) {
      throw new QueryLimitError('deadline', `it ran past the ${this.deadlineMs} ms a query may take (after ${this.used.toLocaleString('en-US')} steps)`);
    }
  }

  chargeText(chars: number): void {
    this.charge(Math.ceil(chars / TEXT_CHARS_PER_STEP));
  }

  chargeCodepoints(chars: number): void {
    this.charge(Math.ceil(chars / CODEPOINTS_PER_STEP));
  }

  /** Own keys of an object, counted once (and paid once) per object. */
  keyCount(object: object): number {
    let count = this.keyCounts.get(object);
    if (count === undefined) {
      count = Object.keys(object).length;
      this.keyCounts.set(object, count);
      this.charge(1 + count);
    }
    return count;
  }

  /**
   * The size of `value` written out, walking each distinct object once (iteratively: any depth is
   * safe). A value deeper than maxDepth is TOO_DEEP. Each object entered and each member read
   * costs a step while charging.
   */
  size(value: unknown): Size {
    if (typeof value !== 'object' || value === null) return primitiveSize(value);
    const known = this.sizes.get(value);
    if (known !== undefined) return known;
    interface Frame {
      readonly node: object;
      readonly keys: readonly string[] | undefined;
      readonly length: number;
      index: number;
      nodes: number;
      chars: number;
      depth: number;
      /** Characters the member adds besides its value (its key, quotes and colon), added to the parent once the member is done. */
      readonly memberChars: number;
    }
    const frame = (node: object, memberChars: number): Frame => {
      const keys = Array.isArray(node) ? undefined : Object.keys(node);
      const length = keys === undefined ? (node as unknown[]).length : keys.length;
      this.charge(1 + length);
      return { node, keys, length, index: 0, nodes: 1, chars: 2 + Math.max(0, length - 1), depth: 1, memberChars };
    };
    const stack: Frame[] = [frame(value, 0)];
    let done: Size = TOO_DEEP;
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as Frame;
      if (top.index < top.length) {
        const key = top.keys === undefined ? undefined : (top.keys[top.index] as string);
        const child = key === undefined ? (top.node as unknown[])[top.index] : (top.node as Record<string, unknown>)[key];
        top.index += 1;
        const memberChars = key === undefined ? 0 : key.length + 3;
        const childSize = typeof child !== 'object' || child === null ? primitiveSize(child) : this.sizes.get(child);
        if (childSize !== undefined) {
          add(top, childSize, memberChars);
          if (top.depth > this.maxDepth) return TOO_DEEP;
          continue;
        }
        if (stack.length >= this.maxDepth) return TOO_DEEP;
        stack.push(frame(child as object, memberChars));
        continue;
      }
      stack.pop();
      done = { nodes: top.nodes, chars: top.chars, depth: top.depth };
      this.sizes.set(top.node, done);
      const parent = stack[stack.length - 1];
      if (parent !== undefined) {
        add(parent, done, top.memberChars);
        if (parent.depth > this.maxDepth) return TOO_DEEP;
      }
    }
    return done;
  }
}

function add(frame: { nodes: number; chars: number; depth: number }, child: Size, memberChars: number): void {
  frame.nodes += child.nodes;
  frame.chars += child.chars + memberChars;
  frame.depth = Math.max(frame.depth, child.depth + 1);
}

function primitiveSize(value: unknown): Size {
  if (typeof value === 'string') return { nodes: 1, chars: value.length + 2, depth: 0 };
  if (typeof value === 'number') return { nodes: 1, chars: String(value).length, depth: 0 };
  return { nodes: 1, chars: value === false ? 5 : 4, depth: 0 };
}

/** What the library's `isFalse` says, with an object's key count remembered. */
function isFalse(meter: Meter, value: unknown): boolean {
  if (value === null || value === undefined || value === false) return true;
  if (typeof value === 'string') return value === '';
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return meter.keyCount(value) === 0;
  return false;
}

function isObjectValue(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function literal(value: unknown): QueryNode {
  return { type: 'Literal', value } as QueryNode;
}

/** Steps a library function takes over its resolved arguments, paid before it runs. */
function functionSteps(meter: Meter, name: string, args: readonly unknown[]): number {
  const [first, second] = args;
  switch (name) {
    case 'abs':
    case 'ceil':
    case 'floor':
    case 'not_null':
    case 'to_array':
    case 'type':
      return 1;
    case 'to_number':
      return typeof first === 'string' ? 1 + Math.ceil(first.length / TEXT_CHARS_PER_STEP) : 1;
    case 'to_string': {
      if (typeof first === 'string') return 1;
      const size = meter.size(first);
      return size.nodes + Math.ceil(size.chars / TEXT_CHARS_PER_STEP);
    }
    case 'length':
    case 'reverse':
      if (typeof first === 'string') return 1 + Math.ceil(first.length / CODEPOINTS_PER_STEP);
      if (Array.isArray(first)) return name === 'length' ? 1 : 1 + first.length;
      return isObjectValue(first) ? 1 + meter.keyCount(first) : 1;
    case 'sort': {
      if (!Array.isArray(first)) return 1;
      const log = Math.ceil(Math.log2(first.length + 1));
      const text = first.reduce<number>((sum, item) => sum + (typeof item === 'string' ? item.length : 0), 0);
      meter.charge(first.length);
      return 2 * first.length * log + log * Math.ceil(text / CODEPOINTS_PER_STEP);
    }
    case 'max':
    case 'min': {
      if (!Array.isArray(first)) return 1;
      const text = first.reduce<number>((sum, item) => sum + (typeof item === 'string' ? item.length : 0), 0);
      return 4 * first.length + Math.ceil(text / CODEPOINTS_PER_STEP);
    }
    case 'join': {
      if (!Array.isArray(second)) return 1;
      meter.charge(second.length);
      const text = second.reduce<number>((sum, item) => sum + (typeof item === 'string' ? item.length + (typeof first === 'string' ? first.length : 0) : 0), 0);
      return Math.ceil(text / TEXT_CHARS_PER_STEP);
    }
    case 'contains':
      if (Array.isArray(first)) return 1 + first.length * (1 + (typeof second === 'string' ? Math.ceil(second.length / TEXT_CHARS_PER_STEP) : 0));
      break;
    case 'pad_left':
    case 'pad_right':
      // The result is `width` characters, whatever the subject.
      return 1 + (typeof first === 'string' ? Math.ceil(first.length / TEXT_CHARS_PER_STEP) : 0) + (typeof second === 'number' && second > 0 ? Math.ceil(second / TEXT_CHARS_PER_STEP) : 0);
    case 'replace': {
      const [subject, old, by, count] = args;
      if (typeof subject !== 'string' || typeof old !== 'string' || typeof by !== 'string') return 1;
      // Every occurrence may become `by`: at most one per character of the subject (and one more) when `old` is empty.
      const occurrences = Math.floor(subject.length / Math.max(1, old.length)) + 1;
      const replaced = typeof count === 'number' && count > 0 ? Math.min(count, occurrences) : occurrences;
      const rounds = typeof count === 'number' && count > 0 ? count : 1;
      return 1 + rounds + Math.ceil((rounds * subject.length + replaced * by.length) / TEXT_CHARS_PER_STEP);
    }
    case 'split':
      // One string per piece: as many as characters when the separator is empty.
      return 1 + (typeof first === 'string' ? first.length : 0);
    default:
      break;
  }
  // Everything else reads its arguments once: their items, keys or characters.
  let steps = 1;
  for (const arg of args) {
    if (typeof arg === 'string') steps += Math.ceil(arg.length / TEXT_CHARS_PER_STEP);
    else if (Array.isArray(arg)) steps += arg.length;
    else if (isObjectValue(arg) && arg.expref !== true) steps += meter.keyCount(arg);
  }
  return steps;
}

/** The library's trim functions build `(.*?)[chars]*$`, which backtracks for seconds over a long run of spaces; these read each character once. */
function linearTrim(side: 'both' | 'left' | 'right') {
  return (resolvedArgs: unknown[]): string => {
    const subject = resolvedArgs[0] as string;
    const chars = resolvedArgs.length > 1 ? (resolvedArgs[1] as string | null | undefined) : undefined;
    // The library trims `\s` and U+0085 by default, else exactly the characters given (as UTF-16 units, like its RegExp).
    const set = chars ? new Set(chars.split('')) : undefined;
    const trimmed = (unit: string): boolean => (set === undefined ? unit === '\u0085' || /\s/.test(unit) : set.has(unit));
    let start = 0;
    let end = subject.length;
    if (side !== 'right') while (start < end && trimmed(subject[start] as string)) start += 1;
    if (side !== 'left') while (end > start && trimmed(subject[end - 1] as string)) end -= 1;
    return subject.slice(start, end);
  };
}

interface InterpreterInternals {
  _rootValue: unknown;
  _scope: { withScope(data: unknown): unknown };
  runtime: { _functionTable: Record<string, { _func: (args: unknown[]) => unknown; _signature: unknown }>; callFunction(name: string, args: unknown[]): unknown };
}

type BudgetedInterpreter = Interpreter & { meter: Meter };

/** Node types whose one visit may do more than constant work: the metered interpreter handles these itself. */
const METERED_NODES: ReadonlySet<string> = new Set(['Slice', 'Flatten', 'ValueProjection', 'Comparator', 'FilterProjection', 'OrExpression', 'AndExpression', 'NotExpression', 'Ternary', 'Function']);
/** The metered interpreter class of each loaded copy of the library (there is one in the gateway). */
const budgetedClasses = new WeakMap<Library, new (meter: Meter) => BudgetedInterpreter>();

/**
 * The library's tree interpreter, metered: every node it visits costs a step, and the few places
 * where one node does more than constant work (functions, flattening, slices, projections over
 * an object's values, equality, truthiness of an object) pay for that work before doing it.
 * The library exports only an instance of its interpreter; its class is that instance's constructor.
 */
function budgetedInterpreterClass(library: Library): new (meter: Meter) => BudgetedInterpreter {
  const known = budgetedClasses.get(library);
  if (known !== undefined) return known;
  const Base = library.TreeInterpreter.constructor as new () => Interpreter;
  class Budgeted extends Base {
    meter: Meter;

    constructor(meter: Meter) {
      super();
      this.meter = meter;
      const table = (this as unknown as InterpreterInternals).runtime._functionTable;
      for (const [name, side] of [
        ['trim', 'both'],
        ['trim_left', 'left'],
        ['trim_right', 'right'],
      ] as const) {
        const entry = table[name];
        if (entry !== undefined) table[name] = { _func: linearTrim(side), _signature: entry._signature };
      }
    }

    override withScope(scope: Parameters<Interpreter['withScope']>[0]): Interpreter {
      this.meter.charge(SCOPE_STEPS);
      const scoped = new Budgeted(this.meter);
      const from = this as unknown as InterpreterInternals;
      const to = scoped as unknown as InterpreterInternals;
      to.runtime._functionTable = from.runtime._functionTable;
      to._rootValue = from._rootValue;
      to._scope = from._scope.withScope(scope) as InterpreterInternals['_scope'];
      return scoped;
    }

    override visit(node: QueryNode, value: Value | QueryNode): ReturnType<Interpreter['visit']> {
      const meter = this.meter;
      meter.tick();
      const result = METERED_NODES.has(node.type) ? this.step(node, value) : super.visit(node, value);
      // A key expression's string is compared or hashed whole by the function that asked for it.
      if (typeof result === 'string' && meter.keyExpressions.has(node)) meter.chargeCodepoints(result.length);
      return result;
    }

    private step(node: QueryNode, value: Value | QueryNode): ReturnType<Interpreter['visit']> {
      const meter = this.meter;
      switch (node.type) {
        case 'Slice':
          if (typeof value === 'string') meter.chargeCodepoints(value.length);
          else if (Array.isArray(value)) meter.charge(value.length);
          break;
        case 'Flatten': {
          const original = this.visit(node.child, value);
          if (Array.isArray(original)) {
            meter.charge(original.length);
            let items = 0;
            for (const item of original) if (Array.isArray(item)) items += item.length;
            meter.charge(items);
          }
          return super.visit({ type: 'Flatten', child: literal(original) } as QueryNode, value);
        }
        case 'ValueProjection': {
          const base = this.visit(node.left, value);
          if (isObjectValue(base)) meter.charge(meter.keyCount(base));
          return super.visit({ type: 'ValueProjection', left: literal(base), right: node.right } as QueryNode, value);
        }
        case 'Comparator': {
          if (node.name !== 'EQ' && node.name !== 'NE') break;
          const first = this.visit(node.left, value);
          const second = this.visit(node.right, value);
          if (first !== second && typeof first === 'object' && first !== null && typeof second === 'object' && second !== null) {
            // A deep comparison walks both values written out, until they differ.
            const a = meter.size(first);
            const b = meter.size(second);
            meter.charge(Math.min(a.nodes, b.nodes) + Math.ceil(Math.min(a.chars, b.chars) / TEXT_CHARS_PER_STEP));
          } else if (typeof first === 'string' && typeof second === 'string') {
            meter.chargeText(Math.min(first.length, second.length));
          }
          return super.visit({ type: 'Comparator', name: node.name, left: literal(first), right: literal(second) } as QueryNode, value);
        }
        case 'FilterProjection': {
          const base = this.visit(node.left, value);
          if (!Array.isArray(base)) return null;
          const results: unknown[] = [];
          for (const element of base) {
            if (isFalse(meter, this.visit(node.condition, element))) continue;
            const result = this.visit(node.right, element);
            if (result !== null) results.push(result);
          }
          return results as Value;
        }
        case 'OrExpression': {
          const result = this.visit(node.left, value);
          return isFalse(meter, result) ? this.visit(node.right, value) : result;
        }
        case 'AndExpression': {
          const result = this.visit(node.left, value);
          return isFalse(meter, result) ? result : this.visit(node.right, value);
        }
        case 'NotExpression':
          return isFalse(meter, this.visit(node.child, value));
        case 'Ternary':
          return isFalse(meter, this.visit(node.condition, value)) ? this.visit(node.falseExpr, value) : this.visit(node.trueExpr, value);
        case 'Function': {
          const args = node.children.map((child) => this.visit(child, value) as unknown);
          for (const arg of args) if (isObjectValue(arg) && arg.expref === true) meter.keyExpressions.add(arg);
          meter.charge(functionSteps(meter, node.name, args));
          return (this as unknown as InterpreterInternals).runtime.callFunction(node.name, args) as Value;
        }
        default:
          break;
      }
      return super.visit(node, value);
    }
  }
  budgetedClasses.set(library, Budgeted);
  return Budgeted;
}

/**
 * `query` (JMESPath) over `value`, within `limits`: a QueryLimitError when it needs more steps or
 * time than it may take, builds a result larger than it may write out, or nests deeper than
 * `maxDepth`. The library's own errors (syntax, types, unknown functions) pass through.
 */
export function evaluateQuery(library: Library, value: unknown, query: string, limits: QueryLimits): { result: unknown; steps: number } {
  const ast = library.compile(query);
  const meter = new Meter(limits.steps ?? QUERY_STEP_BUDGET, limits.deadlineMs ?? QUERY_DEADLINE_MS, limits.maxDepth);
  const Budgeted = budgetedInterpreterClass(library);
  const result = new Budgeted(meter).search(ast, value as Value) as unknown;
  const steps = meter.used;
  // The result is written out, counted and paged next: weigh it first, shared references once each.
  meter.charging = false;
  const size = meter.size(result);
  if (size.depth > limits.maxDepth) throw new QueryLimitError('depth', `its result nests deeper than ${limits.maxDepth} levels`);
  const resultChars = limits.resultChars ?? QUERY_RESULT_CHARS;
  if (size.chars > resultChars) {
    const stored = meter.size(value);
    if (size.chars > stored.chars) {
      throw new QueryLimitError(
        'size',
        `its result would be about ${formatCount(size.chars)} characters of JSON written out, over the ${resultChars.toLocaleString('en-US')} a query may build ` +
          `(and larger than the stored result, ${formatCount(stored.chars)})`,
      );
    }
  }
  return { result, steps };
}

function formatCount(count: number): string {
  return count < 1e15 ? Math.round(count).toLocaleString('en-US') : count.toExponential(2).replace('e+', 'e');
}
