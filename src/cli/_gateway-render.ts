import type { EffectiveRules, GatewayReport, NamePatterns, PinListing, ToolRules } from '../gateway/index.js';
import { MAX_TOOL_NAME_CHARS } from '../gateway/config/index.js';
import { printableText } from '../text/index.js';
import { formatCount, formatShare, renderTable } from './_table.js';

/** `mcpctx gateway check`: the effective rules, defaults applied, names only for env and headers. */
export function renderEffectiveRules(rules: EffectiveRules): string {
  const lines: string[] = [`config: ${rules.file ?? '(none)'} is valid`, '', 'upstreams:'];
  for (const upstream of rules.upstreams) {
    const target = upstream.kind === 'stdio' ? [upstream.command, ...(upstream.args ?? [])].join(' ') : upstream.url;
    lines.push(`  ${upstream.name} (${upstream.kind}): ${target}`);
    if (upstream.cwd) lines.push(`    cwd: ${upstream.cwd}`);
    if (upstream.envNames?.length) lines.push(`    env: ${upstream.envNames.join(', ')}`);
    if (upstream.headerNames?.length) lines.push(`    headers: ${upstream.headerNames.join(', ')}`);
    if (upstream.requiredEnv.length) lines.push(`    needs from the environment: ${upstream.requiredEnv.join(', ')}`);
  }
  if (rules.skipped.length > 0) lines.push(`  skipped (disabled): ${rules.skipped.join(', ')}`);
  lines.push(
    '',
    `tool names: ${rules.namespaced ? `SERVER${rules.separator}tool` : 'as the server names them'}`,
    `allow: ${patterns(rules.allow, 'every tool')}`,
    `deny: ${patterns(rules.deny, 'none')}`,
    `  allow and deny match a name as written or folded (case, separators _ - . and spaces, look-alike letters ignored); a name over ${formatCount(MAX_TOOL_NAME_CHARS)} characters is never allowed`,
    `capTokens: ${formatCount(rules.capTokens)} (larger results are ${rules.offload ? 'offloaded behind read_result' : 'refused with a remedy'})`,
    `offload: ${rules.offload}`,
    `search: ${rules.search.enabled ? `on, top ${rules.search.topK}, pinned: ${rules.search.pinned.join(', ') || 'none'}` : 'off (the full catalog is listed)'}`,
    `scan: ${rules.scan === 'off' ? 'off' : rules.scan === 'warn' ? 'warn (findings logged and in list receipts)' : 'hold (a tool with a finding is held back)'}`,
    `confirmDestructive: ${rules.confirmDestructive ? 'on (calls to destructive tools wait for the user, when the client can ask)' : 'off'}`,
    `pin: ${rules.pin === null ? 'off (every tool trusted as listed)' : `${printableText(rules.pin.file, 'note')}, ${rules.pin.mode === 'tofu' ? 'trust on first use' : 'strict (nothing trusted until approved)'}`}`,
    '',
  );
  if (rules.tools.length === 0) lines.push('tools: no per-tool rules');
  else {
    lines.push('tools:');
    for (const tool of rules.tools) {
      lines.push(`  ${tool.name}${tool.upstream === null ? ' (names no configured upstream)' : ''}: ${describeRules(tool.rules)}`);
    }
  }
  if (rules.warnings.length > 0) lines.push('', 'warnings:', ...rules.warnings.map((warning) => `  ${printableText(warning, 'note')}`));
  return `${lines.join('\n')}\n`;
}

function patterns(value: NamePatterns | null, none: string): string {
  if (value === null) return none;
  if (value.kind === 'visible') return value.patterns.join(', ');
  return Object.entries(value.byServer)
    .map(([server, list]) => `${server}: ${list.join(', ')}`)
    .join('; ');
}

function describeRules(rules: ToolRules): string {
  const parts: string[] = [];
  if (rules.description !== undefined) parts.push(`description replaced (${rules.description.length} chars)`);
  if (rules.maxDescriptionTokens !== undefined) parts.push(`description <= ${formatCount(rules.maxDescriptionTokens)} tokens`);
  if (rules.dropOutputSchema) parts.push('no outputSchema');
  if (rules.drop?.length) parts.push(`drop ${rules.drop.join(', ')}`);
  if (rules.records !== undefined) parts.push(`records at ${rules.records}`);
  if (rules.project?.length) parts.push(`project ${rules.project.length} field(s)`);
  if (rules.format !== undefined) parts.push(`format ${rules.format}`);
  if (rules.pageTokens !== undefined) parts.push(`pages of ${formatCount(rules.pageTokens)} tokens`);
  if (rules.maxTokens !== undefined) parts.push(`max ${formatCount(rules.maxTokens)} tokens`);
  return parts.join('; ') || 'none';
}

/** `mcpctx gateway report`: calls and tokens in and out per tool and action. */
export function renderGatewayReport(report: GatewayReport): string {
  const table = renderTable(
    [
      { header: 'tool' },
      { header: 'upstream' },
      { header: 'action' },
      { header: 'calls', align: 'right' },
      { header: 'tokens in', align: 'right' },
      { header: 'tokens out', align: 'right' },
      { header: 'out/in', align: 'right' },
    ],
    report.rows.map((row) => [
      row.tool,
      row.upstream ?? '-',
      row.action,
      formatCount(row.calls),
      formatCount(row.upstreamTokens),
      formatCount(row.deliveredTokens),
      formatShare(row.deliveredTokens, row.upstreamTokens),
    ]),
  );
  const { totals } = report;
  const summary = [
    `${formatCount(totals.calls)} calls and ${formatCount(totals.lists)} tools/list: ${formatCount(totals.upstreamTokens)} tokens from upstreams, ${formatCount(totals.deliveredTokens)} delivered (${formatCount(totals.savedTokens)} saved)`,
  ];
  if (report.badLines > 0) summary.push(`${formatCount(report.badLines)} line(s) of ${report.file} were not receipts and were skipped`);
  return `${table}\n${summary.join('\n')}\n`;
}

/** Pins per upstream: counts, then each pending definition with its hash, its changes and the command that approves it. */
export function renderPins(listing: PinListing, invocation: string): string {
  const lines: string[] = [];
  const file = printableText(listing.file, 'note');
  if (!listing.exists) return `${file}: no pins yet (a gateway writes it at its first contact with each upstream)\n`;
  const short = (sha256: string): string => sha256.slice(0, 12);
  for (const change of listing.approved) lines.push(`approved ${printableText(`${change.upstream}/${change.name}`, 'note')} sha256 ${short(change.sha256)} (${formatCount(change.tokens)} tokens)`);
  for (const change of listing.rejected) lines.push(`rejected ${printableText(`${change.upstream}/${change.name}`, 'note')} sha256 ${short(change.sha256)}`);
  for (const refusal of listing.refused) lines.push(`refused ${printableText(`${refusal.upstream}/${refusal.name}`, 'note')}: ${printableText(refusal.reason, 'note')}`);
  if (listing.refused.length > 0) lines.push('nothing was changed');
  for (const upstream of listing.upstreams) {
    const name = printableText(upstream.name, 'note');
    lines.push(`${name}: ${formatCount(upstream.pinned.length)} pinned, ${formatCount(upstream.pending.length)} pending, ${formatCount(upstream.rejected.length)} rejected`);
    for (const pending of upstream.pending) {
      const tool = printableText(pending.tool, 'note');
      const tokens =
        pending.tokensBefore === null
          ? formatCount(pending.tokensAfter)
          : `${formatCount(pending.tokensBefore)} -> ${formatCount(pending.tokensAfter)} (${pending.tokensAfter >= pending.tokensBefore ? '+' : ''}${formatCount(pending.tokensAfter - pending.tokensBefore)})`;
      lines.push(`  ${tool}: ${pending.kind}, sha256 ${short(pending.sha256)}, tokens ${tokens}, first seen ${printableText(pending.firstSeenAt, 'note')}`);
      for (const finding of pending.findings) {
        lines.push(`    scan ${finding.ruleId} at ${printableText(finding.path, 'note')}: ${printableText(finding.reason, 'note')}: ${printableText(finding.excerpt, 'note')}`);
      }
      for (const change of pending.changes) {
        lines.push(`    ${printableText(change.path, 'note')}: ${printableText(change.before ?? '(absent)', 'note')} -> ${printableText(change.after ?? '(absent)', 'note')}`);
      }
      lines.push(`    approve: ${invocation} gateway pins ${file} --approve ${printableText(`${upstream.name}/${pending.tool}@${short(pending.sha256)}`, 'note')}`);
    }
    if (upstream.rejected.length > 0) lines.push(`  rejected (held): ${upstream.rejected.map((tool) => printableText(tool, 'note')).join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}
