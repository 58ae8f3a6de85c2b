import type { CapabilityProbe, ProbeSide } from '../measure/index.js';
import { printableText } from '../text/index.js';
import { formatCount, renderTable } from './_table.js';

/** `measure --probe` for people: one row per declaration, then the tools that differ. */
export function renderProbe(probe: CapabilityProbe): string {
  const name = printableText(probe.name, 'note');
  const out = [`${name}: capability probe (${probe.method}): each capture is the same launch, differing only in the one client capability declared\n`];
  const sides: Array<[string, ProbeSide, string]> = [
    ['nothing ({})', probe.baseline, ''],
    ...probe.probes.map((result): [string, ProbeSide, string] => [result.capability, result.declared, signed(result.tokenDelta)]),
  ];
  out.push(
    renderTable(
      [{ header: 'declared' }, { header: 'status' }, { header: 'tools', align: 'right' }, { header: 'tokens', align: 'right' }, { header: 'change', align: 'right' }],
      sides.map(([label, side, change]) => [label, side.status, formatCount(side.toolCount), formatCount(side.totalTokens), change]),
    ),
  );
  for (const [label, side] of sides) {
    if (side.status !== 'measured' && side.status !== 'dynamic') out.push(`${label}: ${side.note}\n`);
  }
  for (const result of probe.probes) {
    if (result.statusChanged) out.push(`${result.capability}: the status changed from ${probe.baseline.status} to ${result.declared.status}\n`);
  }
  const rows = probe.probes.flatMap((result) =>
    result.tools.map((tool) => [result.capability, tool.name, tool.change === 'tokens' ? 'tokens changed' : tool.change, formatCount(tool.tokensWithout), formatCount(tool.tokensWith)]),
  );
  if (rows.length === 0) {
    out.push('\nno tool was added, removed or changed in tokens by any declaration\n');
  } else {
    out.push(
      `\n${renderTable(
        [{ header: 'declared' }, { header: 'tool' }, { header: 'change' }, { header: 'tokens without', align: 'right' }, { header: 'tokens with', align: 'right' }],
        rows,
      )}`,
    );
  }
  return out.join('');
}

function signed(delta: number | null): string {
  if (delta === null) return '-';
  return delta > 0 ? `+${formatCount(delta)}` : formatCount(delta);
}
