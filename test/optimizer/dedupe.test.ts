// Behaviour of stage 2, deduplication: exact duplicates, repeated runs, near duplicates, the
// merge report, independence from the input order and the cost on large inputs.
import { describe, expect, it } from 'vitest';
import { dedupeRecords, maskSourcePositions } from '../../src/optimizer/_dedupe.js';
import { isMcpctxError } from '../../src/errors/index.js';
import type { NormalizedRecord } from '../../src/optimizer/_types.js';
import { makeRecord } from './_records.js';
import { reorderArray, seededRandom } from './_shuffle.js';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** Frozen records, with a snapshot to prove afterwards that nothing changed. */
function frozen(records: NormalizedRecord[]): { records: readonly NormalizedRecord[]; snapshot: string } {
  return { records: deepFreeze(records), snapshot: JSON.stringify(records) };
}

function at(minute: number): string {
  return new Date(Date.UTC(2026, 0, 15, 10, minute)).toISOString();
}

function ids(records: readonly NormalizedRecord[]): string[] {
  return records.map((record) => record.id);
}

/** A deterministic stream of words, so generated texts are distinct but reproducible. */
function wordStream(seed: number): () => string {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return `w${state.toString(36)}`;
  };
}

function sentence(count: number, seed: number): string {
  return Array.from({ length: count }, wordStream(seed)).join(' ');
}

/** A log of `lines` lines, each eight words. */
function log(lines: number, seed: number): string[] {
  return Array.from({ length: lines }, (_, i) => sentence(8, seed * 1000 + i));
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  const next = wordStream(seed);
  for (let i = copy.length - 1; i > 0; i--) {
    const j = parseInt(next().slice(1), 36) % (i + 1);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

describe('exact duplicates', () => {
  it('collapse to the latest copy and report each merged copy', () => {
    const text = sentence(20, 1);
    const first = makeRecord({ kind: 'message', role: 'user', text, timestamp: at(1) });
    const last = makeRecord({ kind: 'message', role: 'user', text, timestamp: at(9) });
    const middle = makeRecord({ kind: 'message', role: 'user', text, timestamp: at(5) });
    const other = makeRecord({ kind: 'message', role: 'user', text: sentence(20, 2), timestamp: at(3) });
    const input = frozen([first, last, middle, other]);

    const result = dedupeRecords(input.records);

    expect(ids(result.records)).toEqual([last.id, other.id]);
    expect(result.merges).toEqual([
      { kept: last.id, merged: middle.id, reason: 'exact-duplicate', detail: expect.stringContaining(last.id) },
      { kept: last.id, merged: first.id, reason: 'exact-duplicate', detail: expect.stringContaining(last.id) },
    ]);
    expect(result.merges[0]!.detail).toContain(`${last.origin.array}[${last.origin.index}]`);
    expect(JSON.stringify(input.records)).toBe(input.snapshot);
  });

  it('without timestamps keep the one later in input order', () => {
    const text = sentence(20, 3);
    const early = makeRecord({ kind: 'toolOutput', tool: 'read', text, order: 4 });
    const late = makeRecord({ kind: 'toolOutput', tool: 'read', text, order: 11 });
    const result = dedupeRecords(frozen([late, early]).records);
    expect(ids(result.records)).toEqual([late.id]);
    expect(result.merges).toMatchObject([{ kept: late.id, merged: early.id }]);
  });
});

describe('repeated runs', () => {
  it('keep the latest run of a command in full with the earlier runs as history, oldest first', () => {
    const runs = [
      makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 1, timestamp: at(1), text: `FAIL ${sentence(30, 10)}` }),
      makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 0, timestamp: at(3), text: `PASS ${sentence(30, 12)}` }),
      makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 1, timestamp: at(2), text: `FAIL ${sentence(30, 11)}` }),
    ];
    const [first, last, second] = runs as [NormalizedRecord, NormalizedRecord, NormalizedRecord];
    const input = frozen(runs);

    const result = dedupeRecords(input.records);

    expect(result.records).toHaveLength(1);
    const kept = result.records[0]!;
    expect(kept.id).toBe(last.id);
    expect(kept.text).toBe(last.text);
    expect(kept.history).toEqual([
      { recordId: first.id, timestamp: at(1), exitCode: 1 },
      { recordId: second.id, timestamp: at(2), exitCode: 1 },
    ]);
    expect(result.merges.map((merge) => [merge.kept, merge.merged, merge.reason])).toEqual([
      [last.id, second.id, 'repeated-run'],
      [last.id, first.id, 'repeated-run'],
    ]);
    for (const merge of result.merges) {
      expect(merge.detail).toContain('`npm test`');
      expect(merge.detail).toContain('exit 1');
    }
    // The kept record is a new object; the input's history is untouched.
    expect(kept).not.toBe(last);
    expect(last.history).toEqual([]);
    expect(JSON.stringify(input.records)).toBe(input.snapshot);
  });

  it('do the same for test results by name, carrying statuses', () => {
    const name = 'parser > handles empty input';
    const passed = makeRecord({ kind: 'testResult', testName: name, testStatus: 'passed', timestamp: at(8), text: 'ok' });
    const failedEarly = makeRecord({ kind: 'testResult', testName: name, testStatus: 'failed', timestamp: at(2), text: 'expected 1 got 2' });
    const failedLater = makeRecord({ kind: 'testResult', testName: name, testStatus: 'failed', timestamp: at(5), text: 'expected 1 got 3' });
    const otherTest = makeRecord({ kind: 'testResult', testName: 'other', testStatus: 'failed', timestamp: at(1), text: 'boom' });

    const result = dedupeRecords(frozen([failedLater, otherTest, passed, failedEarly]).records);

    expect(ids(result.records)).toEqual([otherTest.id, passed.id]);
    expect(result.records[1]!.history).toEqual([
      { recordId: failedEarly.id, timestamp: at(2), status: 'failed' },
      { recordId: failedLater.id, timestamp: at(5), status: 'failed' },
    ]);
    expect(result.records[0]!.history).toEqual([]);
    expect(result.merges.every((merge) => merge.reason === 'repeated-run' && merge.detail.includes(name))).toBe(true);
    expect(result.merges.map((merge) => merge.detail)).toEqual([
      `same test \`${name}\`, earlier run (failed)`,
      `same test \`${name}\`, earlier run (failed)`,
    ]);
  });

  it('count an identical earlier run as a run: it is in the history too', () => {
    const output = `FAIL ${sentence(30, 20)}`;
    const first = makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 1, timestamp: at(1), text: output });
    const second = makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 1, timestamp: at(2), text: output });
    const third = makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 0, timestamp: at(3), text: 'PASS' });

    const result = dedupeRecords(frozen([first, second, third]).records);

    expect(ids(result.records)).toEqual([third.id]);
    expect(result.merges.map((merge) => merge.reason)).toEqual(['exact-duplicate', 'repeated-run']);
    expect(result.records[0]!.history.map((entry) => entry.recordId)).toEqual([first.id, second.id]);
  });
});

describe('near duplicates', () => {
  it('merge a tool output into the newer output that changed one line', () => {
    const lines = log(30, 30);
    const older = makeRecord({ kind: 'toolOutput', tool: 'read_logs', timestamp: at(1), text: lines.join('\n') });
    const edited = [...lines];
    edited[14] = sentence(8, 31);
    const newer = makeRecord({ kind: 'toolOutput', tool: 'read_logs', timestamp: at(2), text: edited.join('\n') });

    const result = dedupeRecords(frozen([older, newer]).records);

    expect(ids(result.records)).toEqual([newer.id]);
    expect(result.merges).toHaveLength(1);
    const merge = result.merges[0]!;
    expect(merge).toMatchObject({ kept: newer.id, merged: older.id, reason: 'near-duplicate' });
    expect(merge.similarity).toBeGreaterThanOrEqual(0.9);
    expect(merge.similarity).toBeLessThan(1);
    expect(merge.similarity).toBe(Math.round(merge.similarity! * 10_000) / 10_000);
    expect(merge.detail).toContain(newer.id);
  });

  it('merge the older into the newer whatever their input order', () => {
    const lines = log(30, 32);
    const edited = [...lines];
    edited[3] = sentence(8, 33);
    const newer = makeRecord({ kind: 'toolOutput', tool: 'read_logs', timestamp: at(9), order: 1, text: lines.join('\n') });
    const older = makeRecord({ kind: 'toolOutput', tool: 'read_logs', timestamp: at(1), order: 2, text: edited.join('\n') });
    expect(dedupeRecords([older, newer]).merges).toMatchObject([{ kept: newer.id, merged: older.id }]);
  });

  it('merge a file only into a file of the same path', () => {
    const content = log(30, 40).join('\n');
    const edited = content.replace(/^.*$/m, sentence(8, 41));
    const a = makeRecord({ kind: 'file', path: 'src/a.ts', timestamp: at(1), text: content });
    const b = makeRecord({ kind: 'file', path: 'src/b.ts', timestamp: at(2), text: content });
    const aAgain = makeRecord({ kind: 'file', path: 'src/a.ts', timestamp: at(3), text: edited });

    expect(ids(dedupeRecords([a, b]).records)).toEqual([a.id, b.id]);
    const withEdit = dedupeRecords([a, b, aAgain]);
    expect(ids(withEdit.records)).toEqual([b.id, aAgain.id]);
    expect(withEdit.merges).toMatchObject([{ kept: aAgain.id, merged: a.id, reason: 'near-duplicate' }]);
  });

  it('never merge across kinds, message roles or decision statuses', () => {
    const text = log(10, 50).join('\n');
    const message = makeRecord({ kind: 'message', role: 'assistant', timestamp: at(1), text });
    const output = makeRecord({ kind: 'toolOutput', tool: 'shell', timestamp: at(2), text });
    const userMessage = makeRecord({ kind: 'message', role: 'user', timestamp: at(3), text });
    const proposed = makeRecord({ kind: 'decision', decisionStatus: 'proposed', timestamp: at(4), text });
    const rejected = makeRecord({ kind: 'decision', decisionStatus: 'rejected', timestamp: at(5), text });
    const records = [message, output, userMessage, proposed, rejected];

    const result = dedupeRecords(records);

    expect(ids(result.records)).toEqual(ids(records));
    expect(result.merges).toEqual([]);
    // Control: the same text within one kind and role does merge.
    const sameRole = makeRecord({ kind: 'message', role: 'assistant', timestamp: at(6), text: `${text} extra` });
    expect(dedupeRecords([message, sameRole]).merges).toMatchObject([{ kept: sameRole.id, merged: message.id }]);
  });

  it('never merge test results by similarity: they are runs or nothing', () => {
    const output = log(20, 55).join('\n');
    const a = makeRecord({ kind: 'testResult', testName: 'a', testStatus: 'failed', timestamp: at(1), text: output });
    const b = makeRecord({ kind: 'testResult', testName: 'b', testStatus: 'failed', timestamp: at(2), text: `${output} x` });
    expect(dedupeRecords([a, b]).merges).toEqual([]);
  });

  describe('errors', () => {
    const stack = (frames: Array<[string, string, number]>): string =>
      frames.map(([fn, file, line]) => `    at ${fn} (${file}:${line}:${(line % 7) + 3})`).join('\n');
    const frames: Array<[string, string, number]> = [
      ['renderList', '/app/src/ui/list.ts', 42],
      ['renderPage', '/app/src/ui/page.ts', 118],
      ['handleRequest', '/app/src/server/handler.ts', 77],
      ['Layer.handle', '/app/node_modules/router/lib/layer.js', 95],
      ['next', '/app/node_modules/router/lib/route.js', 149],
    ];

    it('with the same message and stack shifted by an edit merge', () => {
      const message = "TypeError: Cannot read properties of undefined (reading 'map')";
      const older = makeRecord({ kind: 'error', timestamp: at(1), text: `${message}\n${stack(frames)}` });
      const shifted = frames.map(([fn, file, line]): [string, string, number] => [fn, file, line + 3]);
      const newer = makeRecord({ kind: 'error', timestamp: at(2), text: `${message}\n${stack(shifted)}` });

      const result = dedupeRecords([older, newer]);

      expect(ids(result.records)).toEqual([newer.id]);
      expect(result.merges).toMatchObject([{ kept: newer.id, merged: older.id, reason: 'near-duplicate' }]);
    });

    it('of the same type but with different messages and stacks do not merge', () => {
      const a = makeRecord({
        kind: 'error',
        timestamp: at(1),
        text: `TypeError: Cannot read properties of undefined (reading 'map')\n${stack(frames)}`,
      });
      const b = makeRecord({
        kind: 'error',
        timestamp: at(2),
        text: `TypeError: options.filter is not a function\n${stack([
          ['applyFilter', '/app/src/data/filter.ts', 12],
          ['loadRows', '/app/src/data/rows.ts', 58],
          ['handleRequest', '/app/src/server/handler.ts', 80],
        ])}`,
      });
      expect(dedupeRecords([a, b]).merges).toEqual([]);
    });

    it('sharing only the error type and a short message pattern do not merge', () => {
      const a = makeRecord({ kind: 'error', timestamp: at(1), text: 'TypeError: a is not a function' });
      const b = makeRecord({ kind: 'error', timestamp: at(2), text: 'TypeError: b is not a function' });
      expect(dedupeRecords([a, b]).merges).toEqual([]);
    });

    it('are judged without their error type: a short message needs an exact match', () => {
      // Eight words with the type, seven without: short, so only an equal text would merge.
      const a = makeRecord({ kind: 'error', timestamp: at(1), text: 'TypeError: Cannot read properties of undefined reading map' });
      const b = makeRecord({ kind: 'error', timestamp: at(2), text: 'TypeError: Cannot read properties of undefined reading filter' });
      expect(dedupeRecords([a, b], { nearDuplicateThreshold: 0.8 }).merges).toEqual([]);
      // Control: with a longer message the same one-word difference is a near duplicate at 0.8.
      const c = makeRecord({ kind: 'error', timestamp: at(3), text: 'TypeError: Cannot read properties of undefined while reading field map' });
      const d = makeRecord({ kind: 'error', timestamp: at(4), text: 'TypeError: Cannot read properties of undefined while reading field filter' });
      expect(dedupeRecords([c, d], { nearDuplicateThreshold: 0.8 }).merges).toMatchObject([{ kept: d.id, merged: c.id }]);
    });
  });

  it('merge short texts only when equal up to whitespace', () => {
    const a = makeRecord({ kind: 'message', role: 'user', timestamp: at(1), text: 'run the tests  again' });
    const b = makeRecord({ kind: 'message', role: 'user', timestamp: at(2), text: 'run the tests again please' });
    const c = makeRecord({ kind: 'message', role: 'user', timestamp: at(3), text: 'run the\ntests again' });

    const result = dedupeRecords([a, b, c]);

    expect(ids(result.records)).toEqual([b.id, c.id]);
    expect(result.merges).toEqual([
      { kept: c.id, merged: a.id, reason: 'near-duplicate', similarity: 1, detail: expect.stringContaining(c.id) },
    ]);
  });

  it('choose the candidate containing most of the record, then the latest', () => {
    const base = log(30, 70);
    const extraLines = (seed: number): string => log(10, seed).join('\n');
    const older = makeRecord({ kind: 'toolOutput', tool: 'logs', timestamp: at(1), text: base.join('\n') });
    // Contains all of `older`, but is not itself a near duplicate of the later record.
    const containsAll = makeRecord({ kind: 'toolOutput', tool: 'logs', timestamp: at(2), text: `${base.join('\n')}\n${extraLines(71)}` });
    const twoLinesChanged = [...base];
    twoLinesChanged[5] = sentence(8, 72);
    twoLinesChanged[20] = sentence(8, 73);
    const laterButLess = makeRecord({ kind: 'toolOutput', tool: 'logs', timestamp: at(3), text: twoLinesChanged.join('\n') });

    const result = dedupeRecords([older, containsAll, laterButLess], { nearDuplicateThreshold: 0.8 });

    expect(result.merges).toEqual([
      { kept: containsAll.id, merged: older.id, reason: 'near-duplicate', similarity: 1, detail: expect.any(String) },
    ]);

    // Two candidates containing all of it: the later wins.
    const twinA = makeRecord({ kind: 'toolOutput', tool: 'logs', timestamp: at(5), text: `${base.join('\n')}\n${extraLines(74)}` });
    const twinB = makeRecord({ kind: 'toolOutput', tool: 'logs', timestamp: at(6), text: `${base.join('\n')}\n${extraLines(75)}` });
    for (const records of [[older, twinA, twinB], [twinB, twinA, older]]) {
      const tie = dedupeRecords(records);
      expect(tie.merges).toMatchObject([{ kept: twinB.id, merged: older.id, similarity: 1 }]);
    }
  });

  it('use the threshold option and reject a threshold outside (0, 1]', () => {
    const lines = log(10, 80);
    const edited = [...lines];
    edited[4] = sentence(8, 81);
    const older = makeRecord({ kind: 'toolOutput', tool: 'logs', timestamp: at(1), text: lines.join('\n') });
    const newer = makeRecord({ kind: 'toolOutput', tool: 'logs', timestamp: at(2), text: edited.join('\n') });
    // One line in ten changed: about 0.85 contained, below the default 0.9.
    expect(dedupeRecords([older, newer]).merges).toEqual([]);
    expect(dedupeRecords([older, newer], { nearDuplicateThreshold: 0.8 }).merges).toHaveLength(1);
    for (const bad of [0, -0.1, 1.5, Number.NaN]) {
      let thrown: unknown;
      try {
        dedupeRecords([older], { nearDuplicateThreshold: bad });
      } catch (error) {
        thrown = error;
      }
      expect(isMcpctxError(thrown, 'INVALID_ARGUMENT')).toBe(true);
    }
  });
});

describe('chains of merges', () => {
  it('report every link and carry the history to the last survivor', () => {
    const failing = `FAIL ${log(10, 90).join('\n')}`;
    const passing = `PASS ${log(10, 91).join('\n')}`;
    const a = makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 1, timestamp: at(1), text: failing });
    const b = makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 1, timestamp: at(2), text: failing });
    const c = makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 0, timestamp: at(3), text: passing });
    // The same output, later, from another command: c is a near duplicate of d.
    const d = makeRecord({ kind: 'toolOutput', command: 'npx vitest run', exitCode: 0, timestamp: at(4), text: `${passing}\nDone.` });
    const input = frozen([a, b, c, d]);

    const result = dedupeRecords(input.records);

    expect(result.merges.map((merge) => [merge.merged, merge.kept, merge.reason])).toEqual([
      [a.id, b.id, 'exact-duplicate'],
      [b.id, c.id, 'repeated-run'],
      [c.id, d.id, 'near-duplicate'],
    ]);
    expect(ids(result.records)).toEqual([d.id]);
    expect(result.records[0]!.history).toEqual([
      { recordId: a.id, timestamp: at(1), exitCode: 1 },
      { recordId: b.id, timestamp: at(2), exitCode: 1 },
    ]);
    expect(JSON.stringify(input.records)).toBe(input.snapshot);
  });

  it('keep history the records already carried, in time order', () => {
    const older = makeRecord({
      kind: 'toolOutput',
      command: 'make',
      exitCode: 2,
      timestamp: at(5),
      text: 'make: *** error',
      history: [{ recordId: 'earlier-make', exitCode: 2 }],
    });
    const newer = makeRecord({ kind: 'toolOutput', command: 'make', exitCode: 0, timestamp: at(6), text: 'built' });
    const result = dedupeRecords(frozen([newer, older]).records);
    expect(result.records[0]!.history).toEqual([
      { recordId: 'earlier-make', exitCode: 2 },
      { recordId: older.id, timestamp: at(5), exitCode: 2 },
    ]);
  });
});

describe('the order of the input', () => {
  function scenario(): NormalizedRecord[] {
    const lines = log(30, 100);
    const edited = [...lines];
    edited[7] = sentence(8, 101);
    const dup = sentence(20, 102);
    return [
      makeRecord({ kind: 'message', role: 'user', timestamp: at(1), text: dup }),
      makeRecord({ kind: 'message', role: 'user', timestamp: at(4), text: dup }),
      makeRecord({ kind: 'message', role: 'user', timestamp: at(4), text: dup }),
      makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 1, timestamp: at(2), text: `FAIL ${sentence(20, 103)}` }),
      makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 0, timestamp: at(6), text: `PASS ${sentence(20, 104)}` }),
      makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 1, timestamp: at(3), text: `FAIL ${sentence(20, 105)}` }),
      makeRecord({ kind: 'file', path: 'src/x.ts', timestamp: at(2), text: lines.join('\n') }),
      makeRecord({ kind: 'file', path: 'src/x.ts', timestamp: at(8), text: edited.join('\n') }),
      makeRecord({ kind: 'decision', decisionStatus: 'accepted', timestamp: at(3), text: sentence(12, 106) }),
      makeRecord({ kind: 'error', timestamp: at(5), text: `RangeError: ${sentence(15, 107)}` }),
    ];
  }

  it('keeps the same records and makes the same merges whatever the input order', () => {
    const records = scenario();
    const reference = dedupeRecords(records);
    const keptIds = ids(reference.records).sort();
    const mergeSet = (merges: typeof reference.merges): string[] => merges.map((merge) => JSON.stringify(merge)).sort();
    expect(keptIds).toHaveLength(5);
    expect(reference.merges.map((merge) => merge.reason).sort()).toEqual([
      'exact-duplicate',
      'exact-duplicate',
      'near-duplicate',
      'repeated-run',
      'repeated-run',
    ]);
    for (let seed = 1; seed <= 8; seed++) {
      const result = dedupeRecords(shuffled(records, seed));
      expect(ids(result.records).sort()).toEqual(keptIds);
      expect(mergeSet(result.merges)).toEqual(mergeSet(reference.merges));
      // Histories of survivors do not depend on the order either.
      const histories = Object.fromEntries(result.records.map((record) => [record.id, record.history]));
      expect(histories).toEqual(Object.fromEntries(reference.records.map((record) => [record.id, record.history])));
    }
  });

  it('keeps the 07:00 run, not the 05:00 one, when an undated run sits between them in the input', () => {
    const runs = [
      makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 0, timestamp: '2026-01-15T07:00:00.000Z', text: 'PASS 12 tests' }),
      makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 1, text: 'FAIL 3 of 12 tests' }),
      makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 1, timestamp: '2026-01-15T05:00:00.000Z', text: 'FAIL 2 of 12 tests' }),
    ];
    const result = dedupeRecords(frozen(runs).records);
    expect(ids(result.records)).toEqual([runs[0]!.id]);
    // Oldest first: the undated run counts as older than every dated one.
    expect(result.records[0]!.history).toEqual([
      { recordId: runs[1]!.id, exitCode: 1 },
      { recordId: runs[2]!.id, timestamp: '2026-01-15T05:00:00.000Z', exitCode: 1 },
    ]);
  });

  it('gives the same survivors, merges (in order) and histories when dated records move around undated ones', () => {
    const lines = log(30, 200);
    const undated = [
      makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 2, text: `FAIL ${sentence(20, 201)}` }),
      makeRecord({ kind: 'message', role: 'user', text: sentence(20, 102) }),
      makeRecord({ kind: 'file', path: 'src/x.ts', text: lines.join('\n') }),
      makeRecord({ kind: 'error', text: `RangeError: ${sentence(15, 107)} at a.ts:3:1` }),
      makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 3, text: `FAIL ${sentence(20, 202)}` }),
    ];
    const records = [...scenario(), ...undated].map((record, position) => ({ ...record, order: position }));
    const reference = dedupeRecords(records);
    const historyById = (result: typeof reference) => Object.fromEntries(result.records.map((record) => [record.id, record.history]));
    let moved = 0;
    for (let seed = 1; seed <= 8; seed++) {
      // A new input order: records take the order of their new position; undated ones keep theirs among themselves.
      const from = reorderArray(records, seededRandom(seed));
      moved += from.filter((original, position) => original !== position).length;
      const result = dedupeRecords(from.map((original, position) => ({ ...records[original]!, order: position })));
      expect(ids(result.records).sort(), `seed ${seed}`).toEqual(ids(reference.records).sort());
      expect(result.merges, `seed ${seed}`).toEqual(reference.merges);
      expect(historyById(result), `seed ${seed}`).toEqual(historyById(reference));
    }
    expect(moved).toBeGreaterThan(0);
  });
});

describe('hostile text', () => {
  it('masks source positions exactly as the plain regex does, on random text of colons, digits and separators', () => {
    // The plain form is fine on short text; the optimizer's own is written to stay linear on long text.
    const plain = (text: string) => text.replace(/(?::\d+)+(?=[)\s,]|$)/gm, ':#').replace(/\bline \d+/g, 'line #');
    const alphabet = [':', ':', '1', '23', ')', ' ', ',', '\n', 'a', '.ts', 'line ', '('];
    const random = seededRandom(11);
    for (let i = 0; i < 3_000; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 24) }, () => alphabet[Math.floor(random() * alphabet.length)]!).join('');
      expect(maskSourcePositions(text), JSON.stringify(text)).toBe(plain(text));
    }
  });

  it('dedupes 4 MiB errors made of `:1` runs and of digits in one pass (the plain regex took hours)', () => {
    const size = 4 * 1024 * 1024;
    const records = [
      makeRecord({ kind: 'error', text: `Error: x\n${':1'.repeat(size / 2)}x` }),
      makeRecord({ kind: 'error', text: `Error: y\n${'1'.repeat(size)}` }),
      makeRecord({ kind: 'error', text: `Error: z\n${(':' + '1'.repeat(999)).repeat(size / 1000)}` }),
    ];
    expect(dedupeRecords(records).records).toHaveLength(3);
    expect(maskSourcePositions(`at f (a.ts${':12'.repeat(size / 3)})`)).toBe('at f (a.ts:#)');
  });
});

describe('scale', () => {
  it('dedupes 20,000 records without comparing every pair', () => {
    const records: NormalizedRecord[] = [];
    const kinds = ['toolOutput', 'message', 'file', 'error'] as const;
    const planted = { exact: 0, near: 0 };
    for (let i = 0; i < 20_000; i++) {
      const source = records[i - 7];
      if (source !== undefined && i % 20 === 0) {
        // An exact copy, later.
        records.push(makeRecord({ ...pick(source), text: source.text, timestamp: at(i) }));
        planted.exact++;
      } else if (source !== undefined && i % 20 === 10) {
        // The same text with one word more, later.
        records.push(makeRecord({ ...pick(source), text: `${source.text} appended`, timestamp: at(i) }));
        planted.near++;
      } else {
        const kind = kinds[i % kinds.length]!;
        records.push(
          makeRecord({
            kind,
            text: sentence(40, i + 1),
            timestamp: at(i),
            ...(kind === 'file' ? { path: `src/file-${i}.ts` } : {}),
            ...(kind === 'message' ? { role: 'assistant' as const } : {}),
          }),
        );
      }
    }

    const result = dedupeRecords(records);

    expect(result.stats.exactDuplicates).toBe(planted.exact);
    expect(result.stats.nearDuplicates).toBe(planted.near);
    expect(result.records).toHaveLength(20_000 - planted.exact - planted.near);
    expect(result.stats.comparisons).toBeGreaterThanOrEqual(planted.near);
    expect(result.stats.comparisons).toBeLessThan(5 * records.length);
  });
});

function pick(record: NormalizedRecord): Partial<NormalizedRecord> & { kind: NormalizedRecord['kind'] } {
  return {
    kind: record.kind,
    ...(record.path === undefined ? {} : { path: record.path }),
    ...(record.role === undefined ? {} : { role: record.role }),
  };
}
