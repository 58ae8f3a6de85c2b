// File and diff paths are compared and merged in one spelling; the source tag keeps the caller's.
import { describe, expect, it } from 'vitest';
import { ContextOptimizer } from '../../src/optimizer/index.js';
import { normalizeRecords } from '../../src/optimizer/_normalize.js';
import { normalizePath } from '../../src/optimizer/_paths.js';

describe('normalizePath', () => {
  it.each([
    ['src/a/../a/b.rs', 'src/a/b.rs'],
    ['./src/x.ts', 'src/x.ts'],
    ['src\\lib\\x.ts', 'src/lib/x.ts'],
    ['.\\src\\.\\x.ts', 'src/x.ts'],
    ['src//x.ts/', 'src/x.ts'],
    ['../shared/x.ts', '../shared/x.ts'],
    ['a/../../x.ts', '../x.ts'],
    ['/repo/src/../x.ts', '/repo/x.ts'],
    ['/../x.ts', '/x.ts'],
    ['C:\\work\\src\\..\\x.ts', 'C:/work/x.ts'],
    ['\\\\server\\share\\x.ts', '//server/share/x.ts'],
    ['./', '.'],
  ])('%s is %s', (given, expected) => {
    expect(normalizePath(given)).toBe(expected);
  });
});

describe('paths in normalization, deduplication and the context', () => {
  it('merges snapshots of one file however its path is spelled, and tags the kept one with the spelling it came with', () => {
    const result = new ContextOptimizer().buildContext({
      task: 'Fix the borrow error in src/a/b.rs',
      files: [
        { id: 'old', path: 'src/a/../a/b.rs', content: 'fn main() { let x = 1; }', timestamp: '2026-11-30T09:00:00Z' },
        { id: 'new', path: './src/a/b.rs', content: 'fn main() { let y = 2; }', timestamp: '2026-11-30T10:00:00Z' },
      ],
    });
    expect(result.omitted).toEqual([expect.objectContaining({ recordId: 'old', reason: 'repeated-run', keptAs: 'new' })]);
    expect(result.context).toContain('[source: new#1 | new | ./src/a/b.rs]');
  });

  it('treats the same diff under backslash and slash paths as exact duplicates', () => {
    const diff = '--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1 +1 @@\n-export const a = 1;\n+export const a = 2;';
    const normalized = normalizeRecords({ diffs: [{ path: 'src\\x.ts', diff }, { path: 'src/x.ts', diff }] });
    const [first, second] = normalized.records;
    expect(first!.path).toBe('src/x.ts');
    expect(first!.label).toBe('src\\x.ts');
    expect(first!.contentHash).toBe(second!.contentHash);
    const result = new ContextOptimizer().buildContext({ task: 'Why did src/x.ts change?', diffs: [{ path: 'src\\x.ts', diff }, { path: 'src/x.ts', diff }] });
    expect(result.omitted.map((entry) => entry.reason)).toEqual(['exact-duplicate']);
  });
});
