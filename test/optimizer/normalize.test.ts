import { describe, expect, it } from 'vitest';
import { collapseRepeatedLines, normalizeRecords } from '../../src/optimizer/_normalize.js';
import { parseOptimizerInput, parseSessionRecords } from '../../src/optimizer/_validate.js';
import { refusal } from './_refusal.js';
import type { SessionRecords } from '../../src/optimizer/_types.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe('validation names the record and the field, and keeps nothing partial', () => {
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['exit code as a string', { toolOutputs: [{ command: 'npm test', output: 'ok' }, { command: 'npm test', output: 'x', exitCode: '1' }] }, 'toolOutputs[1].exitCode', /must be an integer, got a string/],
    ['unknown role', { messages: [{ role: 'robot', text: 'hi' }] }, 'messages[0].role', /one of 'user', 'assistant', 'system', 'tool'/],
    ['missing text', { messages: [{ role: 'user' }] }, 'messages[0].text', /is required/],
    ['tool output without tool or command', { toolOutputs: [{ output: 'x' }] }, 'toolOutputs[0]', /at least one of tool and command/],
    ['a typo in a field name', { toolOutputs: [{ command: 'make', output: '', exit_code: 2 }] }, 'toolOutputs[0].exit_code', /is not a field/],
    ['a record that is not an object', { errors: ['boom'] }, 'errors[0]', /must be an object/],
    ['an array that is not an array', { files: { path: 'a', content: 'b' } }, 'files', /must be an array/],
    ['a bad timestamp', { decisions: [{ text: 'x', status: 'accepted', timestamp: 'yesterday' }] }, 'decisions[0].timestamp', /ISO 8601/],
    ['priority out of range', { decisions: [{ text: 'x', status: 'accepted', priority: 2 }] }, 'decisions[0].priority', /from 0 to 1/],
    ['an id with tag syntax', { decisions: [{ id: 'a|b', text: 'x', status: 'accepted' }] }, 'decisions[0].id', /must not contain/],
    ['a repeated id', { decisions: [{ id: 'd', text: 'x', status: 'accepted' }], errors: [{ id: 'd', message: 'e' }] }, 'decisions[0].id', /repeats the id "d" of errors\[0\]/],
    ['an unknown top-level key', { logs: [] }, 'logs', /not part of the input format/],
  ];
  for (const [name, value, path, message] of cases) {
    it(name, () => {
      const error = refusal(() => parseSessionRecords(value));
      expect(error.code).toBe('INVALID_RECORDS');
      expect(error.path).toBe(path);
      expect(error.message.startsWith(path)).toBe(true);
      expect(error.message).toMatch(message);
    });
  }

  it('refuses a text field over the size limit with the figure and the option to raise it', () => {
    const error = refusal(() => parseSessionRecords({ files: [{ path: 'big.log', content: 'x'.repeat(1001) }] }, { maxRecordChars: 1000 }));
    expect(error.path).toBe('files[0].content');
    expect(error.message).toMatch(/1,001 characters, over the limit of 1,000 \(option maxRecordChars\)/);
  });

  it('requires a task, and a positive integer budget', () => {
    expect(refusal(() => parseOptimizerInput({ messages: [] })).message).toMatch(/task must be a non-empty string/);
    expect(refusal(() => parseOptimizerInput({ task: '  ' })).code).toBe('INVALID_ARGUMENT');
    expect(refusal(() => parseOptimizerInput({ task: 't', tokenBudget: 0 })).message).toMatch(/tokenBudget must be a positive integer/);
    expect(refusal(() => parseOptimizerInput({ task: 't', tokenBudget: 1.5 })).code).toBe('INVALID_ARGUMENT');
    expect(refusal(() => parseOptimizerInput(null)).code).toBe('INVALID_ARGUMENT');
  });

  it('copies: the result shares no object with the input, and unknown-free input comes back equal', () => {
    const input = deepFreeze({ messages: [{ role: 'user' as const, text: 'hello', id: 'm1', timestamp: '2026-11-30T09:00:00Z', priority: 1 }] });
    const parsed = parseSessionRecords(input);
    expect(parsed).toEqual(input);
    expect(parsed.messages).not.toBe(input.messages);
    expect(parsed.messages?.[0]).not.toBe(input.messages[0]);
  });
});

describe('normalization', () => {
  const session: SessionRecords = {
    messages: [{ role: 'user', text: 'Fix it\r\nplease\r\n' }],
    toolOutputs: [{ command: 'npm test', output: `start\n${'retrying...\n'.repeat(500)}done`, exitCode: 1, timestamp: '2026-11-30T10:00:00Z' }],
    files: [{ path: 'log.txt', content: 'same\nsame\nsame\nsame\nsame\n' }],
  };

  it('does not mutate its input', () => {
    const frozen = deepFreeze(structuredClone(session));
    expect(() => normalizeRecords(frozen)).not.toThrow();
    expect(frozen).toEqual(session);
  });

  it('normalizes line endings and collapses repeated log lines with a count, but never in files', () => {
    const { records, collapsedLines } = normalizeRecords(session);
    const [message, output, file] = records;
    expect(message?.text).toBe('Fix it\nplease\n');
    expect(output?.text).toBe('start\nretrying...\n[previous line repeated 499 more times]\ndone');
    expect(output?.collapsedLines).toBe(499);
    expect(file?.text).toBe('same\nsame\nsame\nsame\nsame\n');
    expect(collapsedLines).toBe(499);
  });

  it('derives stable ids from content, distinct for repeated content, never equal to a caller id', () => {
    const first = normalizeRecords(session).records.map((r) => r.id);
    const second = normalizeRecords(structuredClone(session)).records.map((r) => r.id);
    expect(first).toEqual(second);
    expect(first[1]).toMatch(/^tool-[0-9a-f]{12}$/);

    const twice = normalizeRecords({ errors: [{ message: 'E' }, { message: 'E' }] }).records.map((r) => r.id);
    expect(twice[1]).toBe(`${twice[0]}~2`);
    const clash = normalizeRecords({ errors: [{ message: 'E' }, { message: 'F', id: twice[0] }] }).records.map((r) => r.id);
    expect(new Set(clash).size).toBe(2);
  });

  it('derives ids from content and timestamp: the same output at two times gets the same two ids in either order', () => {
    const run = (timestamp: string) => ({ command: 'npm test', output: 'FAIL test/a.test.ts', exitCode: 1, timestamp });
    const idByTime = (records: SessionRecords) => Object.fromEntries(normalizeRecords(records).records.map((record) => [record.timestamp, record.id]));
    const forward = idByTime({ toolOutputs: [run('2026-11-30T09:00:00Z'), run('2026-11-30T10:00:00Z')] });
    const backward = idByTime({ toolOutputs: [run('2026-11-30T10:00:00Z'), run('2026-11-30T09:00:00Z')] });
    expect(backward).toEqual(forward);
    expect(Object.values(forward).every((id) => /^tool-[0-9a-f]{12}$/.test(String(id)))).toBe(true);
    expect(new Set(Object.values(forward)).size).toBe(2);
  });

  it('replaces lone surrogates and counts them', () => {
    const { records, replacedInvalidUtf16 } = normalizeRecords({ messages: [{ role: 'user', text: 'a\uD800b\uDC00c 😀' }] });
    expect(records[0]?.text).toBe('a\uFFFDb\uFFFDc 😀');
    expect(replacedInvalidUtf16).toBe(2);
  });

  it('labels records for source tags on one line without the tag separator', () => {
    const { records } = normalizeRecords({ toolOutputs: [{ command: 'grep a | wc -l\nsecond', output: '' }] });
    expect(records[0]?.label).toBe('grep a / wc -l second');
  });

  it('collapseRepeatedLines keeps short runs as they are', () => {
    expect(collapseRepeatedLines('a\na\na\nb').text).toBe('a\na\na\nb');
  });
});
