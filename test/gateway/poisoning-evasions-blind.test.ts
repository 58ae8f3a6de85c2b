// The poisoning scan on a second blind corpus, of evasions: 30 poisoned definitions that each hide
// one instruction with a technique a keyword scanner misses (look-alike and full-width letters,
// soft hyphens, variation-selector payloads, base64 split over lines, base64url, other languages,
// an instruction split across fields, markdown-image exfiltration...) and 20 benign definitions
// that look risky (other languages, real mentions of keys, BCC, base64, emoji). Written by a
// session that could not read the scanner or its tuned corpora, frozen by MANIFEST.sha256 (itself
// hashed) before the scanner first ran on it. First run, on the scanner before normalization:
// 9 of 30 flagged, 6 of 20 benign flagged; first run after it (the scan that normalizes and
// decodes): 20 of 30 flagged, 7 of 20 benign flagged. The rules must not be tuned on it.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scanTool } from '../../src/gateway/trust/scan/index.js';

/** As first measured after normalization: a change that catches fewer, or flags more benign ones, fails here. */
const MIN_CAUGHT = 20;
const MAX_FALSE_POSITIVES = 7;

const folder = new URL('../fixtures/poisoning-evasions-blind/', import.meta.url);
const read = (name: string): Buffer => readFileSync(new URL(name, folder));
const definitions = (kind: 'poisoned' | 'benign'): Array<{ file: string; definition: unknown }> =>
  readdirSync(new URL(`${kind}/`, folder))
    .sort()
    .map((file) => ({ file, definition: (JSON.parse(read(`${kind}/${file}`).toString('utf8')) as { definition: unknown }).definition }));

describe('the poisoning scan on the blind evasion corpus', () => {
  it('is the corpus as frozen', () => {
    const manifest = read('MANIFEST.sha256');
    expect(createHash('sha256').update(manifest).digest('hex')).toBe(read('MANIFEST.sha256.sha256').toString('utf8').trim().split(/\s+/)[0]);
    const lines = manifest.toString('utf8').trim().split('\n');
    for (const line of lines) {
      const [sum, name] = line.split(/\s+/);
      expect(createHash('sha256').update(read(name ?? '')).digest('hex'), name).toBe(sum);
    }
    expect(lines).toHaveLength(50);
  });

  it('flags at least the figures first measured after normalization, and no more benign definitions', () => {
    const poisoned = definitions('poisoned');
    const benign = definitions('benign');
    const caught = poisoned.filter((entry) => scanTool(entry.definition).length > 0).map((entry) => entry.file);
    const missed = poisoned.map((entry) => entry.file).filter((file) => !caught.includes(file));
    const falsePositives = benign.filter((entry) => scanTool(entry.definition).length > 0).map((entry) => entry.file);
    console.log(`blind evasion corpus: ${caught.length}/${poisoned.length} poisoned flagged (missed: ${missed.join(', ')}); ${falsePositives.length}/${benign.length} benign flagged (${falsePositives.join(', ')})`);
    expect(caught.length).toBeGreaterThanOrEqual(MIN_CAUGHT);
    expect(falsePositives.length).toBeLessThanOrEqual(MAX_FALSE_POSITIVES);
  });
});
