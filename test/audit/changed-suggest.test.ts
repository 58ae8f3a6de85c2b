// --changed joins by canonical hash only (behind, current, unidentified; a label that differs from
// the published name is printed beside it), reading the current total from the published record;
// --suggest fires only at or above the p90 of the description distribution, naming the percentile.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedAgainst } from '../../src/audit/_changed.js';
import { percentileOf, suggestDescriptions } from '../../src/audit/_suggest.js';
import { readCaptureIndex, readToolShape, type CaptureIndex, type ToolShape } from '../../src/results/index.js';

const H = (c: string): string => c.repeat(64);
const OLD = H('a');
const NEW = H('b');
const OTHER = H('c');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function resultsDir(index: unknown, measurements: Record<string, unknown> = {}, shape?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-audit-results-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'capture-index.json'), JSON.stringify(index));
  if (shape !== undefined) writeFileSync(join(dir, 'tool-shape.json'), JSON.stringify(shape));
  for (const [server, record] of Object.entries(measurements)) {
    mkdirSync(join(dir, server), { recursive: true });
    writeFileSync(join(dir, server, 'measurement.json'), JSON.stringify(record));
  }
  return dir;
}

const INDEX: CaptureIndex = {
  method: 'capture-index/v1',
  captures: {
    [OLD]: { server: 'github', firstSeen: '2026-08-01', lastSeen: '2026-08-19', current: false },
    [NEW]: { server: 'github', firstSeen: '2026-08-26', lastSeen: '2026-11-30', current: true },
  },
  current: { github: NEW },
};

describe('--changed', () => {
  it('puts each measured server in exactly one of behind, current and unidentified, by hash, with the tokens moving to current would add', async () => {
    const dir = resultsDir(INDEX, { github: { canonicalSha256: NEW, totalTokens: 21_500 } });
    const index = await readCaptureIndex(dir);
    const rows = await changedAgainst(
      [
        { name: 'my-github', canonicalSha256: OLD, tokens: 20_000 },
        { name: 'github', canonicalSha256: NEW, tokens: 21_500 },
        { name: 'github-fork', canonicalSha256: OTHER, tokens: 9_000 },
      ],
      index,
      dir,
    );
    expect(rows.map((row) => [row.name, row.change.state, row.publishedAs])).toEqual([
      ['my-github', 'behind', 'github'],
      ['github', 'current', undefined],
      // Named like nothing published, and bytes never published: no claim, whatever the name.
      ['github-fork', 'unidentified', undefined],
    ]);
    expect(rows[0]?.change).toEqual({
      state: 'behind',
      server: 'github',
      installedSeen: { first: '2026-08-01', last: '2026-08-19' },
      currentSeen: '2026-11-30',
      tokensToCurrent: 1_500,
      currentTokens: 21_500,
    });
  });

  it('never joins by name: a server labelled github whose bytes are unknown is unidentified', async () => {
    const dir = resultsDir(INDEX);
    const rows = await changedAgainst([{ name: 'github', canonicalSha256: OTHER, tokens: 1 }], await readCaptureIndex(dir), dir);
    expect(rows[0]?.change).toEqual({ state: 'unidentified' });
  });

  it('says the tokens to current are unknown when the current record is missing or holds other bytes', async () => {
    const dir = resultsDir(INDEX, { github: { canonicalSha256: OTHER, totalTokens: 99 } });
    const rows = await changedAgainst([{ name: 'github', canonicalSha256: OLD, tokens: 10 }], await readCaptureIndex(dir), dir);
    expect(rows[0]?.change).toMatchObject({ state: 'behind', tokensToCurrent: null, currentTokens: null });
  });

  it('refuses an index that is not one (INVALID_RESULTS naming the file)', async () => {
    for (const bad of [{}, { ...INDEX, method: 'x' }, { ...INDEX, captures: { nothex: INDEX.captures[OLD] } }, { ...INDEX, current: { github: OTHER } }]) {
      const dir = resultsDir(bad);
      await expect(readCaptureIndex(dir)).rejects.toMatchObject({ code: 'INVALID_RESULTS', message: expect.stringContaining('capture-index.json') as unknown });
    }
  });
});

function shape(description: number[]): ToolShape {
  const flat = Array.from({ length: 101 }, () => 10);
  return { method: 'tool-shape/v1', servers: 3, tools: 300, quantiles: { whole: flat, description, inputSchema: flat } };
}

describe('--suggest', () => {
  // p0..p100 = 0..100 tokens: the percentile of a description is its token count.
  const linear = shape(Array.from({ length: 101 }, (_, p) => p));

  it('suggests descriptions at or above p90 only, with the percentile and an approximate recovery over the median', () => {
    const report = suggestDescriptions(
      [{ name: 'srv', perTool: [89, 90, 150, 10].map((descriptionTokens, i) => ({ name: `t${i}`, tokens: descriptionTokens + 20, descriptionTokens, inputSchemaTokens: 20 })) }],
      linear,
    );
    expect(report.suggestions).toEqual([
      { server: 'srv', tool: 't2', descriptionTokens: 150, percentile: 100, approxRecovery: 100 },
      { server: 'srv', tool: 't1', descriptionTokens: 90, percentile: 90, approxRecovery: 40 },
    ]);
    expect(report.toolsChecked).toBe(4);
    expect(report.baseline).toEqual({ servers: 3, tools: 300, p90: 90, median: 50 });
  });

  it('says nothing is unusual rather than inventing advice', () => {
    const report = suggestDescriptions([{ name: 'srv', perTool: [{ name: 'a', tokens: 30, descriptionTokens: 12, inputSchemaTokens: 10 }] }], linear);
    expect(report.suggestions).toEqual([]);
  });

  it('reads percentiles off nearest-rank points, ties to the highest', () => {
    expect(percentileOf([1, 1, 1, 5, 9], 1)).toBe(2);
    expect(percentileOf([1, 1, 1, 5, 9], 0)).toBe(0);
    expect(percentileOf([1, 1, 1, 5, 9], 100)).toBe(4);
  });

  it('refuses a baseline that is not a tool-shape table', async () => {
    const dir = resultsDir(INDEX, {}, { method: 'tool-shape/v1', servers: 1, tools: 1, quantiles: { whole: [1], description: [1], inputSchema: [1] } });
    await expect(readToolShape(dir)).rejects.toMatchObject({ code: 'INVALID_RESULTS' });
    const missing = resultsDir(INDEX);
    await expect(readToolShape(missing)).rejects.toMatchObject({ code: 'INVALID_RESULTS' });
    const good = resultsDir(INDEX, {}, linear);
    expect((await readToolShape(good)).quantiles.description[90]).toBe(90);
  });
});
