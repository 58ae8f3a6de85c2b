import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { decode } from '@toon-format/toon';
import { describe, expect, it } from 'vitest';
import { buildToolResult, formatText, scrubErrorText, toCsv, toolErrorFrom } from '../../src/shape/index.js';
import { McpctxError } from '../../src/errors/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const rows = [
  { number: 1, title: 'Fix "quotes", commas', merged: true, closed_at: null },
  { number: 2, title: 'line\nbreak', merged: false, closed_at: '2013-02-03T10:00:00Z', extra: ' padded ' },
];

describe('buildToolResult', () => {
  it('mirrors structuredContent with one compact text block of the same value', () => {
    const value = { items: rows, total: 2 };
    const built = buildToolResult(value);
    expect(built.result.structuredContent).toBe(value);
    expect(built.result.content).toHaveLength(1);
    expect(built.text).toBe(JSON.stringify(value));
    expect(JSON.parse(built.text)).toEqual(built.result.structuredContent);
    expect(built.textTokens).toBe(countTokens(built.text));
    expect(built.structuredTokens).toBe(countTokens(JSON.stringify(value)));
  });

  it('sends text only when asked, and for CSV and TOON', () => {
    expect(buildToolResult({ a: 1 }, { mode: 'text-only' }).result).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
    const csv = buildToolResult(rows, { format: 'csv' });
    expect(csv.result.structuredContent).toBeUndefined();
    expect(csv.text).toBe(toCsv(rows));
    const toon = buildToolResult({ rows }, { format: 'toon' });
    expect(decode(toon.text)).toEqual({ rows });
    expect(toon.textTokens).toBe(countTokens(toon.text));
    expect(() => buildToolResult(rows, { format: 'csv', mode: 'mirror' })).toThrow(/json format/);
    expect(() => buildToolResult([1, 2], { mode: 'mirror' })).toThrow(/must be a JSON object/);
  });

  it('turns a typed error into a tool error carrying its remedy', () => {
    const result = toolErrorFrom(new McpctxError('STALE_CURSOR', 'Stale cursor: repeat the query without a cursor.'));
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: 'STALE_CURSOR: Stale cursor: repeat the query without a cursor.' }] });
  });
});

describe('toolErrorFrom: what a model may read of an error', () => {
  it('answers an unexpected error with a generic message and an error id, and logs the whole error under that id', () => {
    const lines: string[] = [];
    const error = new TypeError("Cannot read properties of undefined (reading 'rows')", { cause: new Error('connect ECONNREFUSED 10.0.0.5:5432') });
    const result = toolErrorFrom(error, { log: (line) => lines.push(line), tool: 'find' });
    const text = result.content[0]?.text ?? '';
    const id = /\(error id ([0-9a-f]{8})\)/.exec(text)?.[1] ?? 'none';
    expect(result.isError).toBe(true);
    expect(text).toBe(
      `INTERNAL_ERROR: the tool failed with an unexpected error (error id ${id}). ` +
        'Retrying may not help; report the error id to whoever runs this server, whose log has the details.',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^mcpctx: unexpected error ${id} in tool "find": TypeError: Cannot read properties`));
    expect(lines[0]).toContain('caused by:');
    expect(lines[0]).toContain('ECONNREFUSED');
    expect(lines[0]).toContain(' at '); // the stack
    // Each error its own id.
    const other = toolErrorFrom('a thrown string', { log: (line) => lines.push(line) }).content[0]?.text ?? '';
    expect(other).not.toContain(id);
    expect(lines[1]).toContain('a thrown string');
  });

  it('scrubs absolute paths and connection strings from an McpctxError message', () => {
    const message =
      'Cannot read the snapshot file /home/alice/srv/data/snapshot.json: EACCES, open \'/home/alice/srv/data/snapshot.json\'; ' +
      'store at postgres://app:hunter2@db.internal:5432/prod?sslmode=require, cache redis://cache.internal:6379/0, ' +
      'mirror https://deploy:tok3n@git.example.com/x.git, backup C:\\Users\\alice\\backup.json, file:///var/lib/app/state.db. ' +
      'Keep https://github.com/o/r/pulls, and/or 1/2, ./relative/path.';
    const text = toolErrorFrom(new McpctxError('IO', message)).content[0]?.text ?? '';
    expect(text).toBe(
      "IO: Cannot read the snapshot file …/snapshot.json: EACCES, open '…/snapshot.json'; " +
        'store at postgres://[redacted], cache redis://[redacted], ' +
        'mirror https://[redacted], backup …\\backup.json, file://…/state.db. ' +
        'Keep https://github.com/o/r/pulls, and/or 1/2, ./relative/path.',
    );
    expect(scrubErrorText('no secrets here')).toBe('no secrets here');
  });

  it('runs the author\'s redact hook last, on both kinds of error', () => {
    const redact = (text: string): string => text.replaceAll('tenant-42', '[tenant]');
    expect(toolErrorFrom(new McpctxError('INVALID_ARGUMENT', 'Unknown field for tenant-42.'), { redact }).content[0]?.text).toBe(
      'INVALID_ARGUMENT: Unknown field for [tenant].',
    );
    const generic = toolErrorFrom(new Error('tenant-42'), { redact: (text) => `${text} [redacted]`, log: () => {} }).content[0]?.text ?? '';
    expect(generic).toMatch(/^INTERNAL_ERROR: .* \[redacted\]$/);
  });

  it('logs to stderr by default, never to stdout (the protocol channel)', async () => {
    const script = [
      "import { toolErrorFrom } from './src/shape/index.ts';",
      "const result = toolErrorFrom(new Error('secret detail'));",
      "process.stderr.write('RESULT ' + JSON.stringify(result) + '\\n');",
    ].join('\n');
    const outcome = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: markedEnv({ PATH: process.env.PATH ?? '' }), timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? null), stdout, stderr }),
      );
    });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout).toBe('');
    const id = /error id ([0-9a-f]{8})/.exec(outcome.stderr)?.[1] ?? 'none';
    expect(outcome.stderr).toContain(`mcpctx: unexpected error ${id}: Error: secret detail`);
    expect(outcome.stderr).toMatch(/RESULT .*INTERNAL_ERROR/);
    expect(await waitForNoMarkedProcesses()).toEqual([]);
  });
});

describe('formats', () => {
  it('writes RFC 4180 CSV with a header of every key in first-seen order', () => {
    expect(toCsv(rows)).toBe(
      [
        'number,title,merged,closed_at,extra',
        '1,"Fix ""quotes"", commas",true,,',
        '2,"line\nbreak",false,2013-02-03T10:00:00Z," padded "',
      ].join('\n'),
    );
    expect(toCsv([])).toBe('');
  });

  it('refuses nested values in CSV, naming the row and field', () => {
    expect(() => toCsv([{ a: 1 }, { a: { b: 2 } }])).toThrow(/row 1 field "a" is an object/);
    expect(() => toCsv([[1, 2]])).toThrow(/row 0 is an array/);
    expect(() => formatText({ a: 1 }, 'csv')).toThrow(/array of rows/);
  });

  it('writes compact JSON and lossless TOON', () => {
    expect(formatText(rows, 'json')).toBe(JSON.stringify(rows));
    expect(decode(formatText({ rows }, 'toon'))).toEqual({ rows });
  });
});

describe('inherited properties', () => {
  it('toCsv reads only a row\'s own keys: a header key a row lacks is an empty cell', () => {
    const rows = JSON.parse('[{"constructor":"c","toString":"t","__proto__":"p","id":1},{"id":2}]') as unknown[];
    expect(toCsv(rows)).toBe('constructor,toString,__proto__,id\nc,t,p,1\n,,,2');
  });
});
