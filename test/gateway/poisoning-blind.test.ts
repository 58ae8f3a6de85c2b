// The poisoning scan on a blind corpus: 30 poisoned definitions (10 hiding their instruction in
// Unicode) and 30 real benign ones, written by a session that could not read the scanner or the
// tuned corpus, frozen by SHA256SUMS before the scanner first ran on it. Its figures are the ones to
// expect on definitions nobody tuned for; the rules must not be tuned on it (write a new blind set).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scanTool } from '../../src/gateway/trust/scan/index.js';

const folder = new URL('../fixtures/poisoning-blind/', import.meta.url);
const read = (name: string): Buffer => readFileSync(new URL(name, folder));
const poisoned = JSON.parse(read('poisoned.json').toString('utf8')) as Array<{ case: string; hidden: boolean; tool: unknown }>;
const benign = JSON.parse(read('benign.json').toString('utf8')) as Array<{ source: string; tool: unknown }>;

describe('the poisoning scan on the blind corpus', () => {
  it('is the corpus as frozen', () => {
    const sums = read('SHA256SUMS').toString('utf8').trim().split('\n');
    for (const line of sums) {
      const [sum, name] = line.split(/\s+/);
      expect(createHash('sha256').update(read(name ?? '')).digest('hex')).toBe(sum);
    }
    expect(sums).toHaveLength(2);
  });

  it('catches every hidden-Unicode case and 23 of 30 in all, with no benign definition flagged (figures as first measured)', () => {
    const caught = poisoned.filter((entry) => scanTool(entry.tool).length > 0);
    const missed = poisoned.filter((entry) => !caught.includes(entry)).map((entry) => entry.case);
    const falsePositives = benign.filter((entry) => scanTool(entry.tool).length > 0).map((entry) => entry.source);
    console.log(`blind corpus: ${caught.length}/${poisoned.length} poisoned flagged (missed: ${missed.join(', ')}); ${falsePositives.length}/${benign.length} benign flagged`);
    expect(poisoned.filter((entry) => entry.hidden).every((entry) => caught.includes(entry))).toBe(true);
    expect(caught.length).toBeGreaterThanOrEqual(23);
    expect(falsePositives.length).toBeLessThanOrEqual(1);
  });
});
