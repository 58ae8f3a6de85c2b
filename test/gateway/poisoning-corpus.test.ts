// The poisoning scan on a frozen corpus (issue 17, acceptance 3): 35 written poisoned definitions
// and 32 benign ones copied from the real catalogs, plus every tool of those real catalogs.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { POISONING_RULES, scanCatalog, scanTool, type Finding } from '../../src/gateway/trust/scan/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const CORPUS = `${FIXTURES}poisoning/`;

interface PoisonedCase {
  case: string;
  trick: string;
  hidden: boolean;
  tool: unknown;
}

interface BenignCase {
  source: string;
  tool: unknown;
}

const poisoned = JSON.parse(readFileSync(`${CORPUS}poisoned.json`, 'utf8')) as PoisonedCase[];
const benign = JSON.parse(readFileSync(`${CORPUS}benign.json`, 'utf8')) as BenignCase[];

/** Every tool of every real catalog in the two fixture folders, labelled by where it came from. */
function realTools(): Array<{ source: string; tool: unknown }> {
  const tools: Array<{ source: string; tool: unknown }> = [];
  const catalogs = `${FIXTURES}mcp-tool-catalogs/`;
  for (const file of readdirSync(catalogs).filter((name) => name.endsWith('.tools.json')).sort()) {
    const catalog = JSON.parse(readFileSync(catalogs + file, 'utf8')) as { tools: unknown[] };
    catalog.tools.forEach((tool, index) => tools.push({ source: `mcp-tool-catalogs/${file}#tools[${index}]`, tool }));
  }
  const snaps = `${FIXTURES}github-mcp-server-toolsnaps/`;
  for (const file of readdirSync(snaps).filter((name) => name.endsWith('.snap')).sort()) {
    tools.push({ source: `github-mcp-server-toolsnaps/${file}`, tool: JSON.parse(readFileSync(snaps + file, 'utf8')) as unknown });
  }
  return tools;
}

function describeFinding(finding: Finding): string {
  return `${finding.ruleId} at ${finding.path}: ${finding.excerpt}`;
}

describe('the poisoning corpus', () => {
  it('is the frozen one: every file matches SHA256SUMS', () => {
    const lines = readFileSync(`${CORPUS}SHA256SUMS`, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      const [sum, file] = line.split(/\s+/);
      expect(createHash('sha256').update(readFileSync(`${CORPUS}${file ?? ''}`)).digest('hex'), file).toBe(sum);
    }
  });

  it('holds at least 30 poisoned and 30 benign definitions, benign ones from the real catalogs', () => {
    expect(poisoned.length).toBeGreaterThanOrEqual(30);
    expect(benign.length).toBeGreaterThanOrEqual(30);
    const real = new Map(realTools().map(({ source, tool }) => [`test/fixtures/${source}`, tool]));
    for (const { source, tool } of benign) expect(real.get(source), source).toEqual(tool);
  });
});

describe('the scan on the corpus', () => {
  it('flags every poisoned definition and lists the findings per rule', () => {
    const perRule = new Map<string, string[]>(POISONING_RULES.map((rule) => [rule.id, []]));
    const missed: string[] = [];
    for (const { case: name, tool } of poisoned) {
      const findings = scanTool(tool);
      if (findings.length === 0) missed.push(name);
      for (const finding of findings) perRule.get(finding.ruleId)?.push(`${name}: ${finding.path}`);
    }
    const listing = [...perRule].map(([id, hits]) => `${id} ${hits.length}${hits.map((hit) => `\n    ${hit}`).join('')}`);
    console.log(`poisoned corpus: ${poisoned.length - missed.length}/${poisoned.length} flagged; findings per rule:\n  ${listing.join('\n  ')}`);
    expect(missed).toEqual([]);
  });

  it('catches every hidden-Unicode case with a hidden-Unicode rule', () => {
    const hiddenRules = new Set(POISONING_RULES.filter((rule) => rule.kind === 'hidden-unicode').map((rule) => rule.id));
    const hiddenCases = poisoned.filter((entry) => entry.hidden);
    expect(hiddenCases.length).toBeGreaterThanOrEqual(10);
    for (const { case: name, tool } of hiddenCases) {
      expect(
        scanTool(tool).some((finding) => hiddenRules.has(finding.ruleId)),
        name,
      ).toBe(true);
    }
  });

  it('has at most one false positive on the benign set', () => {
    const flagged = benign.map(({ source, tool }) => ({ source, findings: scanTool(tool) })).filter(({ findings }) => findings.length > 0);
    console.log(
      `benign corpus: ${flagged.length} false positive(s) of ${benign.length}${flagged.map(({ source, findings }) => `\n  ${source}: ${findings.map(describeFinding).join('; ')}`).join('')}`,
    );
    expect(flagged.length).toBeLessThanOrEqual(1);
  });

  it('reports its false positives over every tool of the real catalogs', () => {
    const tools = realTools();
    const scans = scanCatalog(tools.map(({ tool }) => tool));
    const flagged = scans.filter((scan) => scan.findings.length > 0);
    console.log(
      `real catalogs: ${flagged.length} false positive(s) of ${tools.length} tools${flagged
        .map((scan) => `\n  ${tools[scan.index]?.source}: ${scan.findings.map(describeFinding).join('; ')}`)
        .join('')}`,
    );
    expect(tools.length).toBe(200);
    // Every tool of these catalogs is taken as benign: the same bar as the benign corpus.
    expect(flagged.length).toBeLessThanOrEqual(1);
  });
});
