// Evasions of the poisoning scan (issue 30, item 9): look-alike letters, full-width forms, soft
// hyphens, variation-selector payloads, base64 split over lines, base64url, German (and French,
// Spanish), an instruction split across title, description and a parameter, and image links that
// carry data out. Each case names the findings it must raise (rule and path); the scan before
// normalization raised none of them. These are tuned cases, written beside the scanner.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_EXCERPT_CHARS, scanTool, type Finding } from '../../src/gateway/trust/scan/index.js';

interface EvasionCase {
  case: string;
  category: string;
  trick: string;
  expect: Array<{ ruleId: string; path: string }>;
  /** Text that an excerpt must show in plain words (for decoded payloads). */
  readable?: string;
  tool: unknown;
}

const cases = JSON.parse(readFileSync(new URL('../fixtures/poisoning-evasions/evasions.json', import.meta.url), 'utf8')) as EvasionCase[];

// The categories of issue 30, item 9, with French and Spanish beside German.
const CATEGORIES = ['look-alikes', 'full-width', 'soft-hyphens', 'variation-selectors', 'base64-lines', 'base64url', 'german', 'french', 'spanish', 'split', 'markdown-image'];

// Invisible characters an excerpt must show escaped, never raw: format characters and variation selectors.
const RAW_INVISIBLE = /[\p{Cf}\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;

function found(findings: readonly Finding[]): string[] {
  return findings.map((finding) => `${finding.ruleId} @ ${finding.path}`);
}

describe('the scan on evasions', () => {
  it('has at least two cases in every category of the issue, and no other category', () => {
    for (const category of CATEGORIES) expect(cases.filter((entry) => entry.category === category).length, category).toBeGreaterThanOrEqual(2);
    expect(cases.every((entry) => CATEGORIES.includes(entry.category))).toBe(true);
  });

  it.each(CATEGORIES)('%s: every case raises the findings it names, where it names them', (category) => {
    for (const entry of cases.filter((candidate) => candidate.category === category)) {
      const findings = found(scanTool(entry.tool));
      for (const { ruleId, path } of entry.expect) expect(findings, `${entry.case}: ${entry.trick}`).toContain(`${ruleId} @ ${path}`);
    }
  });

  it('keeps excerpts short, escaped and readable; decoded text shows as words', () => {
    for (const entry of cases) {
      const findings = scanTool(entry.tool);
      for (const finding of findings) {
        expect(finding.excerpt.length, entry.case).toBeLessThanOrEqual(MAX_EXCERPT_CHARS);
        expect(finding.excerpt, entry.case).not.toMatch(RAW_INVISIBLE);
      }
      if (entry.readable !== undefined) {
        const decoded = findings.filter((finding) => finding.decoded !== undefined);
        expect(decoded.length, entry.case).toBeGreaterThan(0);
        expect(
          decoded.some((finding) => finding.excerpt.includes(entry.readable ?? '')),
          `${entry.case}: ${decoded.map((finding) => finding.excerpt).join(' | ')}`,
        ).toBe(true);
      }
    }
  });
});
