import { describe, expect, it } from 'vitest';
import {
  basename,
  extractFacts,
  extractTaskTerms,
  EXTRACTION_LIMITS,
  tokenizeWords,
} from '../../src/optimizer/_extract.js';

const JEST_FAILURE = [
  'FAIL src/config/loader.test.ts',
  '  loadConfig',
  '    ✓ reads a full file (3 ms)',
  '    ✕ reads an empty file (5 ms)',
  '',
  '  ● loadConfig › reads an empty file',
  '',
  "    TypeError: Cannot read properties of undefined (reading 'trim')",
  '',
  "      12 |   const raw = readFileSync(path, 'utf8');",
  '    > 13 |   return parseConfig(raw.trim());',
  '',
  '      at parseConfig (src/config/loader.ts:13:21)',
  '      at Object.<anonymous> (src/config/loader.test.ts:8:5)',
  '      at async Promise.all (index 0)',
  '      at async runTest (/home/dev/proj/node_modules/jest-circus/build/run.js:80:3)',
  '      at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
  '',
  'Test Suites: 1 failed, 1 total',
  'Tests:       1 failed, 1 passed, 2 total',
].join('\n');

const PYTHON_TRACEBACK = [
  'Traceback (most recent call last):',
  '  File "/home/dev/proj/app/main.py", line 12, in <module>',
  '    main()',
  '  File "/usr/lib/python3.11/json/decoder.py", line 337, in decode',
  '    obj, end = self.raw_decode(s, idx=_w(s, 0).end())',
  'json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)',
].join('\n');

const PYTEST_FAILURE = [
  'tests/test_parser.py::test_parse_empty FAILED                         [ 50%]',
  'tests/test_parser.py::test_parse_full PASSED                          [100%]',
  '    def test_parse_empty():',
  '>       assert parse_config("") == {}',
  'E       AssertionError: assert None == {}',
  'FAILED tests/test_parser.py::test_parse_empty - AssertionError: assert None == {}',
  '========================= 1 failed, 1 passed in 0.12s =========================',
].join('\n');

const TSC_OUTPUT = [
  "src/optimizer/_dedupe.ts(10,5): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
  "src/cli/main.ts:3:7 - error TS2304: Cannot find name 'optimize'.",
  '',
  'Found 2 errors in 2 files.',
].join('\n');

function message(text: string): ReturnType<typeof extractFacts> {
  return extractFacts(text, { kind: 'message' });
}

describe('extractFacts on a jest failure', () => {
  const facts = extractFacts(JEST_FAILURE, { kind: 'toolOutput' });

  it('finds the files, without line and column', () => {
    expect(facts.paths).toEqual([
      'src/config/loader.test.ts',
      'src/config/loader.ts',
      '/home/dev/proj/node_modules/jest-circus/build/run.js',
    ]);
  });

  it('reads the Node frames, async and anonymous ones included, node internals kept by file', () => {
    expect(facts.frames).toEqual([
      { language: 'node', file: 'src/config/loader.ts', line: 13, column: 21, fn: 'parseConfig' },
      { language: 'node', file: 'src/config/loader.test.ts', line: 8, column: 5, fn: 'Object.<anonymous>' },
      { language: 'node', file: '/home/dev/proj/node_modules/jest-circus/build/run.js', line: 80, column: 3, fn: 'runTest' },
      { language: 'node', file: 'node:internal/process/task_queues', line: 95, column: 5, fn: 'process.processTicksAndRejections' },
    ]);
  });

  it('takes the error line as the signature and names the failing tests', () => {
    expect(facts.errorSignatures).toEqual(["TypeError: Cannot read properties of undefined (reading 'trim')"]);
    expect(facts.testFailures).toEqual(['src/config/loader.test.ts', 'reads an empty file', 'loadConfig › reads an empty file']);
  });

  it('finds identifiers from the code excerpt and the frames', () => {
    expect(facts.symbols).toEqual(
      expect.arrayContaining(['loadConfig', 'TypeError', 'readFileSync', 'parseConfig', 'raw.trim', 'process.processTicksAndRejections']),
    );
    expect(facts.symbols).not.toContain('reads');
    expect(facts.symbols).not.toContain('const');
  });

  it('is a failure, with the first marker as evidence', () => {
    expect(facts.outcome).toBe('failure');
    expect(facts.outcomeEvidence).toBe('FAIL src/config/loader.test.ts');
  });
});

describe('Node frame shapes', () => {
  it('reads Windows paths, file URLs, aliases and location-only frames, and skips prose and <anonymous>', () => {
    const stack = [
      '    at fn (C:\\proj\\src\\y.js:10:5)',
      '    at file:///home/dev/x.mjs:3:9',
      '    at Foo.bar [as baz] (/srv/app/b.js:1:2)',
      '    at node:internal/main/run_main_module:23:47',
      '    at new Promise (<anonymous>)',
      'at least it works (src/x.ts:3:4)',
    ].join('\n');
    expect(extractFacts(stack, { kind: 'error' }).frames).toEqual([
      { language: 'node', file: 'C:\\proj\\src\\y.js', line: 10, column: 5, fn: 'fn' },
      { language: 'node', file: '/home/dev/x.mjs', line: 3, column: 9 },
      { language: 'node', file: '/srv/app/b.js', line: 1, column: 2, fn: 'Foo.bar' },
      { language: 'node', file: 'node:internal/main/run_main_module', line: 23, column: 47 },
    ]);
  });
});

describe('extractFacts on Python output', () => {
  it('reads a traceback: frames, the exception line, the paths', () => {
    const facts = extractFacts(PYTHON_TRACEBACK, { kind: 'error' });
    expect(facts.frames).toEqual([
      { language: 'python', file: '/home/dev/proj/app/main.py', line: 12, fn: '<module>' },
      { language: 'python', file: '/usr/lib/python3.11/json/decoder.py', line: 337, fn: 'decode' },
    ]);
    expect(facts.errorSignatures).toEqual(['json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)']);
    expect(facts.paths).toEqual(['/home/dev/proj/app/main.py', '/usr/lib/python3.11/json/decoder.py']);
    expect(facts.symbols).toEqual(expect.arrayContaining(['self.raw_decode', 'json.decoder.JSONDecodeError']));
    expect(facts.outcome).toBe('failure');
    expect(facts.outcomeEvidence).toBe('Traceback (most recent call last):');
  });

  it('reads pytest: both failure line styles, the E line as a signature, the summary', () => {
    const facts = extractFacts(PYTEST_FAILURE, { kind: 'toolOutput' });
    expect(facts.testFailures).toEqual(['tests/test_parser.py::test_parse_empty']);
    expect(facts.errorSignatures).toEqual(['AssertionError: assert None == {}']);
    expect(facts.paths).toEqual(['tests/test_parser.py']);
    expect(facts.symbols).toEqual(expect.arrayContaining(['test_parse_empty', 'parse_config']));
    expect(facts.outcome).toBe('failure');
  });

  it('takes the test name from a trailing FAILED only when it is a node id', () => {
    expect(extractFacts('tests/test_x.py::test_a FAILED', { kind: 'toolOutput' }).testFailures).toEqual(['tests/test_x.py::test_a']);
    expect(extractFacts('the build FAILED', { kind: 'toolOutput' }).testFailures).toEqual([]);
  });
});

describe('extractFacts on compiler and runtime errors', () => {
  it('keeps each tsc error line as a signature and strips (line,col) and :line:col from paths', () => {
    const facts = extractFacts(TSC_OUTPUT, { kind: 'toolOutput', exitCode: 2 });
    expect(facts.errorSignatures).toEqual(TSC_OUTPUT.split('\n').slice(0, 2));
    expect(facts.paths).toEqual(['src/optimizer/_dedupe.ts', 'src/cli/main.ts']);
    expect(facts.outcome).toBe('failure');
    expect(facts.outcomeEvidence).toBe('exitCode 2');
  });

  it('recognises Go, Rust, fatal and named-error lines, and caps a signature at 200 characters', () => {
    const text = [
      '--- FAIL: TestParseConfig (0.00s)',
      'panic: runtime error: index out of range [3] with length 3',
      'error[E0308]: mismatched types',
      'FATAL ERROR: Reached heap limit Allocation failed',
      'Uncaught ReferenceError: window is not defined',
      'TypeError [ERR_INVALID_ARG_TYPE]: The "path" argument must be of type string',
      'AssertionError',
      `RangeError: ${'x'.repeat(300)}`,
      'Error',
      'The ErrorBoundary renders fine',
    ].join('\n');
    const facts = extractFacts(text, { kind: 'toolOutput' });
    expect(facts.testFailures).toEqual(['TestParseConfig']);
    expect(facts.errorSignatures).toEqual([
      'panic: runtime error: index out of range [3] with length 3',
      'error[E0308]: mismatched types',
      'FATAL ERROR: Reached heap limit Allocation failed',
      'ReferenceError: window is not defined',
      'TypeError [ERR_INVALID_ARG_TYPE]: The "path" argument must be of type string',
      'AssertionError',
      `RangeError: ${'x'.repeat(300)}`.slice(0, 200),
    ]);
  });
});

describe('paths', () => {
  it('finds POSIX, relative and Windows paths, and bare file names with a known extension', () => {
    const facts = message(
      'Compare src/optimizer/_dedupe.ts with ./lib/index.js, ../x/y.py and /usr/lib/python3.11/json/decoder.py; ' +
        'on Windows C:\\Users\\a\\proj\\src\\app.ts and src\\utils\\helpers.cs; also parser.ts, setup.py and README.md.',
    );
    expect(facts.paths).toEqual([
      'src/optimizer/_dedupe.ts',
      './lib/index.js',
      '../x/y.py',
      '/usr/lib/python3.11/json/decoder.py',
      'C:\\Users\\a\\proj\\src\\app.ts',
      'src\\utils\\helpers.cs',
      'parser.ts',
      'setup.py',
      'README.md',
    ]);
  });

  it('strips quotes, brackets, trailing punctuation and :line:col', () => {
    const facts = message('See "src/a.ts:10:5", (src/b.ts:7), [lib/c.js]. Then `src/d.ts`! And \'src/e.ts\'?');
    expect(facts.paths).toEqual(['src/a.ts', 'src/b.ts', 'lib/c.js', 'src/d.ts', 'src/e.ts']);
  });

  it('skips URLs, versions, abbreviations, fractions, product names and calls', () => {
    const facts = message(
      'Read https://example.com/docs/guide.md and www.example.org/x.ts, git@github.com:a/b.git, node:internal/modules/cjs/loader. ' +
        'Version 1.2.3, e.g. and/or, km/h, 1/2, 2024/01/02, /compact, Node.js, docs.rs, response.json() and src/**/*.ts.',
    );
    expect(facts.paths).toEqual([]);
  });

  it('takes a diff header path without its a/ and b/ prefixes, and not /dev/null', () => {
    const diff = [
      'diff --git a/src/x.ts b/src/x.ts',
      '--- a/src/x.ts',
      '+++ b/src/x.ts',
      '@@ -1,3 +1,4 @@',
      "+import { y } from './y.js';",
      'diff --git a/docs/new.md b/docs/new.md',
      '--- /dev/null',
      '+++ b/docs/new.md',
    ].join('\n');
    expect(extractFacts(diff, { kind: 'diff', path: 'src/x.ts' }).paths).toEqual(['src/x.ts', './y.js', 'docs/new.md']);
  });

  it('leaves a/ prefixes alone outside diff headers', () => {
    expect(message('open a/b/c.ts').paths).toEqual(['a/b/c.ts']);
  });

  it('puts the record path first', () => {
    expect(extractFacts('imports lib/util.ts', { kind: 'file', path: 'src/main.ts' }).paths).toEqual(['src/main.ts', 'lib/util.ts']);
  });

  it('does not take string escapes for Windows paths', () => {
    expect(message('print("a\\nb\\tc") and \\d+\\.\\d+').paths).toEqual([]);
  });
});

describe('symbols', () => {
  it('finds camelCase, PascalCase, snake_case, member access, calls and backticked names', () => {
    const facts = message(
      'parseConfig and ContextOptimizer call read_file and __init__; fs.readFileSync, self.assertEqual and ' +
        'pydicom.dataset.Dataset too; then validate(input) and `parse` and `render()`. HTTPServer raised IOError.',
    );
    expect(facts.symbols).toEqual([
      'parseConfig',
      'ContextOptimizer',
      'read_file',
      '__init__',
      'fs.readFileSync',
      'self.assertEqual',
      'pydicom.dataset.Dataset',
      'validate',
      'parse',
      'render',
      'HTTPServer',
      'IOError',
    ]);
  });

  it('skips plain words, keywords, stop words, acronyms and their plurals, and prose before a parenthesis', () => {
    const facts = message(
      'The function returns const values; if (ok) return true. Use the APIs, URLs and JSON with JavaScript on GitHub. ' +
        'Check the file(s), e.g. the one (see notes), i.e. this, and `the` and `if`. function() {} do(x) `x`',
    );
    expect(facts.symbols).toEqual([]);
  });

  it('does not take file names, URLs or hashes for identifiers', () => {
    const facts = message('Edit src/config/loader.ts and config.json, see https://host.dev/fooBar/baz_qux, hash dGVzdEhhc2hWYWx1ZQ== and example.com');
    expect(facts.symbols).toEqual([]);
  });

  it('takes a call on a file-like name as a symbol', () => {
    expect(message('await response.json();').symbols).toEqual(['response.json']);
  });
});

describe('requirements', () => {
  it('returns each sentence with must, must not, do not, don\'t, never, always or should not, trimmed', () => {
    const text = [
      'Please look at the parser. You must not edit package.json! Do not touch src/config/loader.ts.',
      "  Don't add dependencies?   Keep it simple.",
      'Always run the tests, e.g. npm test, before committing. It should not print anything',
      'Never push to main. The function must return a Promise. Mustard is fine. Nevertheless, go on.',
    ].join('\n');
    expect(message(text).requirements).toEqual([
      'You must not edit package.json!',
      'Do not touch src/config/loader.ts.',
      "Don't add dependencies?",
      'Always run the tests, e.g. npm test, before committing.',
      'It should not print anything',
      'Never push to main.',
      'The function must return a Promise.',
    ]);
  });
});

describe('outcome', () => {
  it('never reads success from what an assistant says', () => {
    for (const text of ['I fixed the bug.', 'This should work now.', 'Done!', 'All green: Tests: 3 passed, 3 total']) {
      expect(message(text)).toMatchObject({ outcome: 'unknown' });
      expect(extractFacts(text, { kind: 'decision' }).outcome).toBe('unknown');
    }
    expect(message('I fixed the bug.').outcomeEvidence).toBeUndefined();
  });

  it('lets the exit code win over markers in the text', () => {
    expect(extractFacts('FAIL src/a.test.ts\nTests: 1 failed, 1 total', { kind: 'toolOutput', exitCode: 0 })).toMatchObject({
      outcome: 'success',
      outcomeEvidence: 'exitCode 0',
    });
    expect(extractFacts('Tests: 3 passed, 3 total', { kind: 'toolOutput', exitCode: 1 })).toMatchObject({
      outcome: 'failure',
      outcomeEvidence: 'exitCode 1',
    });
  });

  it('uses the test status when there is no exit code', () => {
    expect(extractFacts('', { kind: 'testResult', testStatus: 'failed' })).toMatchObject({ outcome: 'failure', outcomeEvidence: 'testStatus failed' });
    expect(extractFacts('', { kind: 'testResult', testStatus: 'passed' })).toMatchObject({ outcome: 'success', outcomeEvidence: 'testStatus passed' });
    expect(extractFacts('', { kind: 'testResult', testStatus: 'skipped' }).outcome).toBe('unknown');
  });

  it('reads success markers from tool and test output only', () => {
    for (const text of ['Tests:       3 passed, 3 total', '==== 4 passed in 0.31s ====', 'BUILD SUCCESSFUL in 2s', ' Tests  12 passed (12)']) {
      expect(extractFacts(text, { kind: 'toolOutput' }).outcome).toBe('success');
      expect(extractFacts(text, { kind: 'testResult' }).outcome).toBe('success');
      expect(extractFacts(text, { kind: 'error' }).outcome).toBe('unknown');
    }
    expect(extractFacts('Tests:       3 passed, 3 total', { kind: 'toolOutput' }).outcomeEvidence).toBe('Tests: 3 passed, 3 total');
  });

  it('lets a failure marker anywhere beat a success marker', () => {
    const text = 'Tests:       3 passed, 3 total\n=== 1 failed, 2 passed in 0.2s ===';
    expect(extractFacts(text, { kind: 'toolOutput' })).toMatchObject({ outcome: 'failure', outcomeEvidence: '=== 1 failed, 2 passed in 0.2s ===' });
  });

  it('reads each explicit failure marker, in messages too', () => {
    for (const text of ['npm ERR! code ELIFECYCLE', 'npm error Missing script: "tset"', 'src/a.ts(1,1): error TS1005: \';\' expected.', 'BUILD FAILED in 3s', 'FAIL src/a.test.ts', 'Tests: 2 failed, 2 total', '2 failed in 0.50s']) {
      expect(message(text).outcome).toBe('failure');
    }
  });

  it('does not judge file contents or diffs by their text', () => {
    expect(extractFacts("throw new Error('FAIL ')\nconsole.log('Traceback (most recent call last)')", { kind: 'file', path: 'src/a.ts' }).outcome).toBe('unknown');
    expect(extractFacts('+BUILD FAILED', { kind: 'diff', path: 'build.gradle' }).outcome).toBe('unknown');
  });
});

describe('tokenizeWords', () => {
  it('lower-cases, keeps identifiers whole and split, drops stop words and one-letter words, de-duplicates in order', () => {
    expect(tokenizeWords('The parseConfigFile reads read_file and __init__; HTTPServer uses utf8Decode. A parse of the config!')).toEqual([
      'parseconfigfile',
      'parse',
      'config',
      'file',
      'reads',
      'read_file',
      'read',
      'init',
      'httpserver',
      'http',
      'server',
      'uses',
      'utf8decode',
      'utf8',
      'decode',
    ]);
  });

  it('skips runs of word characters longer than the cap', () => {
    expect(tokenizeWords(`token ${'a'.repeat(EXTRACTION_LIMITS.maxWordChars + 1)} end`)).toEqual(['token', 'end']);
  });
});

describe('basename', () => {
  it('takes the last segment of POSIX and Windows paths', () => {
    expect(basename('src/config/loader.ts')).toBe('loader.ts');
    expect(basename('C:\\Users\\a\\app.ts')).toBe('app.ts');
    expect(basename('src/optimizer/')).toBe('optimizer');
    expect(basename('parser.ts')).toBe('parser.ts');
    expect(basename('/')).toBe('');
  });
});

describe('extractTaskTerms', () => {
  it('names the words, paths, basenames and symbols of a task', () => {
    expect(extractTaskTerms('Fix the TypeError in parseConfig when src/config/loader.ts reads an empty file (see parser.ts)')).toEqual({
      words: ['fix', 'typeerror', 'type', 'error', 'parseconfig', 'parse', 'config', 'src', 'loader', 'ts', 'reads', 'empty', 'file', 'see', 'parser'],
      paths: ['src/config/loader.ts', 'parser.ts'],
      basenames: ['loader.ts', 'parser.ts'],
      symbols: ['TypeError', 'parseConfig'],
      references: [],
    });
  });

  it('names the changes a task refers to: pull request and issue numbers, commit hashes', () => {
    expect(extractTaskTerms('CI is red since #512 (merged as f3a0c9d); see also #7 and 2f1e0c9b8a7d6e5f4c3b2a1f0e9d8c7b6a5f4e3d').references).toEqual([
      '#512',
      'f3a0c9d',
      '#7',
      '2f1e0c9b8a7d6e5f4c3b2a1f0e9d8c7b6a5f4e3d',
    ]);
  });

  it('does not take colours, plain numbers, words or ids for change references', () => {
    const terms = extractTaskTerms('Use #fff and #512abc; 1234567 rows; decade deadbeef; Sentry SHOP-1F3; a1b2c3; color:#0a0b0c0d; x#12');
    expect(terms.references).toEqual([]);
  });
});

describe('bounds on large and hostile input', () => {
  const MB4 = 4 * 1024 * 1024;

  it('returns small output for a 4 MB single line', () => {
    for (const line of ['x'.repeat(MB4), 'at a/b.ts:1:1 ('.repeat(MB4 / 15), 'src/a.ts must '.repeat(MB4 / 14)]) {
      const facts = extractFacts(line, { kind: 'toolOutput' });
      expect(facts.paths.length).toBeLessThanOrEqual(1);
      expect(facts.requirements.every((sentence) => sentence.length <= EXTRACTION_LIMITS.maxLineChars)).toBe(true);
    }
  });

  it('handles a hundred thousand `at` lines', () => {
    const facts = extractFacts('    at\n'.repeat(100_000) + '    at ( ( (:1:1\n'.repeat(100_000), { kind: 'error' });
    expect(facts.frames).toEqual([]);
  });

  it('keeps at most the cap of each category, the first ones found', () => {
    const lines = Array.from({ length: 1_000 }, (_, index) => `    at fnNumber${index} (src/file${index}.ts:${index + 1}:1)`);
    const facts = extractFacts(lines.join('\n'), { kind: 'error' });
    const cap = EXTRACTION_LIMITS.maxFactsPerCategory;
    expect(facts.paths).toHaveLength(cap);
    expect(facts.symbols).toHaveLength(cap);
    expect(facts.frames).toHaveLength(cap);
    expect(facts.paths[0]).toBe('src/file0.ts');
    expect(facts.frames[cap - 1]?.fn).toBe(`fnNumber${cap - 1}`);
  });

  it('examines only the first maxLineChars characters of a line', () => {
    const padding = ' '.repeat(EXTRACTION_LIMITS.maxLineChars);
    expect(message(`src/early.ts${padding}src/late.ts\nsrc/next.ts`).paths).toEqual(['src/early.ts', 'src/next.ts']);
  });
});
