// tool-vectors.json: a short, hash-deduped history of per-tool tokens, and its strict reader.
import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../../src/errors/index.js';
import {
  MAX_TOOL_VECTORS,
  emptyToolVectors,
  parseToolVectors,
  recordToolVector,
  toolVectorsJson,
} from '../../../src/results/history/index.js';
import { failed, measured, tool, words } from './build.js';

const v1 = [tool('echo', 'Echo the input.', { text: { type: 'string' } })];
const v2 = [...v1, tool('add', 'Add two numbers.', { a: { type: 'number' }, b: { type: 'number' } })];

function day(n: number): string {
  return new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10);
}

describe('recordToolVector', () => {
  it('a failed record changes nothing', () => {
    const file = recordToolVector(emptyToolVectors('s'), measured('s', v1), day(0));
    expect(recordToolVector(file, failed('s', 'timeout'), day(1))).toEqual(file);
  });

  it('appends a new capture with its per-tool tokens and isolation', () => {
    const record = measured('s', v2, 'docker');
    const file = recordToolVector(emptyToolVectors('s'), record, day(0));
    expect(file).toEqual({
      method: 'tool-vectors/v1',
      server: 's',
      vectors: [
        {
          canonicalSha256: record.canonicalSha256,
          firstSeen: day(0),
          lastSeen: day(0),
          measuredWith: { launch: ['npx', '-y', 's'], cwd: null, serverVersion: null },
          isolation: 'docker',
          toolCount: 2,
          totalTokens: record.totalTokens,
          tools: record.perTool!.map(({ name, tokens, descriptionTokens, inputSchemaTokens }) => ({ name, tokens, descriptionTokens, inputSchemaTokens, outputSchemaTokens: 0 })),
        },
      ],
    });
  });

  it('the same capture again moves its lastSeen and keeps its place', () => {
    let file = emptyToolVectors('s');
    file = recordToolVector(file, measured('s', v1), day(0));
    file = recordToolVector(file, measured('s', v2), day(7));
    file = recordToolVector(file, measured('s', v1), day(14));
    expect(file.vectors.map((vector) => [vector.toolCount, vector.firstSeen, vector.lastSeen])).toEqual([
      [1, day(0), day(14)],
      [2, day(7), day(7)],
    ]);
  });

  it(`keeps at most ${MAX_TOOL_VECTORS}: the least recently seen drop, never the capture just recorded`, () => {
    let file = emptyToolVectors('s');
    // The first capture keeps coming back, so it is never the stalest though it is the oldest.
    for (let n = 0; n < MAX_TOOL_VECTORS + 3; n += 1) {
      file = recordToolVector(file, measured('s', [tool('t', words(n + 1))]), day(2 * n));
      file = recordToolVector(file, measured('s', [tool('t', words(1))]), day(2 * n + 1));
    }
    expect(file.vectors).toHaveLength(MAX_TOOL_VECTORS);
    expect(file.vectors[0]?.firstSeen).toBe(day(0));
    expect(file.vectors[0]?.lastSeen).toBe(day(2 * (MAX_TOOL_VECTORS + 2) + 1));
    expect(file.vectors[file.vectors.length - 1]?.firstSeen).toBe(day(2 * (MAX_TOOL_VECTORS + 2)));
    expect(file.vectors.map((vector) => vector.firstSeen)).not.toContain(day(2));
  });

  it(`on one day, keeps the ${MAX_TOOL_VECTORS} seen in the latest sweeps: a capture seen again in sweep N is not the stalest`, () => {
    let file = emptyToolVectors('s');
    let sweep = 0;
    for (let n = 0; n < MAX_TOOL_VECTORS; n += 1) file = recordToolVector(file, measured('s', [tool('t', words(n + 1))]), day(0), (sweep += 1));
    // The first capture comes back later the same day; the next new one pushes the stalest out.
    file = recordToolVector(file, measured('s', [tool('t', words(1))]), day(0), (sweep += 1));
    file = recordToolVector(file, measured('s', [tool('t', words(99))]), day(0), sweep + 1);
    expect(file.vectors).toHaveLength(MAX_TOOL_VECTORS);
    expect(file.vectors[0]).toMatchObject({ firstSweep: 1, lastSweep: MAX_TOOL_VECTORS + 1 });
    expect(file.vectors.map((vector) => vector.firstSweep)).not.toContain(2);
    expect(file.vectors[file.vectors.length - 1]).toMatchObject({ firstSweep: MAX_TOOL_VECTORS + 2, lastSweep: MAX_TOOL_VECTORS + 2 });
  });

  it('refuses a sweep number that is not a whole number from 1', () => {
    expect(() => recordToolVector(emptyToolVectors('s'), measured('s', v1), day(0), 0)).toThrow(/sweep number/);
  });

  it("refuses another server's measurement", () => {
    expect(() => recordToolVector(emptyToolVectors('s'), measured('other', v1), day(0))).toThrow(/"other"/);
  });
});

describe('tool-vectors.json', () => {
  const file = recordToolVector(recordToolVector(emptyToolVectors('s'), measured('s', v1), day(0)), measured('s', v2, null), day(7));

  it('round-trips byte for byte, 2-space JSON with a final newline', () => {
    const text = toolVectorsJson(file);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toBe(`${JSON.stringify(file, null, 2)}\n`);
    expect(parseToolVectors(text, 'f.json')).toEqual(file);
    expect(toolVectorsJson(parseToolVectors(text, 'f.json'))).toBe(text);
  });

  // The file as parsed JSON, changed in one place by each case below.
  type Loose = { method: unknown; server?: unknown; vectors: Array<Record<string, unknown> & { tools: Array<Record<string, unknown>> }> };
  const edited = (edit: (value: Loose) => void) => (): string => {
    const value = JSON.parse(toolVectorsJson(file)) as Loose;
    edit(value);
    return JSON.stringify(value);
  };

  it.each([
    ['not JSON', () => '{', /^results\/s\/tool-vectors\.json: not JSON/],
    ['a list', () => '[]', /the top level must be an object/],
    ['another method', edited((v) => void (v.method = 'tool-vectors/v2')), /^results\/s\/tool-vectors\.json: method must be "tool-vectors\/v1"/],
    ['no server', edited((v) => void delete v.server), /the top level lacks "server"/],
    ['an unknown key', edited((v) => void (v.vectors[0]!.extra = 1)), /vectors\[0\] has an unknown key "extra"/],
    ['a short hash', edited((v) => void (v.vectors[1]!.canonicalSha256 = 'abc')), /vectors\[1\]\.canonicalSha256 must be a sha256/],
    ['a bad date', edited((v) => void (v.vectors[0]!.firstSeen = 'yesterday')), /vectors\[0\]\.firstSeen must be a date/],
    ['lastSeen before firstSeen', edited((v) => void (v.vectors[0]!.lastSeen = '2025-01-01')), /vectors\[0\]\.lastSeen is before firstSeen/],
    ['an unknown isolation', edited((v) => void (v.vectors[0]!.isolation = 'vm')), /vectors\[0\]\.isolation must be/],
    ['a fractional token count', edited((v) => void (v.vectors[1]!.tools[1]!.tokens = 1.5)), /vectors\[1\]\.tools\[1\]\.tokens must be a whole number/],
    ['a negative total', edited((v) => void (v.vectors[0]!.totalTokens = -1)), /vectors\[0\]\.totalTokens must be a whole number/],
    ['a count that disagrees', edited((v) => void (v.vectors[1]!.toolCount = 3)), /vectors\[1\]\.toolCount is 3 but the vector lists 2 tools/],
    ['a name that is not text', edited((v) => void (v.vectors[0]!.tools[0]!.name = 7)), /vectors\[0\]\.tools\[0\]\.name must be a string/],
    ['a repeated capture', edited((v) => void v.vectors.push(v.vectors[0]!)), /vectors\[2\]\.canonicalSha256 repeats a capture/],
    ['a __proto__ key', () => toolVectorsJson(file).replace('"method"', '"__proto__": {}, "method"'), /unknown key "__proto__"/],
  ])('refuses %s, with the path of the bad value', (_what, text, message) => {
    let error: unknown;
    try {
      parseToolVectors(text(), 'results/s/tool-vectors.json');
    } catch (caught) {
      error = caught;
    }
    expect(isMcpctxError(error, 'INVALID_RESULTS')).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});
