// `session` on records and on the task: validated like the other common fields, carried through
// normalization, kept apart by deduplication, and handed on with the prepared session.
import { describe, expect, it } from 'vitest';
import { ContextOptimizer } from '../../src/optimizer/index.js';
import { normalizeRecords } from '../../src/optimizer/_normalize.js';
import { prepareRecords, scoreSession } from '../../src/optimizer/_prepare.js';
import { DEFAULT_WEIGHTS } from '../../src/optimizer/_score.js';
import { parseOptimizerInput, parseSessionRecords } from '../../src/optimizer/_validate.js';
import { refusal } from './_refusal.js';

describe('session', () => {
  it.each([
    ['an empty string', '', /must be a non-empty string/],
    ['spaces only', '   ', /must be a non-empty string/],
    ['a number', 7, /must be a non-empty string, got number 7/],
    ['201 characters', 's'.repeat(201), /201 characters, over the limit of 200/],
  ])('refuses %s on a record, naming the record and the field', (_, session, message) => {
    const refused = refusal(() => parseSessionRecords({ toolOutputs: [{ command: 'make', output: 'ok' }, { command: 'make', output: 'x', session }] }));
    expect(refused.code).toBe('INVALID_RECORDS');
    expect(refused.path).toBe('toolOutputs[1].session');
    expect(refused.message).toMatch(message);
  });

  it('refuses a bad task session as an invalid argument', () => {
    const refused = refusal(() => parseOptimizerInput({ task: 'fix the build', session: '' }));
    expect(refused.code).toBe('INVALID_ARGUMENT');
    expect(refused.message).toMatch(/^session must be a non-empty string/);
  });

  it('carries a record session into the normalized record, 200 characters being allowed', () => {
    const long = 's'.repeat(200);
    const [withSession, without] = normalizeRecords({ messages: [{ role: 'user', text: 'hi', session: long }, { role: 'user', text: 'hi' }] }).records;
    expect(withSession!.session).toBe(long);
    expect(without!.session).toBeUndefined();
    expect(withSession!.id).not.toBe(without!.id);
  });

  it('never merges records of two sessions, and merges the same records within one', () => {
    const run = (session: string, timestamp: string) => ({ command: 'cargo build', output: 'error[E0502]: cannot borrow `v` as mutable\n --> src/main.rs:4:5', exitCode: 101, session, timestamp });
    const apart = new ContextOptimizer().buildContext({ task: 'fix the borrow error', toolOutputs: [run('rust-a', '2026-11-30T09:00:00Z'), run('rust-b', '2026-11-30T10:00:00Z')] });
    expect(apart.report.dedupe.merges).toEqual([]);
    const together = new ContextOptimizer().buildContext({ task: 'fix the borrow error', toolOutputs: [run('rust-a', '2026-11-30T09:00:00Z'), run('rust-a', '2026-11-30T10:00:00Z')] });
    expect(together.report.dedupe.merges.map((merge) => merge.reason)).toEqual(['exact-duplicate']);
  });

  it('hands the task session on with the prepared session, for the stage that scopes mandatory content', () => {
    const input = parseOptimizerInput({ task: 'fix the build', session: 'rust-a', messages: [{ role: 'user', text: 'You must not touch Cargo.lock.', session: 'rust-a' }] });
    const prepared = scoreSession(prepareRecords(input, 0.9), input.task, { ...DEFAULT_WEIGHTS }, { session: input.session });
    expect(prepared.session).toBe('rust-a');
    expect(prepared.scored[0]!.record.session).toBe('rust-a');
    expect(new ContextOptimizer().buildContext({ task: 'fix the build', session: 'rust-a', messages: [{ role: 'user', text: 'hi' }] }).stats.records).toBe(1);
  });
});
