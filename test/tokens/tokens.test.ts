// Behaviour of src/tokens: o200k counts cross-checked against js-tiktoken (an independent
// implementation of the same encoding), the early-exit limit check, canonical JSON and sha256.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getEncoding } from 'js-tiktoken';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { MAX_JSON_DEPTH, canonicalJson, countTokens, isWithinTokenLimit, sha256Hex, TOKENIZER } from '../../src/tokens/index.js';
import { countExact, needsExactPath } from '../../src/tokens/_exact-bpe.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const PULLS_BODY = `${FIXTURES}github-pulls-issues/pygithub/openmicroscopy_ome-documentation_pulls_state-closed.body.json`;
const ISSUES_BODY = `${FIXTURES}github-pulls-issues/pygithub/PyGithub_PyGithub_issues_page1.body.json`;
const CATALOGS = `${FIXTURES}mcp-tool-catalogs/`;

const MIB = 1_048_576;

// The reference: js-tiktoken's o200k_base with special tokens treated as plain text
// (`allowedSpecial = []`, `disallowedSpecial = []`: nothing is special, nothing throws).
const reference = getEncoding('o200k_base');
function referenceCount(text: string): number {
  return reference.encode(text, [], []).length;
}

/** What `run` throws (undefined when it returns). */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Both counters on the same text; the message names the input when they disagree. */
function expectSameCount(label: string, text: string): number {
  const ours = countTokens(text);
  const theirs = referenceCount(text);
  expect(ours, `${label}: gpt-tokenizer ${ours} vs js-tiktoken ${theirs}`).toBe(theirs);
  return ours;
}

// Every special-token string o200k_base (and its harmony variant) knows, plus the ones of the
// older encodings: all of them are ordinary text here.
const SPECIAL_TOKENS = [
  ...new Set([
    ...Object.keys(o200kRanks.special_tokens),
    '<|endoftext|>',
    '<|endofprompt|>',
    '<|fim_prefix|>',
    '<|fim_middle|>',
    '<|fim_suffix|>',
    '<|im_start|>',
    '<|im_end|>',
    '<|im_sep|>',
    '<|startoftext|>',
    '<|start|>',
    '<|end|>',
    '<|message|>',
    '<|channel|>',
    '<|return|>',
    '<|constrain|>',
    '<|call|>',
    '<|reserved_200013|>',
  ]),
];

const EDGE_STRINGS: ReadonlyArray<readonly [string, string]> = [
  ['empty', ''],
  ['endoftext inside text', 'before <|endoftext|> after'],
  ['endofprompt inside text', 'question<|endofprompt|>answer'],
  ['fim_prefix inside text', 'def f():<|fim_prefix|>    return 1<|fim_suffix|>\n<|fim_middle|>'],
  ['all special tokens in a row', SPECIAL_TOKENS.join('')],
  ['special tokens with spaces', SPECIAL_TOKENS.join(' ')],
  ['broken special tokens', '<|endoftext <|endoftext| endoftext|> <||> <|<|endoftext|>|> <|ENDOFTEXT|>'],
  ['emoji', '😀😃😄 👍 🎉🚀 ❤️ ☃ ✔'],
  ['emoji skin tones', '👍🏻👍🏼👍🏽👍🏾👍🏿'],
  ['emoji ZWJ family', '👨‍👩‍👧‍👦 👩‍❤️‍💋‍👨 🧑🏿‍💻'],
  ['emoji flags', '🇫🇷🇯🇵🇺🇸🇧🇷 🏳️‍🌈 🏴‍☠️ 🏴󠁧󠁢󠁳󠁣󠁴󠁿'],
  ['keycaps', '1️⃣2️⃣#️⃣*️⃣'],
  ['Chinese', '你好，世界！今天天气很好，我们去公园散步吧。数据库连接失败：请检查配置。'],
  ['Japanese', '日本語のテキストです。カタカナ、ひらがな、漢字を混ぜた文章。ﾊﾝｶｸｶﾀｶﾅ'],
  ['Korean', '안녕하세요 세계! 한국어 문장입니다. 도구 목록을 가져오는 중 오류가 발생했습니다.'],
  ['Arabic', 'مرحبا بالعالم، هذه جملة عربية مع أرقام ١٢٣٤٥ وتشكيل: مُحَمَّد'],
  ['Hebrew', 'שלום עולם, זה משפט בעברית עם ניקוד: בְּרֵאשִׁית'],
  ['bidi controls', 'abc\u200fאבג\u200e123\u202eevil\u202c\u2066iso\u2069'],
  ['combining marks', 'e\u0301 a\u0300\u0301\u0302\u0303 n\u0303 Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇'],
  ['other scripts', 'नमस्ते दुनिया • สวัสดีชาวโลก • Привет, мир • Γειά σου Κόσμε • ሰላም'],
  ['lone high surrogate', '\uD800'],
  ['lone low surrogate between letters', 'a\uDFFFb'],
  ['reversed surrogate pair', '\uDC00\uD800'],
  ['two high surrogates', '\uDBFF\uDBFF x'],
  ['astral and private use', '\u{10FFFF}\u{E000}\u{1D11E}\u{20BB7}'],
  ['NUL', '\u0000'],
  ['NUL between letters', 'a\u0000b\u0000\u0000c'],
  ['C0 controls and DEL', Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join('') + '\u007f'],
  ['C1 controls', Array.from({ length: 32 }, (_, i) => String.fromCharCode(0x80 + i)).join('')],
  ['invisible spaces', 'a\u200bb\u00a0c\u2028d\u2029e\u3000f\u180eg\u2060h\u00adi'],
  ['long whitespace runs', ' '.repeat(2000) + 'x' + '\t'.repeat(1000) + '\n'.repeat(1000) + '\r\n'.repeat(500) + 'y'],
  ['mixed whitespace run', ' \t\n\r\u000b\u000c'.repeat(300)],
  ['contractions and digits', "I'm sure you'll see they've 12345678901234567890 3.14159 1e-9 0x1F"],
  ['code and JSON', '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x","inputSchema":{"type":"object"}}]}}\nconst a = b?.c ?? d;'],
];

describe('countTokens agrees with js-tiktoken o200k_base', () => {
  it('uses o200k_base from gpt-tokenizer', () => {
    expect(TOKENIZER.encoding).toBe('o200k_base');
    expect(TOKENIZER.name).toBe('gpt-tokenizer');
  });

  it('counts the empty string as 0', () => {
    expect(countTokens('')).toBe(0);
    expect(referenceCount('')).toBe(0);
  });

  it.each(EDGE_STRINGS)('%s', (label, text) => {
    expectSameCount(label, text);
  });

  // U+FEFF (the UTF-8 BOM, bytes EF BB BF) is a token of its own in o200k (rank 5574), and starts
  // eight more ranks ("\uFEFFusing", "\uFEFF\uFEFF", ...). Files with a BOM are common on Windows.
  it.each([
    ['BOM alone', '\uFEFF'],
    ['two BOMs', '\uFEFF\uFEFF'],
    ['BOM before JSON', '\uFEFF{"a":1}'],
    ['BOM-prefixed C# file', '\uFEFFusing System;\nnamespace Demo { }\n'],
    ['BOM inside text', 'before\uFEFFafter'],
  ])('byte order mark: %s', (label, text) => {
    expectSameCount(label, text);
  });

  it.each(SPECIAL_TOKENS)('special token %s alone is plain text', (token) => {
    const count = expectSameCount(token, token);
    // As text it splits into several ordinary tokens, never the one special id.
    expect(count).toBeGreaterThan(1);
  });

  it('never throws on special-token strings', () => {
    for (const token of SPECIAL_TOKENS) {
      expect(() => countTokens(`x${token}y`)).not.toThrow();
      expect(() => isWithinTokenLimit(`x${token}y`, 5)).not.toThrow();
    }
  });

  // BPE of one long pre-tokenizer piece costs O(n^2) in both libraries (a run of one letter or of
  // whitespace is a single piece). js-tiktoken needs ~34 s for 16 KiB of "a", so the cross-check
  // runs on 2 KiB runs, including the odd tails; the 1 MiB runs are below.
  // (Multiples of 128 are checked with the closed form below.)
  it.each([
    ['a', 2049],
    ['a', 2055],
    [' ', 2049],
    [' ', 2175],
    ['é', 1025],
  ] as const)('a run of %j, %i long', (char, length) => {
    expectSameCount(`${JSON.stringify(char)} x ${length}`, char.repeat(length));
  });

  it('agrees on 1 MiB of many short pieces (words, digits, punctuation)', () => {
    const text = 'word 12, ünïcødé! <|endoftext|>\n'.repeat(Math.ceil(MIB / 32)).slice(0, MIB);
    expect(text.length).toBe(MIB);
    expectSameCount('1 MiB of short pieces', text);
  });

  it('agrees on the real 424 KB GitHub pulls payload, raw and re-serialized', () => {
    const raw = readFileSync(PULLS_BODY, 'utf8');
    expect(Buffer.byteLength(raw)).toBe(424_635);
    const rawCount = expectSameCount('pulls body (raw file text)', raw);
    const reserialized = JSON.stringify(JSON.parse(raw));
    const reserializedCount = expectSameCount('pulls body (JSON.stringify of JSON.parse)', reserialized);
    expect(rawCount).toBeGreaterThan(100_000);
    expect(reserializedCount).toBeGreaterThan(100_000);
  });

  it('agrees on the real 97 KB GitHub issues payload', () => {
    const raw = readFileSync(ISSUES_BODY, 'utf8');
    expectSameCount('issues body (raw file text)', raw);
    expectSameCount('issues body (JSON.stringify of JSON.parse)', JSON.stringify(JSON.parse(raw)));
  });

  const catalogFiles = readdirSync(CATALOGS)
    .filter((name) => name.endsWith('.tools.json'))
    .sort();

  it('has the real catalogs to check', () => {
    expect(catalogFiles.length).toBeGreaterThanOrEqual(8);
  });

  it.each(catalogFiles)('agrees on the real catalog %s (file, canonical JSON, each tool)', (name) => {
    const raw = readFileSync(`${CATALOGS}${name}`, 'utf8');
    expectSameCount(`${name} (raw file text)`, raw);
    const parsed = JSON.parse(raw) as { tools: unknown[] };
    expectSameCount(`${name} (canonical tools)`, canonicalJson(parsed.tools));
    for (const [index, tool] of parsed.tools.entries()) {
      expectSameCount(`${name} tool ${index}`, canonicalJson(tool));
    }
  });
});

// 1 MiB (1,048,576 chars) of one repeated letter, space or mark is a single pre-tokenizer piece.
// js-tiktoken merges a piece in O(n^2) (about 1 s for 4 KiB of "a" here, so hours for 1 MiB), so
// at 1 MiB the check is against the closed form for lengths that are multiples of 128 (one token
// per 8 "a", per 128 spaces, per "é"), which js-tiktoken confirms on shorter runs just below. A
// digit run splits into 3-digit pieces, so 1 MiB of "7" is checked against js-tiktoken itself.
describe('runs of one character', () => {
  const closedForm = { a: 8, ' ': 128, é: 1 } as const;
  const expected = (char: keyof typeof closedForm, length: number): number => {
    if (length % 128 !== 0) throw new Error(`closed form only for multiples of 128, got ${length}`);
    return length / closedForm[char];
  };

  it.each([
    ['a', 1024],
    ['a', 4096],
    [' ', 1024],
    [' ', 4096],
    ['é', 640],
    ['é', 2048],
  ] as const)('js-tiktoken and countTokens follow the closed form for %j x %i', (char, length) => {
    const text = char.repeat(length);
    expect(referenceCount(text)).toBe(expected(char, length));
    expect(countTokens(text)).toBe(expected(char, length));
  });

  it.each(['a', ' ', 'é'] as const)('countTokens of 1 MiB of %j follows it too', (char) => {
    expect(countTokens(char.repeat(MIB))).toBe(expected(char, MIB));
  });

  it('agrees with js-tiktoken on 1 MiB of one digit', () => {
    expectSameCount('1 MiB of "7"', '7'.repeat(MIB));
  });

  it('isWithinTokenLimit of 1 MiB of "a" with limit 10 is false, and exact at its count', () => {
    expect(isWithinTokenLimit('a'.repeat(MIB), 10)).toBe(false);
    expect(isWithinTokenLimit('a'.repeat(MIB), MIB / 8)).toBe(MIB / 8);
  });
});

// The exact path (heap-ordered BPE over gpt-tokenizer's ranks) is what counts long runs and text
// with a BOM; forced onto every real text here, it must agree with js-tiktoken everywhere.
describe('the exact counting path', () => {
  const realTexts = (): Array<[string, string]> => [
    ['pulls body', readFileSync(PULLS_BODY, 'utf8')],
    ['issues body', readFileSync(ISSUES_BODY, 'utf8')],
    ...readdirSync(CATALOGS)
      .filter((name) => name.endsWith('.tools.json'))
      .map((name): [string, string] => [name, readFileSync(`${CATALOGS}${name}`, 'utf8')]),
    ...EDGE_STRINGS.map(([label, text]): [string, string] => [label, text]),
  ];

  it('agrees with js-tiktoken on every real text and edge string', () => {
    for (const [label, text] of realTexts()) {
      expect({ label, count: countExact(text) }).toEqual({ label, count: referenceCount(text) });
    }
  });

  it('is taken only where it is needed', () => {
    expect(needsExactPath('plain text, short words')).toBe(false);
    expect(needsExactPath('x\uFEFFy')).toBe(true);
    expect(needsExactPath('a'.repeat(300))).toBe(true);
    expect(needsExactPath('ab '.repeat(300))).toBe(false);
    expect(needsExactPath(' '.repeat(300))).toBe(true);
    expect(needsExactPath('-'.repeat(300))).toBe(true);
    expect(needsExactPath('7'.repeat(3000))).toBe(false);
  });
});

describe('input that is not text', () => {
  it('countTokens and isWithinTokenLimit refuse it with McpctxError INVALID_ARGUMENT', () => {
    for (const input of [undefined, null, 12, { text: 'x' }]) {
      expect(thrownBy(() => countTokens(input as unknown as string))).toMatchObject({ name: 'McpctxError', code: 'INVALID_ARGUMENT' });
      expect(thrownBy(() => isWithinTokenLimit(input as unknown as string, 5))).toMatchObject({ name: 'McpctxError', code: 'INVALID_ARGUMENT' });
    }
  });
});

describe('isWithinTokenLimit', () => {
  const text = 'The quick brown fox jumps over the lazy dog. <|endoftext|> 😀';
  const count = countTokens(text);

  it('returns the exact count when under or at the limit', () => {
    expect(count).toBeGreaterThan(5);
    expect(isWithinTokenLimit(text, count + 1)).toBe(count);
    expect(isWithinTokenLimit(text, count)).toBe(count);
    expect(isWithinTokenLimit(text, 1_000_000)).toBe(count);
  });

  it('returns false when over the limit', () => {
    expect(isWithinTokenLimit(text, count - 1)).toBe(false);
    expect(isWithinTokenLimit(text, 0)).toBe(false);
  });

  it('returns 0 for the empty string under limit 0', () => {
    expect(isWithinTokenLimit('', 0)).toBe(0);
  });

  it('refuses a negative or NaN limit with McpctxError INVALID_ARGUMENT', () => {
    for (const limit of [-1, -0.5, Number.NaN, Number.POSITIVE_INFINITY, '3' as unknown as number]) {
      expect(thrownBy(() => isWithinTokenLimit('abc', limit))).toMatchObject({ name: 'McpctxError', code: 'INVALID_ARGUMENT' });
    }
  });

  it('agrees with countTokens on the real payload around its exact count', () => {
    const raw = readFileSync(PULLS_BODY, 'utf8');
    const total = countTokens(raw);
    expect(isWithinTokenLimit(raw, total)).toBe(total);
    expect(isWithinTokenLimit(raw, total - 1)).toBe(false);
    expect(isWithinTokenLimit(raw, 1000)).toBe(false);
  });

  it('says false for 1 MiB of short pieces under limit 10', () => {
    const big = 'ab '.repeat(Math.ceil(MIB / 3)).slice(0, MIB);
    expect(big.length).toBe(MIB);
    expect(isWithinTokenLimit(big, 10)).toBe(false);
  });
});

describe('canonicalJson', () => {
  it('keeps key order as parsed', () => {
    expect(canonicalJson(JSON.parse('{"b":1,"a":2}'))).toBe('{"b":1,"a":2}');
    expect(canonicalJson(JSON.parse('{"z":{"y":1,"x":[{"b":0,"a":0}]},"a":null}'))).toBe(
      '{"z":{"y":1,"x":[{"b":0,"a":0}]},"a":null}',
    );
  });

  it('removes whitespace', () => {
    const pretty = '{\n  "name" : "read_file",\n\t"inputSchema": { "type": "object", "required": [ "path" ] }\r\n}\n';
    expect(canonicalJson(JSON.parse(pretty))).toBe('{"name":"read_file","inputSchema":{"type":"object","required":["path"]}}');
  });

  it('writes strings as JSON.stringify does', () => {
    expect(canonicalJson(JSON.parse('"\\u00e9"'))).toBe('"é"');
    expect(canonicalJson(JSON.parse('"\\ud83d\\ude00 \\/ \\u0000 \\t"'))).toBe('"😀 / \\u0000 \\t"');
    expect(canonicalJson('\uD800')).toBe('"\\ud800"');
    expect(canonicalJson({ s: 'a\u2028b"\\' })).toBe(JSON.stringify({ s: 'a\u2028b"\\' }));
  });

  it('equals JSON.stringify on the real payloads', () => {
    for (const file of [PULLS_BODY, ISSUES_BODY]) {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      expect(canonicalJson(parsed)).toBe(JSON.stringify(parsed));
    }
  });

  it('refuses a value with no JSON form with McpctxError INVALID_ARGUMENT', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const value of [undefined, () => 1, Symbol('s'), 10n, { n: 10n }]) {
      expect(thrownBy(() => canonicalJson(value))).toMatchObject({ name: 'McpctxError', code: 'INVALID_ARGUMENT' });
    }
    // A cycle nests without end: refused by the nesting bound before JSON.stringify sees it.
    expect(thrownBy(() => canonicalJson(cyclic))).toMatchObject({ name: 'McpctxError', code: 'NESTING_TOO_DEEP' });
  });

  it('refuses a value nested deeper than MAX_JSON_DEPTH with NESTING_TOO_DEEP, and accepts one at it', () => {
    const nested = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));
    expect(canonicalJson(nested(MAX_JSON_DEPTH))).toBe('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH));
    expect(thrownBy(() => canonicalJson(nested(MAX_JSON_DEPTH + 1)))).toMatchObject({ code: 'NESTING_TOO_DEEP' });
    // 200,000 levels: JSON.stringify would overflow the stack with a RangeError.
    const error = thrownBy(() => canonicalJson(nested(200_000)));
    expect(error).toBeInstanceOf(McpctxError);
    expect((error as Error).message).toContain(String(MAX_JSON_DEPTH));
  });
});

describe('sha256Hex', () => {
  it('refuses what is neither text nor bytes with McpctxError INVALID_ARGUMENT', () => {
    for (const input of [undefined, null, 12, {}]) {
      expect(thrownBy(() => sha256Hex(input as string))).toMatchObject({ name: 'McpctxError', code: 'INVALID_ARGUMENT' });
    }
  });

  it('gives the known digests', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex(new Uint8Array(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes a string as its UTF-8 bytes', () => {
    for (const text of ['héllo wörld 😀 你好', '<|endoftext|>', 'a\u0000b', 'a\uDFFFb']) {
      expect(sha256Hex(text)).toBe(sha256Hex(new TextEncoder().encode(text)));
    }
  });

  it('hashes the real payload file text as the file bytes', () => {
    const bytes = readFileSync(PULLS_BODY);
    expect(sha256Hex(bytes.toString('utf8'))).toBe(sha256Hex(new Uint8Array(bytes)));
    expect(sha256Hex(new Uint8Array(bytes))).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(sha256Hex(new Uint8Array(bytes))).toBe('47ebf6be7241220786e95b275eaa9fd340513c2c4d859c8601945fe490dd9cab');
  });
});
