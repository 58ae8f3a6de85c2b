// allow / deny patterns: a glob matcher with no backtracking (checked against a regex reference on
// every short pattern and name), the folding that `deny` and `allow` share with the shadowing
// check (issue 30, item 7), and the length past which no name is allowed.
import { describe, expect, it } from 'vitest';
import {
  MAX_TOOL_NAME_CHARS,
  type GatewayConfig,
  isToolAllowed,
  matchesGlob,
  matchesNameRule,
  parseGatewayConfig,
  visibleToolName,
} from '../../src/gateway/config/index.js';
import { foldName } from '../../src/text/index.js';

/** The reference: a glob as an anchored RegExp (backtracking, so only for short strings); `?` is `one` (written) or optional (folded). */
function referenceRegex(pattern: string, one: string): RegExp {
  const body = [...pattern].map((char) => (char === '*' ? '[\\s\\S]*' : char === '?' ? one : char.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'u');
}

function referenceGlob(pattern: string, name: string): boolean {
  return referenceRegex(pattern, '[\\s\\S]').test(name);
}

/** Written, or both folded (literal runs folded one by one, wildcards kept), a folded `?` standing for one character or none. */
function referenceNameRule(pattern: string, name: string): boolean {
  return referenceGlob(pattern, name) || referenceRegex(foldPattern(pattern), '[\\s\\S]?').test(foldName(name));
}

/** A second reference for patterns too long for a backtracking RegExp: the table of which pattern prefix matches which name prefix. */
function referenceTable(pattern: string, name: string, foldedQuestionMark: boolean): boolean {
  const tokens = [...pattern];
  const chars = [...name];
  let row = chars.map(() => false);
  row.unshift(true);
  for (const token of tokens) {
    const next = [token === '*' ? row[0] === true : token === '?' && foldedQuestionMark && row[0] === true];
    for (let at = 1; at <= chars.length; at += 1) {
      if (token === '*') next.push(row[at] === true || next[at - 1] === true);
      else if (token === '?') next.push(row[at - 1] === true || (foldedQuestionMark && row[at] === true));
      else next.push(row[at - 1] === true && chars[at - 1] === token);
    }
    row = next;
  }
  return row[chars.length] === true;
}

function foldPattern(pattern: string): string {
  return pattern
    .split(/([*?])/u)
    .map((part) => (part === '*' || part === '?' ? part : foldName(part)))
    .join('');
}

/** A name made from the pattern (a character for each `?`, a few for each `*`), then maybe changed in one place: a match, or nearly. */
function nameNear(pattern: string, random: () => number): string {
  const chars = [...pattern].flatMap((token) => {
    if (token === '*') return [...randomString(random, ['a', 'b', '_'], 3)];
    if (token === '?') return random() < 0.8 ? [random() < 0.5 ? 'b' : '_'] : [];
    return random() < 0.1 ? [token.toUpperCase()] : [token];
  });
  if (chars.length > 0 && random() < 0.3) chars[Math.floor(random() * chars.length)] = random() < 0.5 ? 'a' : '-';
  return chars.join('');
}

/** Every string of up to `length` characters from `alphabet`. */
function allStrings(alphabet: readonly string[], length: number): string[] {
  let level = [''];
  const all = [''];
  for (let size = 1; size <= length; size += 1) {
    level = level.flatMap((prefix) => alphabet.map((char) => prefix + char));
    all.push(...level);
  }
  return all;
}

/** A seeded generator (mulberry32), so a failure is the same on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function randomString(random: () => number, alphabet: readonly string[], maxLength: number): string {
  let out = '';
  const length = Math.floor(random() * (maxLength + 1));
  for (let at = 0; at < length; at += 1) out += alphabet[Math.floor(random() * alphabet.length)] as string;
  return out;
}

describe('matchesGlob', () => {
  it('agrees with the reference on every pattern of up to 5 tokens and every name of up to 6 characters', () => {
    const patterns = allStrings(['a', 'b', '*', '?'], 5);
    const names = allStrings(['a', 'b'], 6);
    const disagreements: string[] = [];
    for (const pattern of patterns) {
      for (const name of names) {
        if (matchesGlob(pattern, name) !== referenceGlob(pattern, name)) disagreements.push(`${pattern} ~ ${name}`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('agrees with the reference on random patterns and names with astral characters and RegExp syntax', () => {
    const random = seeded(30);
    const disagreements: string[] = [];
    for (let run = 0; run < 20_000; run += 1) {
      const pattern = randomString(random, ['a', 'b', '*', '?', '.', '\u{1F600}', '(', '\\'], 8);
      const name = randomString(random, ['a', 'b', '.', '\u{1F600}', '(', '\\'], 10);
      if (matchesGlob(pattern, name) !== referenceGlob(pattern, name)) disagreements.push(`${pattern} ~ ${name}`);
    }
    expect(disagreements).toEqual([]);
  });

  // How long it takes is the ping-gap test's to say (name-rules-gap.test.ts): no timing here.
  it('matches a 280 KB name', () => {
    const huge = 'delete_'.repeat(40_000);
    expect([matchesGlob('*delete*repo*', huge), matchesGlob('*delete*repo*', `${huge}repo`), matchesNameRule('*DELETE*REPO*', huge)]).toEqual([false, true, false]);
  });
});

describe('matchesNameRule', () => {
  it('agrees with the reference on random patterns and names with case, separators, look-alikes and full-width forms', () => {
    const random = seeded(7);
    const disagreements: string[] = [];
    for (let run = 0; run < 20_000; run += 1) {
      const pattern = randomString(random, ['a', 'B', '_', '-', ' ', '.', '*', '?', 'а' /* Cyrillic */, 'Ａ'], 7);
      const name = randomString(random, ['a', 'b', 'A', '_', '-', ' ', '.', 'а', 'Ａ', 'ｂ'], 9);
      if (matchesNameRule(pattern, name) !== referenceNameRule(pattern, name)) disagreements.push(`${JSON.stringify(pattern)} ~ ${JSON.stringify(name)}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('agrees with the table reference on patterns of 30 to 45 tokens (past what one integer holds)', () => {
    const random = seeded(45);
    const disagreements: string[] = [];
    for (let run = 0; run < 3_000; run += 1) {
      let pattern = '';
      const length = 30 + Math.floor(random() * 16);
      while ([...pattern].length < length) pattern += randomString(random, ['a', 'b', '?', '?', '*', 'A', '_'], 1);
      const name = run % 2 === 0 ? randomString(random, ['a', 'b', 'B', '_', '-'], 50) : nameNear(pattern, random);
      const written = referenceTable(pattern, name, false);
      if (matchesGlob(pattern, name) !== written) disagreements.push(`glob ${pattern} ~ ${name}`);
      const rule = written || referenceTable(foldPattern(pattern), foldName(name), true);
      if (matchesNameRule(pattern, name) !== rule) disagreements.push(`rule ${pattern} ~ ${name}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('a full-width star in a pattern is a literal star, not a wildcard', () => {
    expect(matchesNameRule('a\uFF0Ab', 'a*b')).toBe(true);
    expect(matchesNameRule('a\uFF0Ab', 'axb')).toBe(false);
  });
});

describe('deny and allow match folded names', () => {
  const one = (rules: string): GatewayConfig => parseGatewayConfig(`mcpServers:\n  gh: { command: x }\n${rules}`);
  const several = (rules: string): GatewayConfig => parseGatewayConfig(`mcpServers:\n  gh: { command: x }\n  fs: { command: y }\n${rules}`);
  const allowed = (config: GatewayConfig, upstream: string, own: string): boolean => isToolAllowed(config, upstream, own, visibleToolName(config, upstream, own));
  const DODGES = ['delete_repo', 'DELETE_REPO', 'delete-repo', ' delete_repo ', 'delete_repo ', 'Delete.Repo', 'deleterepo', 'dеlete_repo' /* Cyrillic е */, 'ｄｅｌｅｔｅ＿ｒｅｐｏ' /* full-width */, 'DЕLЕTЕ_RЕPО' /* Cyrillic capitals */];

  it('deny: [delete_repo] denies every spelling of it that folds alike, and nothing else', () => {
    const config = one('deny: [delete_repo]\n');
    expect(DODGES.filter((name) => allowed(config, 'gh', name))).toEqual([]);
    expect(['delete_repos', 'delete_rep', 'undelete_repo', 'delete_report'].filter((name) => allowed(config, 'gh', name))).toHaveLength(4);
  });

  it('a deny glob folds too, and a folded ? may stand for a separator folded away', () => {
    expect(DODGES.filter((name) => allowed(one('deny: ["*delete*repo*"]\n'), 'gh', name))).toEqual([]);
    expect(DODGES.filter((name) => allowed(one('deny: ["delete?repo"]\n'), 'gh', name))).toEqual([]);
    expect(allowed(one('deny: ["delete?repo"]\n'), 'gh', 'deleteXrepo')).toBe(false);
    expect(allowed(one('deny: ["delete?repo"]\n'), 'gh', 'delete__repo')).toBe(false);
    expect(allowed(one('deny: ["DELETE_*"]\n'), 'gh', 'delete_everything')).toBe(false);
  });

  it('namespaced names and per-server maps fold the same way', () => {
    const visible = several('deny: [gh__delete_repo]\n');
    expect(allowed(visible, 'gh', 'DELETE-REPO')).toBe(false);
    expect(allowed(visible, 'fs', 'DELETE-REPO')).toBe(true);
    const perServer = several('deny: { gh: [delete_repo] }\n');
    expect(allowed(perServer, 'gh', 'dеlete_repo')).toBe(false);
    expect(allowed(perServer, 'fs', 'dеlete_repo')).toBe(true);
  });

  it('allow folds as well, so it also offers the spellings that fold alike (it is broader than written)', () => {
    const config = one('allow: [read_file]\n');
    expect(allowed(config, 'gh', 'Read-File')).toBe(true);
    expect(allowed(config, 'gh', 'READ_FILE')).toBe(true);
    expect(allowed(config, 'gh', 'read_files')).toBe(false);
    expect(allowed(config, 'gh', 'write_file')).toBe(false);
  });

  it(`a name over ${MAX_TOOL_NAME_CHARS} characters is never allowed, whatever the rules`, () => {
    const open = one('');
    expect(allowed(open, 'gh', 'x'.repeat(MAX_TOOL_NAME_CHARS))).toBe(true);
    expect(allowed(open, 'gh', 'x'.repeat(MAX_TOOL_NAME_CHARS + 1))).toBe(false);
    expect(allowed(one('allow: ["*"]\n'), 'gh', 'x'.repeat(280_000))).toBe(false);
    // With several servers the visible name (server and separator included) counts.
    expect(allowed(several(''), 'gh', 'x'.repeat(MAX_TOOL_NAME_CHARS - 2))).toBe(false);
  });
});
