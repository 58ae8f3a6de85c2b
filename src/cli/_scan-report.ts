import { scanCatalog, type ToolScan } from '../gateway/trust/scan/index.js';
import { type Measurement } from '../measure/index.js';
import { printableText } from '../text/index.js';

/** What `measure --scan` adds to a measurement: the poisoning scan of its captured catalog. */
export interface CatalogScan {
  toolsScanned: number;
  findingCount: number;
  /** Only the tools with at least one finding, in catalog order. */
  tools: ToolScan[];
}

/** The scan of the catalog as recorded; null when the server gave no catalog to scan. */
export function scanMeasurement(measurement: Measurement): CatalogScan | null {
  if (measurement.rawToolsCapture === null) return null;
  const flagged = scanCatalog(measurement.rawToolsCapture).filter((scan) => scan.findings.length > 0);
  return {
    toolsScanned: measurement.rawToolsCapture.length,
    findingCount: flagged.reduce((sum, scan) => sum + scan.findings.length, 0),
    tools: flagged,
  };
}

/**
 * Findings per tool for people. Tool names, paths and excerpts come escaped from the scanner
 * (control and invisible characters as `\u{...}`); the server name is made printable here.
 */
export function renderScan(measurement: Measurement, scan: CatalogScan | null): string {
  const server = printableText(measurement.name, 'note');
  if (scan === null) return `poisoning scan of ${server}: no catalog to scan (${measurement.status})\n`;
  if (scan.findingCount === 0) return `poisoning scan of ${server}: no findings in ${scan.toolsScanned} tools\n`;
  const lines = [
    `poisoning scan of ${server}: ${scan.findingCount} finding(s) in ${scan.tools.length} of ${scan.toolsScanned} tools (heuristic: a reason to read the definition, not proof)`,
  ];
  for (const tool of scan.tools) {
    lines.push(`  ${tool.tool}`);
    for (const finding of tool.findings) lines.push(`    ${finding.ruleId} ${finding.path}: ${finding.reason}`, `      ${finding.excerpt}`);
  }
  return `${lines.join('\n')}\n`;
}
