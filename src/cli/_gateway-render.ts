import type { EffectiveRules, GatewayReport, NamePatterns, PinListing, ToolRules } from '../gateway/index.js';
import type { GatewayCheck } from '../gateway/check/index.js';
import { MAX_TOOL_NAME_CHARS } from '../gateway/config/index.js';
import { printableText } from '../text/index.js';
import { formatCount, formatShare, renderTable } from './_table.js';

/** `mcpctx gateway check`: the effective rules, then each upstream's tools with the rules that apply, then warnings (errors with --strict). */
export function renderGatewayCheck(check: GatewayCheck, strict: boolean): string {
  const lines: string[] = ['', check.connected ? 'upstream tools (started, listed and stopped):' : 'upstream tools: not checked (--offline)'];
  for (const upstream of check.upstreamChecks) {
    const name = printableText(upstream.name, 'note');
    if (upstream.status === 'disabled') lines.push(`  ${name}: disabled, not started`);
    else if (upstream.status === 'offline') continue;
    else if (upstream.status === 'failed') lines.push(`  ${name}: could not start or list its tools: ${printableText(upstream.error ?? '', 'note')}`);
    else {
      lines.push(`  ${name}: ${formatCount(upstream.tools.length)} tool${upstream.tools.length === 1 ? '' : 's'}`);
      for (const tool of upstream.tools) {
        const shown = tool.visibleName === tool.name ? '' : ` (as ${printableText(tool.visibleName, 'note')})`;
        const rules = tool.rules.length === 0 ? 'no rule' : tool.rules.map((rule) => printableText(rule, 'note')).join(', ');
        lines.push(`    ${printableText(tool.name, 'note')}${shown}: ${tool.allowed ? '' : 'denied; '}${rules}`);
      }
      const { leftOut, kept } = upstream.outputSchema;
      if (leftOut.length > 0) lines.push(`    outputSchema left out of the listing: ${leftOut.map((tool) => printableText(tool, 'note')).join(', ')}`);
      if (kept.length > 0) lines.push(`    outputSchema listed (reshaped results marked isError): ${kept.map((tool) => printableText(tool, 'note')).join(', ')}`);
    }
  }
  const unmatched = new Set(check.unmatchedRules);
  const unchecked = check.ruleMatches.filter((rule) => rule.status === 'unchecked');
  if (unchecked.length > 0) {
    lines.push('', 'rules not checked (an upstream they name did not list its tools):');
    for (const rule of unchecked) lines.push(`  ${printableText(`${rule.rule} ${JSON.stringify(rule.written)}`, 'note')}: ${rule.unchecked.join(', ')}`);
  }
  const warnings = strict ? check.warnings.filter((warning) => !unmatched.has(warning)) : check.warnings;
  if (strict && unmatched.size > 0) lines.push('', 'errors (--strict: a rule that matches no tool):', ...[...unmatched].map((error) => `  ${printableText(error, 'note')}`));
  return renderEffectiveRules({ ...check, warnings: [] }, lines, warnings);
}

/** The effective rules, defaults applied, names only for env and headers; `extra` lines come before the warnings. */
export function renderEffectiveRules(rules: EffectiveRules, extra: readonly string[] = [], warnings: readonly string[] = rules.warnings): string {
  const lines: string[] = [`config: ${rules.file ?? '(none)'} is valid`, '', 'upstreams:'];
  for (const upstream of rules.upstreams) {
    const target = upstream.kind === 'stdio' ? [upstream.command, ...(upstream.args ?? [])].join(' ') : upstream.url;
    lines.push(`  ${upstream.name} (${upstream.kind}): ${target}`);
    if (upstream.cwd) lines.push(`    cwd: ${upstream.cwd}`);
    if (upstream.envNames?.length) lines.push(`    env: ${upstream.envNames.join(', ')}`);
    if (upstream.headerNames?.length) lines.push(`    headers: ${upstream.headerNames.join(', ')}`);
    if (upstream.requiredEnv.length) lines.push(`    needs from the environment: ${upstream.requiredEnv.join(', ')}`);
    if (upstream.cannotServe !== undefined) lines.push(`    unavailable: ${printableText(upstream.cannotServe, 'note')}`);
  }
  if (rules.skipped.length > 0) lines.push(`  skipped (disabled): ${rules.skipped.join(', ')}`);
  lines.push(
    '',
    `tool names: ${rules.namespaced ? `SERVER${rules.separator}tool` : 'as the server names them'}`,
    `allow: ${patterns(rules.allow, 'every tool')}`,
    `deny: ${patterns(rules.deny, 'none')}`,
    `  rules name SERVER/tool, SERVER${rules.separator}tool or a bare tool (every upstream), by the tool's own name whatever the client is shown; allow and deny also match it folded (case, separators _ - . and spaces, look-alike letters ignored); a name over ${formatCount(MAX_TOOL_NAME_CHARS)} characters is never allowed`,
    `capTokens: ${formatCount(rules.capTokens)}${rules.claudeSafetyFactor === undefined ? '' : ` Claude tokens (o200k counts × claudeSafetyFactor ${rules.claudeSafetyFactor} meet it)`} (larger results are ${rules.offload ? 'offloaded behind read_result' : 'refused with a remedy'})`,
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
      const scope = tool.upstream === null ? `${tool.tool} of every upstream` : `${tool.upstream}/${tool.tool}`;
      lines.push(`  ${tool.name}${scope === tool.name ? '' : ` (${scope})`}: ${describeRules(tool.rules)}`);
    }
  }
  lines.push(
    '',
    rules.outputSchema.keptFor.length === 0
      ? 'outputSchema: left out of every listed tool (any result may be reshaped: over capTokens it is offloaded, rules project and page it, and a reshaped result has no structuredContent, which validating clients reject)'
      : `outputSchema: left out of every listed tool but ${rules.outputSchema.keptFor.join(', ')} (dropOutputSchema: false: their reshaped results go out marked isError)`,
    `HTTP sessions (--http): at most ${formatCount(rules.httpSessions.maxSessions)} open, ${formatCount(rules.httpSessions.maxSessionsPerClient)} per client off loopback; a session with no stream open and no request ends after ${formatCount(rules.httpSessions.sessionIdleMs / 1000)} s of silence, with its servers (--max-sessions, --max-sessions-per-client, --session-idle)`,
  );
  lines.push(...extra);
  if (warnings.length > 0) lines.push('', 'warnings:', ...warnings.map((warning) => `  ${printableText(warning, 'note')}`));
  if (rules.notes.length > 0) lines.push('', 'notes:', ...rules.notes.map((note) => `  ${printableText(note, 'note')}`));
  return `${lines.join('\n')}\n`;
}

function patterns(value: NamePatterns | null, none: string): string {
  if (value === null) return none;
  if (value.kind === 'names') return value.patterns.join(', ');
  return Object.entries(value.byServer)
    .map(([server, list]) => `${server}: ${list.join(', ')}`)
    .join('; ');
}

function describeRules(rules: ToolRules): string {
  const parts: string[] = [];
  if (rules.description !== undefined) parts.push(`description replaced (${rules.description.length} chars)`);
  if (rules.maxDescriptionTokens !== undefined) parts.push(`description <= ${formatCount(rules.maxDescriptionTokens)} tokens`);
  if (rules.dropOutputSchema === false) parts.push('outputSchema kept (reshaped results marked isError)');
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
