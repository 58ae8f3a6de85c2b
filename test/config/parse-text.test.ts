// Config text to a value: JSON with comments whose keys are all own properties, YAML with every
// error placed at its line and column, and parser failures answered, never thrown.
import { describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { configSyntax, parseConfigText, parseJsonText, parseYamlText, type ParsedText } from '../../src/config/index.js';

function valueOf(parsed: ParsedText): unknown {
  if (!('value' in parsed)) throw new Error(`expected a value, got ${JSON.stringify(parsed)}`);
  return parsed.value;
}

function thrown(run: () => unknown): McpctxError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(McpctxError);
    return error as McpctxError;
  }
  throw new Error('expected a throw');
}

describe('parseJsonText', () => {
  it('keeps a __proto__ key as an own key, as JSON.parse does, without touching the prototype', () => {
    const text = '{ "__proto__": { "command": "node" }, "constructor": 1, "b": 2 }';
    const value = valueOf(parseJsonText(text)) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__', 'constructor', 'b']);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ command: 'node' });
    expect(value).toEqual(JSON.parse(text));
  });

  it('reads comments and trailing commas, and takes the last of repeated keys', () => {
    const text = '// servers\n{\n  "a": [1, 2,], /* old */ "a": { "x": null, },\n}\n';
    expect(valueOf(parseJsonText(text))).toEqual({ a: { x: null } });
  });

  it('places a syntax error at its 1-based line and column', () => {
    // The missing comma: `"b"` opens line 3 at column 3.
    const parsed = parseJsonText('{\n  "a": 1\n  "b": 2\n}');
    expect('syntaxErrors' in parsed && parsed.syntaxErrors[0]).toEqual({ message: 'CommaExpected', code: 'CommaExpected', line: 3, column: 3 });
  });

  it('answers a nesting too deep for the parser instead of throwing', () => {
    const parsed = parseJsonText('['.repeat(200_000));
    expect(parsed).toEqual({ unparsable: expect.stringMatching(/call stack/) as unknown });
  });
});

describe('parseYamlText', () => {
  it('places every error at its line and column, with the reason and code but not the text around it', () => {
    const text = 'servers:\n  gh:\n    token: hunter2-secret\n    token: again\nother: [\n';
    const parsed = parseYamlText(text);
    if (!('syntaxErrors' in parsed)) throw new Error('expected syntax errors');
    expect(parsed.syntaxErrors[0]).toEqual({ message: 'Map keys must be unique', code: 'DUPLICATE_KEY', line: 4, column: 5 });
    expect(parsed.syntaxErrors.length).toBeGreaterThan(1);
    expect(JSON.stringify(parsed)).not.toContain('hunter2');
  });

  it('counts lines of a CRLF file as an editor does', () => {
    const parsed = parseYamlText('a: 1\r\nb: 2\r\na: 3\r\n');
    expect('syntaxErrors' in parsed && parsed.syntaxErrors[0]).toMatchObject({ line: 3, column: 1 });
  });

  it('reads YAML, including a flow mapping, and refuses an alias bomb without throwing', () => {
    expect(valueOf(parseYamlText('{ a: 1, b: [x, y] }'))).toEqual({ a: 1, b: ['x', 'y'] });
    const bomb = ['a: &a [x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]'].join('\n');
    expect(parseYamlText(bomb)).toEqual({ unparsable: expect.stringMatching(/alias/i) as unknown });
  });
});

describe('configSyntax', () => {
  it('goes by the file name, then by the first character', () => {
    expect(configSyntax('a: 1', 'x.json')).toBe('json');
    expect(configSyntax('a: 1', 'x.JSONC')).toBe('json');
    expect(configSyntax('{ a: 1 }', 'x.yaml')).toBe('yaml');
    expect(configSyntax('  [1]', 'x.conf')).toBe('json');
    expect(configSyntax('\n{}', null)).toBe('json');
    expect(configSyntax('a: 1', null)).toBe('yaml');
  });
});

describe('parseConfigText', () => {
  it('answers the document, __proto__ kept as a key', () => {
    expect(Object.keys(parseConfigText('{"__proto__": 1}', 'c.json', 'config') as object)).toEqual(['__proto__']);
    expect(parseConfigText('a: [1, 2]\n', 'c.yaml', 'config')).toEqual({ a: [1, 2] });
  });

  it('throws INVALID_CONFIG for the first JSON error, at (file) with its line and column', () => {
    const error = thrown(() => parseConfigText('{\n  "a": 1,\n  ]\n}', '/x/c.json', 'experiment config'));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.data).toEqual({ file: '/x/c.json', problems: [{ path: '(file)', reason: 'is not valid JSON: PropertyNameExpected at line 3, column 3' }] });
    expect(error.message).toMatch(/^Invalid experiment config \/x\/c\.json: 1 problem\n/);
  });

  it('throws INVALID_CONFIG listing every YAML error with its line and column', () => {
    const error = thrown(() => parseConfigText('a: 1\na: 2\nb: 1\nb: 2\n', null, 'gateway config'));
    expect(error.data).toEqual({
      file: null,
      problems: [
        { path: '(file)', reason: 'is not valid YAML at line 2, column 1: Map keys must be unique' },
        { path: '(file)', reason: 'is not valid YAML at line 4, column 1: Map keys must be unique' },
      ],
    });
  });

  it('follows the syntax it is given over its own rule', () => {
    const error = thrown(() => parseConfigText('{ a: 1 }', 'c.yaml', 'config', 'json'));
    expect((error.data.problems as { reason: string }[])[0]?.reason).toMatch(/^is not valid JSON: /);
  });

  it('turns a parser that gives up into INVALID_CONFIG', () => {
    const error = thrown(() => parseConfigText('['.repeat(200_000), 'deep.json', 'config'));
    expect((error.data.problems as { reason: string }[])[0]?.reason).toMatch(/^cannot be read as JSON: /);
  });
});
