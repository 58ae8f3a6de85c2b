// Text of `gateway wrap`, `gateway unwrap`, and the audit's proposed-gateway and wrapped lines.
// Only names, paths, numbers and redacted diffs.
import type { ProposedGateway, SessionWrapped } from '../audit/index.js';
import type { UnwrapResult, WrapPlan } from '../wrap/index.js';
import { formatCount as n, formatTotal } from './_table.js';

/** One line: what `gateway wrap` would write for a session's servers. */
export function renderProposedGateway(proposal: ProposedGateway): string {
  const parts = [`search ${proposal.search.enabled ? 'on' : 'off'} (${proposal.search.why})`, `capTokens ${n(proposal.capTokens)}`];
  if (proposal.deny.length > 0) parts.push(`deny ${proposal.deny.join(', ')}`);
  if (proposal.allow !== undefined) parts.push(`allow ${proposal.allow.join(', ')}`);
  return `gateway wrap would write: ${parts.join('; ')}`;
}

/** The before and after of a wrapped session in one sentence, for the sessions part of the audit. */
export function wrappedLine(label: string, wrapped: SessionWrapped): string {
  const after = wrapped.after.complete ? `${n(wrapped.after.tokens)} through the gateway` : 'the gateway not measured';
  return `${label}: wrapped by mcpctx gateway: ${wrapped.fronted.join(', ')} cost ${formatTotal(wrapped.before)} tokens per request before, ${after}`;
}

/** Before and after of a wrapped session, with where its files are. */
export function renderWrapped(wrapped: SessionWrapped): string {
  const lines = [
    `wrapped: ${wrapped.fronted.join(', ')} behind ${wrapped.gatewayEntry} (${wrapped.gatewayConfig})`,
    `  tokens per request: before ${formatTotal(wrapped.before)}, through the gateway ${wrapped.after.complete ? n(wrapped.after.tokens) : 'not measured'}`,
    `  backup ${wrapped.backup}; manifest ${wrapped.manifest}`,
  ];
  if (wrapped.problem !== undefined) lines.push(`  ${wrapped.problem}`);
  return `${lines.join('\n')}\n`;
}

export function renderWrapPlan(plan: WrapPlan, applied: boolean, undo: string): string {
  const lines: string[] = [];
  lines.push(`${applied ? 'wrapped' : 'would wrap (dry run, nothing written)'}: ${plan.client} ${plan.scope} ${plan.path}`);
  const fronted = plan.fronted.map((server) => (server.tokens === undefined ? server.name : `${server.name} (${n(server.tokens)} tokens)`));
  lines.push(`fronted: ${fronted.join(', ')}`);
  if (plan.rules.frontedTokens !== null) lines.push(`fronted total: ${formatTotal(plan.rules.frontedTokens)} tokens per request before`);
  for (const item of plan.notFronted) lines.push(`left in the file: ${item.name}: ${item.why}`);
  lines.push(`search: ${plan.rules.search.enabled ? 'on' : 'off'} (${plan.rules.search.why})`);
  lines.push(`capTokens: ${n(plan.rules.capTokens)}`);
  if (plan.rules.deny.length > 0) lines.push(`deny: ${plan.rules.deny.join(', ')}`);
  if (plan.rules.allow !== undefined) lines.push(`allow: ${plan.rules.allow.join(', ')}`);
  lines.push(`gateway config: ${plan.gatewayConfigPath} (0600: it holds env values)`);
  lines.push(`backup: ${plan.backupPath}`);
  lines.push(`manifest: ${plan.manifestPath}`);
  if (!applied) {
    lines.push('', plan.clientDiff.trimEnd(), '', plan.gatewayDiff.trimEnd());
  } else {
    lines.push(`undo: ${undo}`);
  }
  return `${lines.join('\n')}\n`;
}

export function renderUnwrap(result: UnwrapResult): string {
  const how = result.restored ? 'restored byte for byte' : 'merged: the gateway entry taken out, the fronted entries put back from the backup, the rest as it is now';
  return `unwrapped: ${result.client} ${result.scope} ${result.path} ${how}\nremoved: ${result.removed.join(', ')}\n`;
}

/** A plan as JSON: everything but the texts that hold env values. */
export function wrapPlanJson(plan: WrapPlan, applied: boolean): Record<string, unknown> {
  const { originalBytes: _bytes, wrappedText: _wrapped, gatewayText: _gateway, ...shown } = plan;
  return { applied, ...shown };
}
