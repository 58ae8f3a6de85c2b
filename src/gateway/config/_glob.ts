import { foldName } from '../../text/index.js';

/**
 * Globs for tool names, matched in O(name x pattern) steps with no backtracking: a name from a
 * peer can be long (a hostile upstream lists one, a client calls one) and a pattern like
 * `*delete*repo*` as a backtracking RegExp took 10 s on a 280 KB name, stalling every session.
 * The pattern runs as a set of positions reached so far (a Thompson simulation), one pass over
 * the name: every step costs at most one visit per pattern token, whatever the name holds.
 */

// Tokens: a code point (>= 0) matches itself; the wildcards are negative.
const ANY_RUN = -1; // `*`: any run of characters, none included
const ONE = -2; // `?` as written: exactly one character
const ONE_OR_NONE = -3; // `?` after folding: the character it stood for may have been a separator folded away

/** A glob compiled for the name as written and for the folded name. */
export interface CompiledGlob {
  readonly written: Int32Array;
  readonly folded: Int32Array;
}

/** `pattern` as tokens; with `fold`, its literal runs folded as names are (the wildcards kept as wildcards). */
function tokensOf(pattern: string, fold: boolean): Int32Array {
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
    // Two stars in a row match what one does; one token keeps the simulation small.
    else if (tokens[tokens.length - 1] !== ANY_RUN) tokens.push(ANY_RUN);
  }
  flush();
  return Int32Array.from(tokens);
}

export function compileGlob(pattern: string): CompiledGlob {
  return { written: tokensOf(pattern, false), folded: tokensOf(pattern, true) };
}

/** Adds the positions reachable without reading a character (past a `*` or a folded `?`). Tokens only move forward, so one pass does. */
function close(tokens: Int32Array, reached: Uint8Array): void {
  for (let at = 0; at < tokens.length; at += 1) {
    if (reached[at] === 1 && (tokens[at] === ANY_RUN || tokens[at] === ONE_OR_NONE)) reached[at + 1] = 1;
  }
}

/** Whether the whole of `name` matches `tokens`, code point by code point. */
export function runGlob(tokens: Int32Array, name: string): boolean {
  let reached = new Uint8Array(tokens.length + 1);
  let next = new Uint8Array(tokens.length + 1);
  // Once a trailing `*` is reached, whatever follows matches.
  const openEnded = tokens[tokens.length - 1] === ANY_RUN;
  reached[0] = 1;
  close(tokens, reached);
  for (const char of name) {
    if (openEnded && reached[tokens.length] === 1) return true;
    const point = char.codePointAt(0) as number;
    next.fill(0);
    let alive = false;
    for (let at = 0; at < tokens.length; at += 1) {
      if (reached[at] === 0) continue;
      const token = tokens[at] as number;
      if (token === ANY_RUN) next[at] = 1;
      else if (token === ONE || token === ONE_OR_NONE || token === point) next[at + 1] = 1;
      else continue;
      alive = true;
    }
    // No position left: the rest of the name cannot change the answer.
    if (!alive) return false;
    close(tokens, next);
    [reached, next] = [next, reached];
  }
  return reached[tokens.length] === 1;
}
