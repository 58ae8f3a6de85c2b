import { describe, expect, it } from 'vitest';
import { fragmentRecord } from '../../src/optimizer/_fragments.js';
import { parseSourceTags, renderBlock, renderContext } from '../../src/optimizer/_render.js';
import type { NormalizedRecord, ScoredFragment } from '../../src/optimizer/_types.js';
import { makeRecord } from './_records.js';

function words(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function scoredOf(record: NormalizedRecord, mandatoryReason?: string): ScoredFragment[] {
  return fragmentRecord(record).map((fragment) => ({
    fragment,
    record,
    facts: { paths: [], symbols: [], frames: [], errorSignatures: [], testFailures: [], requirements: [], outcome: 'unknown' },
    signals: {} as ScoredFragment['signals'],
    score: 1,
    relevance: 1,
    touchesTask: false,
    recordIdentifier: 0,
    ...(mandatoryReason === undefined ? {} : { mandatoryReason }),
  }));
}

describe('fragments', () => {
  it('keeps small records and structured records whole, whatever their size', () => {
    const longDiff = makeRecord({ kind: 'diff', path: 'a.ts', text: `${'+ line\n\n'.repeat(2_000)}` });
    expect(fragmentRecord(longDiff)).toHaveLength(1);
    expect(fragmentRecord(makeRecord({ kind: 'error', text: 'E\n\n'.repeat(3_000) }))).toHaveLength(1);
    expect(fragmentRecord(makeRecord({ kind: 'message', text: 'short' }))).toHaveLength(1);
  });

  it('splits long unstructured text at blank lines into numbered fragments that lose no word', () => {
    const paragraphs = Array.from({ length: 60 }, (_, i) => `paragraph ${i} ${'word '.repeat(40)}`);
    const record = makeRecord({ kind: 'toolOutput', command: 'cat notes', text: paragraphs.join('\n\n') });
    const fragments = fragmentRecord(record);
    expect(fragments.length).toBeGreaterThan(5);
    expect(fragments.map((f) => f.id)).toEqual(fragments.map((_, i) => `${record.id}#${i + 1}`));
    expect(words(fragments.map((f) => f.text).join(' '))).toBe(words(record.text));
    for (const fragment of fragments) expect(fragment.text.length).toBeLessThanOrEqual(2_400);
  });

  it('cuts a huge single line without splitting a surrogate pair', () => {
    const record = makeRecord({ kind: 'file', path: 'emoji.txt', text: '😀'.repeat(5_000) });
    const fragments = fragmentRecord(record);
    expect(fragments.length).toBeGreaterThan(1);
    expect(fragments.map((f) => f.text).join('')).toBe(record.text);
    for (const fragment of fragments) expect(fragment.text.startsWith('\uDE00')).toBe(false);
  });
});

describe('rendering', () => {
  it('tags every fragment, puts the run history and exit code on the first, and the tags parse back', () => {
    const record = makeRecord({
      kind: 'toolOutput',
      command: 'npm test',
      exitCode: 1,
      text: 'FAIL a.test.ts',
      history: [{ recordId: 'r0', exitCode: 2, timestamp: '2026-11-30T08:00:00Z' }],
    });
    const block = renderBlock(scoredOf(record)[0]!);
    expect(block).toBe(`[source: ${record.id}#1 | ${record.id} | npm test]\nexit code 1\nearlier runs (1): exit 2 at 2026-11-30T08:00:00Z\nFAIL a.test.ts\n`);
    expect(parseSourceTags(block)).toEqual([{ fragmentId: `${record.id}#1`, recordId: record.id, label: 'npm test' }]);
  });

  it('renders sections in a fixed order and records chronologically within a section', () => {
    const later = makeRecord({ kind: 'toolOutput', command: 'b', text: 'second', timestamp: '2026-11-30T10:00:00Z' });
    const earlier = makeRecord({ kind: 'toolOutput', command: 'a', text: 'first', timestamp: '2026-11-30T09:00:00Z' });
    const decision = makeRecord({ kind: 'decision', decisionStatus: 'accepted', text: 'use zod' });
    const rule = makeRecord({ kind: 'message', role: 'user', text: 'never push to main' });
    const chat = makeRecord({ kind: 'message', role: 'assistant', text: 'ok' });
    const context = renderContext([...scoredOf(chat), ...scoredOf(later), ...scoredOf(decision), ...scoredOf(earlier), ...scoredOf(rule, 'constraint')], new Map());
    const headings = [...context.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(['Constraints', 'Decisions', 'Tool outputs', 'Conversation']);
    expect(context.indexOf('first')).toBeLessThan(context.indexOf('second'));
    expect(context).not.toContain('[omitted');
  });

  it('states what was omitted, by reason', () => {
    const record = makeRecord({ kind: 'message', role: 'user', text: 'x' });
    const context = renderContext(scoredOf(record), new Map([['low-relevance', 3], ['exact-duplicate', 1]]));
    expect(context.endsWith('[omitted: 4 fragments (exact-duplicate 1, low-relevance 3); the report lists each with its reason]\n')).toBe(true);
  });
});

describe('run history', () => {
  it('stays one short line however many runs were folded in', () => {
    const history = Array.from({ length: 40 }, (_, i) => ({ recordId: `r${i}`, exitCode: 1, timestamp: `2026-11-30T08:${String(i).padStart(2, '0')}:00Z` }));
    const record = makeRecord({ kind: 'toolOutput', command: 'npm test', exitCode: 1, text: 'FAIL', history });
    const block = renderBlock(scoredOf(record)[0]!);
    expect(block).toContain('earlier runs (40): 35 older, then exit 1 at 2026-11-30T08:35:00Z;');
    expect(block.split('\n')).toHaveLength(5);
    expect(block.length).toBeLessThan(400);
  });
});
