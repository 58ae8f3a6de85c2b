// The people's view of an audit report: tables per place, entry, config and session, then the
// posture and vendor records in words. Everything printed comes from the report, which holds no
// env or header value; cells go through renderTable, which strips control characters.
import type { AuditEntry, AuditReport, AuditSession, PlaceState, Totals } from '../audit/index.js';
import { plural } from '../text/index.js';
import { formatCount, renderTable } from './_table.js';

function stateText(state: PlaceState): string {
  if (state.state !== 'unreadable') return state.state;
  const where = state.line === undefined ? '' : ` at line ${state.line}, column ${state.column ?? '?'}`;
  return `unreadable${where}: ${state.why}`;
}

function totalText(totals: Totals): string {
  return `${totals.complete ? '' : '>= '}${formatCount(totals.tokens)}`;
}

function entryStatus(entry: AuditEntry): string {
  if (entry.measurement !== undefined) return entry.measurement.status;
  const why = entry.unmeasured;
  if (why === undefined) return '-';
  return why.reason === 'not-measured' ? 'not measured' : why.reason;
}

function entryNote(entry: AuditEntry): string {
  const notes: string[] = [];
  if (entry.alwaysLoad) notes.push('alwaysLoad');
  if (entry.unmeasured !== undefined && 'detail' in entry.unmeasured) notes.push(entry.unmeasured.detail);
  else if (entry.problem !== undefined) notes.push(entry.problem);
  if (entry.measurement !== undefined && entry.measurement.status !== 'measured') notes.push(entry.measurement.note);
  for (const expansion of entry.expansions) notes.push(`${expansion.where}: \${${expansion.variables.join('}, ${')}} set, not evaluated`);
  if (entry.envNames.length > 0) notes.push(`env ${entry.envNames.join(', ')}`);
  if (entry.headerNames.length > 0) notes.push(`headers ${entry.headerNames.join(', ')} (not sent)`);
  const note = notes.join('; ');
  return note.length > 160 ? `${note.slice(0, 157)}...` : note;
}

function sessionLines(session: AuditSession): string[] {
  const lines = [`${session.client}: ${session.paths.join(' + ')}`];
  if (session.refused !== undefined) return [...lines, `  refused: ${session.refused}`];
  lines.push(`  every request carries ${totalText(session.totals)} tokens of tool definitions (${plural(session.loaded.length, 'server')} loaded${session.managedExclusive ? ', managed-mcp.json alone' : ''})`);
  for (const item of session.totals.uncounted) lines.push(`  not counted: ${item.name} (${item.why})`);
  for (const item of session.shadowed) lines.push(`  ${item.name} in ${item.path} does not load: the same name in ${item.by} wins`);
  for (const item of session.denied) lines.push(`  ${item.name} denied by ${item.rule} in ${item.source}`);
  for (const item of session.denyUnevaluable) lines.push(`  deny rule ${item.rule} in ${item.source} cannot be evaluated against ${item.name}: left in`);
  for (const item of session.allow ?? []) if (item.verdict !== 'allowed') lines.push(`  allowlist: ${item.name} ${item.verdict} (reported, not subtracted)`);
  if (session.deferral !== undefined) {
    const { posture, atSessionStart, threshold } = session.deferral;
    const evidence = posture.evidence.map((item) => `${item.variable}${item.value === undefined ? '' : `=${item.value}`} from ${item.source}`).join(', ');
    lines.push(`  deferral: ${posture.posture === 'refused' ? `no answer (${posture.refusal})` : posture.posture}: ${posture.reason}${evidence === '' ? '' : ` [${evidence}]`}`);
    if (threshold !== undefined) {
      lines.push(
        `  threshold: ${threshold.percent}% of a ${formatCount(threshold.contextWindow)}-token window = ${formatCount(threshold.thresholdTokens)}; the definitions it would defer${session.totals.alwaysLoadTokens > 0 ? ` (all but ${formatCount(session.totals.alwaysLoadTokens)} pinned with alwaysLoad)` : ''} are ${formatCount(threshold.lowTokens)}-${formatCount(threshold.highTokens)} in Claude's units: ${threshold.verdict}`,
      );
      const { exact, band, stale } = threshold.conversion;
      const exactNames = exact.length > 0 ? ` (${exact.map((item) => `${item.name} ${formatCount(item.claudeTokens)} from ${item.from}`).join(', ')})` : '';
      lines.push(`  converted to Claude's units: ${plural(exact.length, 'server')} by exact Claude count${exactNames}, ${plural(band.length, 'server')} through the divergence band`);
      for (const item of stale) lines.push(`  stale Claude count: ${item.name}: ${item.why}`);
    }
    if (atSessionStart.loads === 'everything') lines.push(`  at session start: everything, ${atSessionStart.complete ? '' : '>= '}${formatCount(atSessionStart.tokens)} tokens`);
    else if (atSessionStart.loads === 'pinned-only') lines.push(`  at session start: names only, plus ${formatCount(atSessionStart.tokens)} tokens pinned with alwaysLoad${atSessionStart.pinned.length > 0 ? ` (${atSessionStart.pinned.join(', ')})` : ''}`);
    else lines.push(`  at session start: cannot be said`);
    for (const condition of session.deferral.conditions) lines.push(`  check: ${condition}`);
  }
  if (session.vendor !== undefined) {
    if ('record' in session.vendor) {
      const { record } = session.vendor;
      lines.push(`  vendor record (not measured here): ${record.states}`);
      for (const condition of record.conditions) lines.push(`    but: ${condition}`);
      for (const source of record.sources) lines.push(`    source: ${source.title}, ${source.address}, dated ${source.dated}, read ${source.read}`);
    } else if ('none' in session.vendor) {
      lines.push(`  no deferral on record for ${session.client} (searched: ${session.vendor.none.searched}): every request carries the whole total, and so does the context`);
    } else lines.push(`  ${session.vendor.unknown}`);
  }
  return lines;
}

export function renderAudit(report: AuditReport): string {
  const out: string[] = [];
  out.push(`Places consulted (${report.roots.platform}, home ${report.roots.home}, cwd ${report.roots.cwd})\n`);
  out.push(renderTable([{ header: 'client' }, { header: 'scope' }, { header: 'servers', align: 'right' }, { header: 'path' }, { header: 'state' }], report.places.map((place) => [place.client, place.scope, String(place.entries), place.path, stateText(place.state)])));
  if (report.settings.length > 0) {
    out.push('\nClaude Code settings files (variables by name only)\n');
    out.push(renderTable([{ header: 'tier' }, { header: 'path' }, { header: 'state' }, { header: 'sets' }], report.settings.map((file) => [file.tier, file.path, stateText(file.state), file.sets.join(', ')])));
  }
  if (report.entries.length > 0) {
    out.push(`\nServers${report.measured ? '' : ' (not measured: --no-measure)'}\n`);
    out.push(
      renderTable(
        [{ header: 'name' }, { header: 'client' }, { header: 'scope' }, { header: 'status' }, { header: 'tools', align: 'right' }, { header: 'tokens', align: 'right' }, { header: 'notes' }],
        report.entries.map((entry) => [entry.name, entry.client, entry.scope, entry.disabled ? 'disabled' : entryStatus(entry), formatCount(entry.measurement?.toolCount), formatCount(entry.measurement?.totalTokens), entryNote(entry)]),
      ),
    );
  }
  if (report.configs.length > 0) {
    out.push('\nPer config file (never merged across clients; >= is a floor)\n');
    out.push(renderTable([{ header: 'client' }, { header: 'scope' }, { header: 'tokens', align: 'right' }, { header: 'path' }], report.configs.map((config) => [config.client, config.scope, totalText(config.totals), config.path])));
  }
  out.push('\nSessions\n');
  if (report.sessions.length === 0) out.push('no client config found\n');
  for (const session of report.sessions) out.push(`${sessionLines(session).join('\n')}\n`);
  if (report.budget !== undefined) {
    const { costliest, limit, over } = report.budget;
    out.push(`\nbudget ${formatCount(limit)}: ${costliest === null ? 'no session to compare' : `costliest session ${costliest.client} carries ${costliest.complete ? '' : '>= '}${formatCount(costliest.tokens)} tokens: ${over ? 'OVER' : 'within'}`}\n`);
  }
  if (report.changed !== undefined) {
    out.push('\nChanged since published (joined by canonical hash, never by name)\n');
    if ('problem' in report.changed) out.push(`cannot compare: ${report.changed.problem}\n`);
    else {
      out.push(
        renderTable(
          [{ header: 'server' }, { header: 'state' }, { header: 'tokens', align: 'right' }, { header: 'to current', align: 'right' }, { header: 'dates' }],
          report.changed.rows.map((row) => {
            const label = row.publishedAs === undefined ? row.name : `${row.name} (published as ${row.publishedAs})`;
            const { change } = row;
            if (change.state === 'behind') {
              const delta = change.tokensToCurrent === null ? 'unknown' : `${change.tokensToCurrent >= 0 ? '+' : ''}${formatCount(change.tokensToCurrent)}`;
              return [label, 'behind', formatCount(row.tokens), delta, `installed seen ${change.installedSeen.first}..${change.installedSeen.last}, current seen ${change.currentSeen}`];
            }
            if (change.state === 'current') return [label, 'current', formatCount(row.tokens), '0', `seen ${change.seen.first}..${change.seen.last}`];
            return [label, 'unidentified', formatCount(row.tokens), '-', 'never published, or published before the index began'];
          }),
        ),
      );
    }
  }
  if (report.suggest !== undefined) {
    out.push('\nDescriptions at or above the 90th percentile of the measured set (schemas never)\n');
    if ('problem' in report.suggest) out.push(`no baseline: ${report.suggest.problem}\n`);
    else if (report.suggest.suggestions.length === 0) out.push(`nothing measurably unusual: no description of ${report.suggest.toolsChecked} tools is at or above p90 (${report.suggest.baseline.p90} tokens)\n`);
    else {
      out.push(
        renderTable(
          [{ header: 'server' }, { header: 'tool' }, { header: 'description', align: 'right' }, { header: 'percentile', align: 'right' }, { header: '~ over median', align: 'right' }],
          report.suggest.suggestions.map((item) => [item.server, item.tool, formatCount(item.descriptionTokens), `p${item.percentile}`, `~${formatCount(item.approxRecovery)}`]),
        ),
      );
    }
  }
  return out.join('');
}
