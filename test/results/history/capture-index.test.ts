// capture-index.json: every capture in the tool vectors -> its server, dates and current or behind.
import { describe, expect, it } from 'vitest';
import type { ResultsState } from '../../../src/results/index.js';
import { CAPTURE_INDEX_FILE, CAPTURE_INDEX_METHOD, captureIndex, captureIndexJson } from '../../../src/results/history/index.js';
import { Sweeps, failed, measured, tool, words, type ToolSpec } from './build.js';

/** Three versions of a catalog; `prefix` keeps each server's bytes its own. */
function version(prefix: string, n: 1 | 2 | 3): ToolSpec[] {
  const echo = tool(`${prefix}_echo`, n === 1 ? 'Echo the input.' : `Echo the input. ${words(10)}`);
  return n === 3 ? [echo, tool(`${prefix}_add`, 'Add.')] : [echo];
}
const sha = (specs: readonly ToolSpec[]): string => measured('x', specs).canonicalSha256!;

function state(): ResultsState {
  return new Sweeps()
    .record('2026-08-05', measured('moving', version('m', 1)))
    .record('2026-08-12', measured('moving', version('m', 2)))
    .record('2026-08-19', measured('moving', version('m', 3)))
    .record('2026-08-26', measured('moving', version('m', 3)))
    // Back to an older capture: it is current again, wherever it sits in the file.
    .record('2026-08-05', measured('reverted', version('r', 1)))
    .record('2026-08-12', measured('reverted', version('r', 2)))
    .record('2026-08-19', measured('reverted', version('r', 1)))
    // Fails today: the last capture it published stays its current one.
    .record('2026-08-05', measured('flaky', version('f', 1)))
    .record('2026-08-12', failed('flaky', 'timeout'))
    .record('2026-08-05', failed('never', 'startup-failure'))
    // Measured before the vectors began: its capture is unknown to the index.
    .record('2026-08-05', measured('legacy', version('l', 1)), { vectors: false })
    .state();
}

describe('captureIndex', () => {
  const index = captureIndex(state());

  it("names each server's current capture; null where none is on record", () => {
    expect(index.method).toBe(CAPTURE_INDEX_METHOD);
    expect(index.current).toEqual({
      flaky: sha(version('f', 1)),
      legacy: null,
      moving: sha(version('m', 3)),
      never: null,
      reverted: sha(version('r', 1)),
    });
  });

  it('states current or behind for each capture, with its server and first and last date', () => {
    expect(index.captures).toEqual(
      Object.fromEntries(
        [
          [sha(version('m', 1)), { server: 'moving', firstSeen: '2026-08-05', lastSeen: '2026-08-05', current: false }],
          [sha(version('m', 2)), { server: 'moving', firstSeen: '2026-08-12', lastSeen: '2026-08-12', current: false }],
          [sha(version('m', 3)), { server: 'moving', firstSeen: '2026-08-19', lastSeen: '2026-08-26', current: true }],
          [sha(version('r', 1)), { server: 'reverted', firstSeen: '2026-08-05', lastSeen: '2026-08-19', current: true }],
          [sha(version('r', 2)), { server: 'reverted', firstSeen: '2026-08-12', lastSeen: '2026-08-12', current: false }],
          [sha(version('f', 1)), { server: 'flaky', firstSeen: '2026-08-05', lastSeen: '2026-08-05', current: true }],
        ].sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1)),
      ),
    );
    expect(index.captures[sha(version('l', 1))]).toBeUndefined();
  });

  it('the same bytes published by two servers: the one they are current for, then the first name', () => {
    const shared = new Sweeps()
      .record('2026-08-05', measured('b-fork', version('s', 1)))
      .record('2026-08-05', measured('a-old', version('s', 1)))
      .record('2026-08-12', measured('a-old', version('s', 2)))
      .record('2026-08-05', measured('c-twin', version('s', 2)))
      .state();
    const result = captureIndex(shared);
    expect(result.captures[sha(version('s', 1))]).toMatchObject({ server: 'b-fork', current: true });
    expect(result.captures[sha(version('s', 2))]).toMatchObject({ server: 'a-old', current: true });
  });

  it('writes sorted 2-space JSON with a final newline, the same whatever the order of the list', () => {
    const text = captureIndexJson(state());
    expect(CAPTURE_INDEX_FILE).toBe('capture-index.json');
    expect(text).toBe(`${JSON.stringify(index, null, 2)}\n`);
    const reversed = state();
    expect(captureIndexJson({ ...reversed, servers: [...reversed.servers].reverse() })).toBe(text);
    const hashes = Object.keys(index.captures);
    expect(hashes).toEqual([...hashes].sort());
  });

  it('a server named __proto__ is a key like any other', () => {
    const odd = new Sweeps().record('2026-08-05', measured('__proto__', version('p', 1))).state();
    const text = captureIndexJson(odd);
    expect(JSON.parse(text).current).toEqual({ ['__proto__']: sha(version('p', 1)) });
    expect(text).toContain('"__proto__": "');
  });
});
