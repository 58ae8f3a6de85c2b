// What a measurement may record of a launch: env values in every written form, the inherited
// environment, and credentials in arguments. Unit tests of Redactor and the argument rules.
import { describe, expect, it } from 'vitest';
import { BASE_ENV_NAMES, MIN_CAPTURE_SECRET_CHARS, Redactor, credentialsInArgs, redactArgs } from '../../src/mcp/index.js';
import { recordedLaunch } from '../../src/measure/index.js';

describe('Redactor', () => {
  it('redacts the JSON-escaped form of a value (quotes and backslashes as a server writes them in JSON text)', () => {
    const secret = 's3cr3t"pa\\ss';
    const redactor = new Redactor({ TOKEN: secret });
    const jsonText = JSON.stringify({ config: { token: secret } });
    expect(jsonText).toContain('s3cr3t\\"pa\\\\ss');
    expect(redactor.text(jsonText)).toBe('{"config":{"token":"[redacted:TOKEN]"}}');
    // Python's json.dumps writes non-ASCII as \u escapes.
    expect(new Redactor({ KEY: 'clé-secrète' }).text('{"k": "cl\\u00e9-secr\\u00e8te"}')).toBe('{"k": "[redacted:KEY]"}');
  });

  it('redacts the URL-encoded forms of a value: %20 or + for a space, either case of hex', () => {
    const redactor = new Redactor({ PASSWORD: 'a b&c/d' });
    expect(redactor.text('https://x/?p=a%20b%26c%2Fd')).toBe('https://x/?p=[redacted:PASSWORD]');
    expect(redactor.text('p=a+b%26c%2Fd&q=1')).toBe('p=[redacted:PASSWORD]&q=1');
    expect(redactor.text('p=a%20b%26c%2fd')).toBe('p=[redacted:PASSWORD]');
    expect(redactor.text('plain a b&c/d')).toBe('plain [redacted:PASSWORD]');
  });

  it('keeps new Redactor(env, minChars), text() and json() as they were', () => {
    const redactor = new Redactor({ TOKEN: 'abc123', LONG: 'abc123-extended', FLAG: '1' });
    expect(redactor.text('a abc123-extended b abc123 c 1')).toBe('a [redacted:LONG] b [redacted:TOKEN] c 1');
    expect(new Redactor({ TOKEN: 'abc123' }, MIN_CAPTURE_SECRET_CHARS).isEmpty).toBe(true);
    expect(redactor.json({ abc123: ['x abc123'] })).toEqual({ value: { '[redacted:TOKEN]': ['x [redacted:TOKEN]'] }, replaced: 2, names: ['TOKEN'] });
  });

  it('json() keeps a parsed "__proto__" key as an own property, and refuses a value nested too deep', () => {
    const parsed: unknown = JSON.parse('{"__proto__":{"x":"secret-value"},"y":1}');
    const { value } = new Redactor({ S: 'secret-value' }).json(parsed);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"x":"[redacted:S]"},"y":1}');
    const deep: unknown = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(() => new Redactor({ S: 'secret-value' }).json(deep)).toThrow(expect.objectContaining({ code: 'NESTING_TOO_DEEP' }));
  });

  describe('forLaunch', () => {
    const parentEnv = {
      PATH: '/usr/local/bin:/usr/bin',
      HOME: '/home/someone',
      USER: 'someone',
      SHELL: '/bin/bash',
      TERM: 'xterm-256color',
      LANG: 'en_US.UTF-8',
      AWS_SECRET_ACCESS_KEY: 'inherited-secret-value',
    };

    it('redacts the spec env values; the parent environment only with inheritEnv', () => {
      const text = 'inherited-secret-value and passed-value';
      expect(Redactor.forLaunch({ env: { API_KEY: 'passed-value' } }, parentEnv).text(text)).toBe('inherited-secret-value and [redacted:API_KEY]');
      expect(Redactor.forLaunch({ env: { API_KEY: 'passed-value' }, inheritEnv: true }, parentEnv).text(text)).toBe(
        '[redacted:AWS_SECRET_ACCESS_KEY] and [redacted:API_KEY]',
      );
    });

    it('exempts the base variables every server gets in every mode, unless passed explicitly', () => {
      const inherited = Redactor.forLaunch({ inheritEnv: true }, parentEnv);
      const text = 'reading /home/someone/.config as someone with TERM xterm-256color';
      expect(BASE_ENV_NAMES).toEqual(['PATH', 'HOME', 'USER', 'SHELL', 'TERM', 'LANG']);
      expect(inherited.text(text)).toBe(text);
      expect(Redactor.forLaunch({ inheritEnv: true, env: { HOME: '/home/someone' } }, parentEnv).text(text)).toBe(
        'reading [redacted:HOME]/.config as someone with TERM xterm-256color',
      );
    });

    it('redacts credentials found in the arguments, named by their position', () => {
      const redactor = Redactor.forLaunch({ args: ['server.js', '--api-key', 'key-from-args-123'] }, parentEnv);
      expect(redactor.text('connecting with key-from-args-123')).toBe('connecting with [redacted:arg2]');
    });
  });
});

describe('credentials in arguments', () => {
  it.each([
    [['--token', 'abc123xyz'], ['--token', '[redacted]']],
    [['--api-key', 'k'], ['--api-key', '[redacted]']],
    [['--apiKey', 'k-1'], ['--apiKey', '[redacted]']],
    [['--password', 'hunter2'], ['--password', '[redacted]']],
    [['--client-secret', 'shh'], ['--client-secret', '[redacted]']],
    [['--auth', 'user:pw'], ['--auth', '[redacted]']],
    [['--token=abc'], ['--token=[redacted]']],
    [['--api_key=abc'], ['--api_key=[redacted]']],
    [['GITHUB_TOKEN=abc'], ['GITHUB_TOKEN=[redacted]']],
    [['DB_PASSWORD=p@ss'], ['DB_PASSWORD=[redacted]']],
    [['postgres://me:p4ss@db:5432/app'], ['postgres://me:[redacted]@db:5432/app']],
    [['https://api.example.com/v1?api_key=abc123&x=1'], ['https://api.example.com/v1?api_key=[redacted]&x=1']],
    [['Authorization: Bearer abcdefgh12345678'], ['Authorization: [redacted]']],
    [['{"apiKey":"abc","region":"eu"}'], ['{"apiKey":"[redacted]","region":"eu"}']],
    [['ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'], ['[redacted]']],
    [['--x', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop'], ['--x', '[redacted]']],
    [['sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t'], ['[redacted]']],
    [['xoxb-123456789012-abcdefABCDEF'], ['[redacted]']],
    [['AKIAIOSFODNN7EXAMPLE'], ['[redacted]']],
  ])('%j is recorded as %j', (args, recorded) => {
    expect(redactArgs(args).args).toEqual(recorded);
    expect(redactArgs(args).redacted).toBe(1);
  });

  it.each([
    [['-y', '@modelcontextprotocol/server-memory']],
    [['@stripe/mcp', '--tools=all']],
    [['server.js', '--port', '8080', '--verbose']],
    [['--no-auth', '--port', '3000']],
    [['sk-learn-helper-package-name']],
    [['/home/me/projects/disk-usage-analyzer-tool']],
    [['https://example.com/path?page=2']],
  ])('leaves %j alone', (args) => {
    expect(redactArgs(args)).toEqual({ args, redacted: 0 });
    expect(credentialsInArgs(args)).toEqual([]);
  });

  it('recordedLaunch withholds them unless recordArgs, and never records env values', () => {
    const launch = { command: 'node', args: ['server.js', '--token', 't0k3n', '--dir', '/srv/passed-value'], env: { DIR: '/srv/passed-value' } };
    expect(recordedLaunch(launch)).toEqual({
      command: 'node',
      args: ['server.js', '--token', '[redacted]', '--dir', '[redacted:DIR]'],
      argsRedacted: 1,
      envNames: ['DIR'],
      cwd: '.',
    });
    expect(recordedLaunch(launch, { recordArgs: true }).args).toEqual(['server.js', '--token', 't0k3n', '--dir', '[redacted:DIR]']);
    // A launch folder that is an env value is withheld like an argument.
    expect(recordedLaunch({ ...launch, cwd: '/srv/passed-value' }, { cwdBase: '/elsewhere' }).cwd).toBe('[redacted:DIR]');
  });
});
