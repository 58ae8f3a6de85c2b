/**
 * Schema patterns from peers, run in linear time: ajv's `code.regExp` on RE2 (re2js), with the
 * pattern's size bounded before compiling and the work of one call's pattern tests bounded while
 * it is checked.
 */
import type * as Re2js from 're2js';
import { lazyRequire } from '../../lazy/index.js';

/** Longest `pattern` (or `patternProperties` key) compiled, in characters; the real catalogs' longest is about 230. */
export const MAX_PATTERN_CHARS = 1000;
/**
 * Largest RE2 program a pattern may compile to, estimated from its text before compiling (counted
 * repetitions multiply: `[a-z]{0,100}` is about 200): compiling costs time in proportion, and so
 * does matching when RE2 cannot use its DFA. 2,000 compiles in a few milliseconds.
 */
export const MAX_PATTERN_PROGRAM = 2000;
/**
 * Work the pattern tests of one call may do, in RE2 instructions times characters tested (about
 * 25 ns each when RE2 has to run its NFA): a call whose strings would take longer is passed on
 * unchecked, as the calls of a tool whose schema does not compile are.
 */
export const PATTERN_CHECK_BUDGET = 4_000_000;

const re2js = lazyRequire<typeof Re2js>('re2js');

/** What the pattern tests of the call being checked may still spend (set around one validation). */
let patternWork: { left: number } | undefined;

export class PatternBudgetExceeded extends Error {}

/** Runs one validation with PATTERN_CHECK_BUDGET for its pattern tests; PatternBudgetExceeded when they would take longer. */
export function withPatternBudget<T>(validate: () => T): T {
  patternWork = { left: PATTERN_CHECK_BUDGET };
  try {
    return validate();
  } finally {
    patternWork = undefined;
  }
}

/**
 * ajv's `code.regExp`: schema patterns run on RE2 (re2js), whose matching time is linear in the
 * text, never on JavaScript's backtracking RegExp, where `^(a+)+$` against 30 `a` and a `!` holds
 * the thread for seconds. A pattern RE2 does not accept (backreferences, lookaround), longer than
 * MAX_PATTERN_CHARS or larger than MAX_PATTERN_PROGRAM throws here, so ajv does not compile the
 * schema: the tool's calls pass unchecked and the reason is logged once. RE2 reads `\s` as ASCII
 * whitespace and lets `.` match `\r`, U+2028 and U+2029, where JavaScript does not.
 */
export function linearRegExp(pattern: string): { test(text: string): boolean; toString(): string } {
  const shown = JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}...` : pattern);
  if (pattern.length > MAX_PATTERN_CHARS) throw new Error(`pattern ${shown} is ${pattern.length} characters, over ${MAX_PATTERN_CHARS} (not compiled)`);
  const estimate = estimatedProgramSize(pattern);
  if (estimate > MAX_PATTERN_PROGRAM) {
    throw new Error(
      `pattern ${shown} repeats too much to be checked quickly (about ${estimate.toLocaleString('en-US')} RE2 instructions, over ${MAX_PATTERN_PROGRAM.toLocaleString('en-US')})`,
    );
  }
  const { RE2JS } = re2js();
  let compiled: Re2js.RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    throw new Error(`pattern ${shown} cannot be checked in linear time (RE2: ${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  const program = Math.max(1, compiled.programSize());
  return {
    test(text: string): boolean {
      if (patternWork !== undefined) {
        patternWork.left -= program * (text.length + 1);
        if (patternWork.left < 0) {
          throw new PatternBudgetExceeded(`testing its strings against the schema's patterns would take over ${PATTERN_CHECK_BUDGET.toLocaleString('en-US')} steps`);
        }
      }
      return compiled.test(text);
    },
    // ajv keys the patterns a schema shares by this text.
    toString: () => `re2:${pattern}`,
  };
}
// ajv writes `code` into generated code only for standalone modules, which mcpctx does not make.
linearRegExp.code = 'linearRegExp';

/** Counted repetitions above this are read as this (RE2 refuses counts over 1,000 anyway). */
const MAX_COUNT = 1001;

/**
 * About how many instructions RE2 compiles `pattern` to, from its text alone: an atom (a
 * character, an escape, a class) is 1, a quantifier repeats what it follows (once for `*`, `+`,
 * `?`, its largest count for `{n,m}`), a group adds 2, nested repetitions multiply, alternatives
 * add up. Not a parser: a malformed pattern gets some number, and RE2 refuses it afterwards.
 */
export function estimatedProgramSize(pattern: string): number {
  interface Group {
    total: number;
    /** Instructions of the last atom: what a quantifier repeats. */
    last: number;
  }
  const stack: Group[] = [{ total: 0, last: 0 }];
  const top = (): Group => stack[stack.length - 1] as Group;
  const atom = (size: number): void => {
    top().total += size;
    top().last = size;
  };
  const repeat = (count: number): void => {
    const group = top();
    const repeated = Math.min(Math.max(count, 1), MAX_COUNT) * (group.last + 1);
    group.total += repeated - group.last;
    group.last = repeated;
  };
  const close = (): void => {
    const group = stack.pop() as Group;
    atom(group.total + 2);
  };
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index] as string;
    if (char === '\\') {
      index += 1;
      const next = pattern[index] ?? '';
      if ('pPux'.includes(next) && pattern[index + 1] === '{') {
        // \p{Letter}, \u{1F600}, \x{41}: one atom, braces and all.
        const end = pattern.indexOf('}', index);
        if (end !== -1) index = end;
      } else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(pattern.slice(index + 1, index + 5))) {
        index += 4;
      }
      atom(1);
    } else if (char === '[') {
      // A class is one instruction: skip to its closing bracket (a ] right after [ or [^ is literal).
      let end = index + 1;
      if (pattern[end] === '^') end += 1;
      if (pattern[end] === ']') end += 1;
      while (end < pattern.length && pattern[end] !== ']') end += pattern[end] === '\\' ? 2 : 1;
      index = end;
      atom(1);
    } else if (char === '(') {
      stack.push({ total: 0, last: 0 });
      if (pattern[index + 1] === '?') {
        // (?:  (?=  (?!  (?<=  (?<!  (?<name>  (?P<name>  (?i)  (?i:
        let end = index + 2;
        while (end < pattern.length && !':=!>)'.includes(pattern[end] as string)) end += 1;
        index = pattern[end] === ')' ? end - 1 : end;
      }
    } else if (char === ')') {
      if (stack.length > 1) close();
    } else if (char === '*' || char === '+' || char === '?') {
      repeat(1);
      if (pattern[index + 1] === '?') index += 1;
    } else if (char === '{') {
      const counted = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(index, index + 24));
      if (counted === null) {
        atom(1);
      } else {
        const low = Number(counted[1]);
        repeat(counted[2] === undefined || counted[2] === '' ? low : Math.max(low, Number(counted[2])));
        index += counted[0].length - 1;
        if (pattern[index + 1] === '?') index += 1;
      }
    } else if (char !== '|' && char !== '^' && char !== '$') {
      atom(1);
    }
  }
  // Groups left open (a malformed pattern) count as closed.
  while (stack.length > 1) close();
  return top().total;
}
