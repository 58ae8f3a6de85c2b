import { foldName } from '../../text/index.js';

/**
 * Globs for tool names, matched with no backtracking: a name from a peer can be long (a hostile
 * upstream lists one, a client calls one), and `*delete*repo*` as a backtracking RegExp took 10 s
 * on a 280 KB name, stalling every session. A glob of literals and stars (most of them) is a
 * prefix, a suffix and the runs between stars found leftmost in order, which is enough for `*`
 * (indexOf: one pass per run). A glob with `?` runs as the set of pattern positions reached so far
 * (a Thompson simulation): one pass over the name, each step visiting each position at most once,
 * so O(name x pattern) at worst.
 */

// Tokens: a code point (>= 0) matches itself; the wildcards are negative.
const ANY_RUN = -1; // `*`: any run of characters, none included
const ONE = -2; // `?` as written: exactly one character
const ONE_OR_NONE = -3; // `?` after folding: the character it stood for may have been a separator folded away

/**
 * One side of a glob, compiled: its literal runs between stars when it has no `?`; else its
 * positions as bits of one integer when they fit, or as a list.
 */
export type GlobMatcher =
  | { readonly kind: 'runs'; readonly runs: readonly string[] }
  | { readonly kind: 'bits'; readonly bits: PositionBits }
  | { readonly kind: 'positions'; readonly tokens: Int32Array };

/** Bit `at` stands for pattern position `at` (positions 0 to the pattern's length, at most 30 bits, so shifts stay positive). */
interface PositionBits {
  /** Positions on a `*`: they stay reached whatever character comes. */
  readonly stay: number;
  /** Positions on a `?`: any character moves them on. */
  readonly any: number;
  /** Positions moved on without reading: a `*`, a folded `?`. */
  readonly skip: number;
  /** By code point, the positions on that literal character. */
  readonly literal: ReadonlyMap<number, number>;
  /** The position past the last token. */
  readonly end: number;
  readonly openEnded: boolean;
}

/** A glob compiled for the name as written and for the folded name. */
export interface CompiledGlob {
  readonly written: GlobMatcher;
  readonly folded: GlobMatcher;
}

/** `pattern` as tokens; with `fold`, its literal runs folded as names are (the wildcards kept as wildcards). */
function tokensOf(pattern: string, fold: boolean): number[] {
  const tokens: number[] = [];
  let literal = '';
  const flush = (): void => {
    for (const char of fold ? foldName(literal) : literal) tokens.push(char.codePointAt(0) as number);
    literal = '';
  };
  for (const char of pattern) {
    if (char !== '*' && char !== '?') {
      literal += char;
      continue;
    }
    flush();
    if (char === '?') tokens.push(fold ? ONE_OR_NONE : ONE);
    // Two stars in a row match what one does.
    else if (tokens[tokens.length - 1] !== ANY_RUN) tokens.push(ANY_RUN);
  }
  flush();
  return tokens;
}

const MAX_BIT_POSITIONS = 30;
// Surrogates and astral characters compare by code point in a position set; a string search could match half a pair.
const SURROGATES = 0xd800;
const AFTER_SURROGATES = 0xe000;
const LAST_BMP = 0xffff;

function bitsOf(tokens: readonly number[]): PositionBits {
  let stay = 0;
  let any = 0;
  let skip = 0;
  const literal = new Map<number, number>();
  tokens.forEach((token, at) => {
    const bit = 1 << at;
    if (token === ANY_RUN) stay |= bit;
    if (token === ONE || token === ONE_OR_NONE) any |= bit;
    if (token === ANY_RUN || token === ONE_OR_NONE) skip |= bit;
    if (token >= 0) literal.set(token, (literal.get(token) ?? 0) | bit);
  });
  return { stay, any, skip, literal, end: 1 << tokens.length, openEnded: tokens[tokens.length - 1] === ANY_RUN };
}

function matcherOf(tokens: number[]): GlobMatcher {
  const needsPositions = tokens.some((token) => token === ONE || token === ONE_OR_NONE || (token >= SURROGATES && token < AFTER_SURROGATES) || token > LAST_BMP);
  if (needsPositions && tokens.length < MAX_BIT_POSITIONS) return { kind: 'bits', bits: bitsOf(tokens) };
  if (needsPositions) return { kind: 'positions', tokens: Int32Array.from(tokens) };
  const runs: string[] = [''];
  for (const token of tokens) {
    if (token === ANY_RUN) runs.push('');
    else runs[runs.length - 1] += String.fromCharCode(token);
  }
  return { kind: 'runs', runs };
}

export function compileGlob(pattern: string): CompiledGlob {
  return { written: matcherOf(tokensOf(pattern, false)), folded: matcherOf(tokensOf(pattern, true)) };
}

/** Whether the whole of `name` matches. */
export function runGlob(matcher: GlobMatcher, name: string): boolean {
  if (matcher.kind === 'runs') return matchRuns(matcher.runs, name);
  return matcher.kind === 'bits' ? matchBits(matcher.bits, name) : matchPositions(matcher.tokens, name);
}

/**
 * Runs split by stars: the first is a prefix, the last a suffix, and each one between is found
 * leftmost after the one before (taking a later place never helps a later run).
 */
function matchRuns(runs: readonly string[], name: string): boolean {
  const prefix = runs[0] as string;
  if (runs.length === 1) return name === prefix;
  const suffix = runs[runs.length - 1] as string;
  const end = name.length - suffix.length;
  if (end < prefix.length || !name.startsWith(prefix) || !name.endsWith(suffix)) return false;
  let from = prefix.length;
  for (let index = 1; index < runs.length - 1; index += 1) {
    const run = runs[index] as string;
    const at = name.indexOf(run, from);
    if (at === -1 || at + run.length > end) return false;
    from = at + run.length;
  }
  return true;
}

/** The positions reachable from `reached` without reading; a chain of skips is as long as a run of `*` and `?`, so this loops little. */
function closeBits(bits: PositionBits, reached: number): number {
  let closed = reached;
  for (let added = ((closed & bits.skip) << 1) & ~closed; added !== 0; added = ((added & bits.skip) << 1) & ~closed) closed |= added;
  return closed;
}

/** The position set as the bits of one integer (shift-and): a few integer operations per code point. */
function matchBits(bits: PositionBits, name: string): boolean {
  let reached = closeBits(bits, 1);
  for (const char of name) {
    if (bits.openEnded && (reached & bits.end) !== 0) return true;
    const moving = reached & (bits.any | (bits.literal.get(char.codePointAt(0) as number) ?? 0));
    reached = closeBits(bits, (reached & bits.stay) | (moving << 1));
    if (reached === 0) return false;
  }
  return (reached & bits.end) !== 0;
}

/** The position set as a list, for patterns too long for one integer: each step visits each position at most once. */
function matchPositions(tokens: Int32Array, name: string): boolean {
  const end = tokens.length;
  // seen[at] === step: position `at` is already in the set for this step (no clearing between steps).
  const seen = new Int32Array(end + 1).fill(-1);
  let reached: number[] = [];
  let next: number[] = [];
  let step = 0;
  // Adds a position and those reachable from it without reading (past a `*` or a folded `?`).
  const reach = (set: number[], from: number): void => {
    for (let at = from; at <= end && seen[at] !== step; at += 1) {
      seen[at] = step;
      set.push(at);
      if (at === end || (tokens[at] !== ANY_RUN && tokens[at] !== ONE_OR_NONE)) return;
    }
  };
  // Once a trailing `*` is reached, whatever follows matches.
  const openEnded = tokens[end - 1] === ANY_RUN;
  reach(reached, 0);
  for (const char of name) {
    if (openEnded && seen[end] === step) return true;
    const point = char.codePointAt(0) as number;
    step += 1;
    for (const at of reached) {
      if (at === end) continue;
      const token = tokens[at] as number;
      if (token === ANY_RUN) reach(next, at);
      else if (token === ONE || token === ONE_OR_NONE || token === point) reach(next, at + 1);
    }
    // No position left: the rest of the name cannot change the answer.
    if (next.length === 0) return false;
    [reached, next] = [next, reached];
    next.length = 0;
  }
  return seen[end] === step;
}
