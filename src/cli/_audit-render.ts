// The people's view of an audit report. It leads with the answer and fits 100 columns: the
// sessions (what every request carries, its share of the stated window, deferred or not), the
// servers each once by cost, the budget verdict, the comparisons asked for, and a bounded list of
// problems. Everything else (places, settings files, per-file totals, composition, posture
// evidence, vendor sources, conditions to check) is printed only with --verbose. One function per
// section, so a field other helpers add is one more function. Everything printed comes from the
// report, which holds no env or header value; table cells go through renderTable, which strips
// control characters.
import { basename } from 'node:path';
import type { AuditEntry, AuditReport, AuditServer, AuditSession, PlaceState, RecordSource, SessionBudget, StartLoad } from '../audit/index.js';
import { plural, printableText } from '../text/index.js';
import { ellipsize, formatCount, formatShare, formatTotal, renderTable } from './_table.js';
import { renderProposedGateway, renderWrapped, wrappedLine } from './_wrap-render.js';

export interface AuditRenderOptions {
  /** Print the details behind the answer too. */
  verbose?: boolean;
}

/** The default report's width: every line of it fits. */
export const AUDIT_WIDTH = 100;
/** Problems listed before "and N more". */
const MAX_NOTES = 12;

/** Words wrapped to `width`, continuation lines indented by `indent` spaces; a word longer than a line is cut. */
function wrap(text: string, width = AUDIT_WIDTH, indent = 2): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((part) => part !== '')) {
    const room = width - (lines.length === 0 ? 0 : indent);
    const next = line === '' ? word : `${line} ${word}`;
    if (next.length <= room) {
      line = next;
      continue;
    }
    if (line !== '') lines.push(line);
    line = ellipsize(word, width - indent);
  }
  if (line !== '') lines.push(line);
  return lines.map((item, index) => (index === 0 ? item : `${' '.repeat(indent)}${item}`));
}

function stateText(state: PlaceState): string {
  if (state.state !== 'unreadable') return state.state;
  const where = state.line === undefined ? '' : ` at line ${state.line}, column ${state.column ?? '?'}`;
  return `unreadable${where}: ${state.why}`;
}

function sessionLabel(session: { client: string; paths: readonly string[] }): string {
  return session.client === 'custom' ? `given ${session.paths.map((path) => basename(path)).join(', ')}` : session.client;
}

/** Deferred or not, in a few words. */
function deferralWords(session: AuditSession): string {
  if (session.refused !== undefined) return 'composition refused';
  const deferral = session.deferral;
  if (deferral !== undefined) {
    const { posture, threshold } = deferral;
    if (posture.posture === 'refused') return `no answer (${posture.refusal})`;
    if (threshold !== undefined) return `${threshold.verdict === 'above' ? 'deferred' : 'up-front'} (auto${threshold.percent === 10 ? '' : `:${threshold.percent}`}, ${threshold.verdict})`;
    return posture.posture === 'deferred' ? 'deferred (any size)' : 'up-front';
  }
  if (session.vendor === undefined) return '-';
  if ('record' in session.vendor) return 'vendor: deferred (record)';
  if ('none' in session.vendor) return 'up-front (no record)';
  return 'unknown client';
}

function startLoadText(load: StartLoad): string {
  if (load.complete) return formatCount(load.tokens);
  return `>= ${formatCount(load.tokens)} (no count for ${load.missing.join(', ')})`;
}

/** What a Claude Code session loads at start, when it is not the request's total. */
function sessionStartLine(session: AuditSession): string | undefined {
  const start = session.deferral?.atSessionStart;
  if (start === undefined || session.refused !== undefined) return undefined;
  const label = sessionLabel(session);
  if (start.loads === 'everything') return `${label} at session start: everything, ${formatTotal(start)} tokens`;
  if (start.loads === 'unknown') {
    // A refusal decided after the posture was read (a floor, a straddle) is the reason, not the posture's own words.
    const posture = session.deferral?.posture;
    return `${label} at session start: cannot be said (${posture?.posture === 'refused' ? posture.reason : start.why})`;
  }
  if (start.namesAndInstructions.missing.length === session.loaded.length && session.loaded.length > 0) {
    return `${label} at session start: cannot be said (no count of names and instructions for ${start.namesAndInstructions.missing.join(', ')}), plus ${formatCount(start.tokens)} pinned with alwaysLoad`;
  }
  const pinned = start.pinned.length > 0 ? ` (${start.pinned.join(', ')})` : '';
  return `${label} at session start: names and instructions ${startLoadText(start.namesAndInstructions)} tokens, plus ${formatCount(start.tokens)} pinned with alwaysLoad${pinned}`;
}

function sessionsSection(report: AuditReport): string[] {
  const header = `Sessions: tokens every request carries, share of a ${formatCount(report.contextWindow)}-token context window${report.measured ? '' : ' (--no-measure)'}`;
  if (report.sessions.length === 0) return [header, 'no client config found'];
  const table = renderTable(
    [{ header: 'client', max: 28 }, { header: 'servers', align: 'right' }, { header: 'tokens/request', align: 'right' }, { header: 'window', align: 'right' }, { header: 'deferral', max: 34 }],
    report.sessions.map((session) => [
      sessionLabel(session),
      String(session.loaded.length),
      session.refused !== undefined ? 'refused' : report.measured ? formatTotal(session.totals) : 'not measured',
      session.refused === undefined && report.measured ? `${session.totals.complete ? '' : '>= '}${formatShare(session.totals.tokens, report.contextWindow)}` : '-',
      deferralWords(session),
    ]),
  );
  const starts = report.sessions.flatMap((session) => sessionStartLine(session) ?? []).flatMap((line) => wrap(line));
  const adjustments = report.sessions.flatMap((session) => sessionAdjustments(session, report.entries)).flatMap((line) => wrap(line));
  const wrapped = report.sessions.flatMap((session) => (session.wrapped === undefined ? [] : wrap(wrappedLine(sessionLabel(session), session.wrapped))));
  return [header, ...table.trimEnd().split('\n'), ...starts, ...adjustments, ...wrapped];
}

/**
 * What a session counts differently from the servers table: entries awaiting the client's approval
 * (measured, not counted) and catalogs the client filters (only the kept tools counted).
 */
function sessionAdjustments(session: AuditSession, entries: readonly AuditEntry[]): string[] {
  const label = sessionLabel(session);
  const lines: string[] = [];
  if (session.pending.length > 0) {
    lines.push(`${label}: ${session.pending.map((item) => item.name).join(', ')} not counted: awaiting approval (${session.pending[0]?.why ?? ''})`);
  }
  const loaded = new Set(session.loaded);
  for (const entry of entries) {
    if (entry.toolFilter === undefined || !loaded.has(entry.name) || !session.paths.includes(entry.path)) continue;
    lines.push(`${label}: ${entry.name} counts ${entry.toolFilter.note}, ${formatCount(entry.toolFilter.tokens)} tokens`);
  }
  return lines;
}

/** "claude-code user, cursor user +3": the first two places, and how many more. */
function whereText(server: AuditServer): string {
  const places = [...new Set(server.where.map((place) => (place.client === 'custom' ? `given ${basename(place.path)}` : `${place.client} ${place.scope}`)))];
  const shown = places.slice(0, 2).join(', ');
  return places.length > 2 ? `${shown} +${places.length - 2}` : shown;
}

function serversSection(report: AuditReport): string[] {
  if (report.servers.length === 0) return [];
  const total = report.serverTotal;
  const table = renderTable(
    [{ header: 'server', max: 24 }, { header: 'where', max: 34 }, { header: 'tools', align: 'right' }, { header: 'tokens', align: 'right' }, { header: 'status', max: 22 }],
    report.servers.map((server) => [server.names.length > 1 ? `${server.name} +${server.names.length - 1}` : server.name, whereText(server), formatCount(server.toolCount), formatCount(server.totalTokens), server.status]),
    [[`total, each once`, plural(total.counted, 'server'), '', formatCount(total.tokens), total.uncounted > 0 ? `+${total.uncounted} without a number` : '']],
  );
  return [
    'Servers by cost, each once (the same launch in several configs is one row)',
    ...table.trimEnd().split('\n'),
    ...wrap('The total counts each measured server once: what this machine has configured, not what any one session carries.'),
  ];
}

function budgetRow(row: SessionBudget): string[] {
  return wrap(`${sessionLabel(row)}: ${row.verdict === 'over' ? 'OVER' : row.verdict}: ${row.reason}`, AUDIT_WIDTH - 2, 2).map((line) => `  ${line}`);
}

function budgetSection(report: AuditReport): string[] {
  const budget = report.budget;
  if (budget === undefined) return [];
  const verdict = budget.verdict === 'over' ? 'OVER' : budget.verdict === 'within' ? 'within' : 'FAILED (unknown)';
  const lines = [`Budget ${formatCount(budget.limit)} tokens per request, every session${budget.floorOk ? ', floors accepted' : ''}: ${verdict}`];
  if (budget.reason !== undefined) lines.push(`  ${budget.reason}`);
  for (const row of budget.sessions) lines.push(...budgetRow(row));
  return lines;
}

function changedSection(report: AuditReport): string[] {
  if (report.changed === undefined) return [];
  const lines = ['Changed since published (joined by canonical hash, never by name)'];
  if ('problem' in report.changed) return [...lines, ...wrap(`cannot compare: ${report.changed.problem}`)];
  const table = renderTable(
    [{ header: 'server', max: 44 }, { header: 'state' }, { header: 'tokens', align: 'right' }, { header: 'to current', align: 'right' }, { header: 'published', max: 18 }],
    report.changed.rows.map((row) => {
      const label = row.publishedAs === undefined ? row.name : `${row.name} (published as ${row.publishedAs})`;
      const { change } = row;
      if (change.state === 'behind') {
        const delta = change.tokensToCurrent === null ? 'unknown' : `${change.tokensToCurrent >= 0 ? '+' : ''}${formatCount(change.tokensToCurrent)}`;
        return [label, 'behind', formatCount(row.tokens), delta, `current ${change.currentSeen}`];
      }
      if (change.state === 'current') return [label, 'current', formatCount(row.tokens), '0', `since ${change.seen.first}`];
      return [label, 'unidentified', formatCount(row.tokens), '-', 'not in the index'];
    }),
  );
  return [...lines, ...table.trimEnd().split('\n')];
}

function suggestSection(report: AuditReport): string[] {
  if (report.suggest === undefined) return [];
  const lines = ['Descriptions at or above the 90th percentile of the measured set (schemas never)'];
  if ('problem' in report.suggest) return [...lines, ...wrap(`no baseline: ${report.suggest.problem}`)];
  if (report.suggest.suggestions.length === 0) {
    return [...lines, ...wrap(`nothing measurably unusual: no description of ${report.suggest.toolsChecked} tools is at or above p90 (${report.suggest.baseline.p90} tokens)`)];
  }
  const table = renderTable(
    [{ header: 'server', max: 24 }, { header: 'tool', max: 30 }, { header: 'description', align: 'right' }, { header: 'percentile', align: 'right' }, { header: '~ over median', align: 'right' }],
    report.suggest.suggestions.map((item) => [item.server, item.tool, formatCount(item.descriptionTokens), `p${item.percentile}`, `~${formatCount(item.approxRecovery)}`]),
  );
  return [...lines, ...table.trimEnd().split('\n')];
}

/** One line per problem: what could not be read, measured or answered. */
function problems(report: AuditReport): string[] {
  const out: string[] = [];
  for (const place of report.places) {
    if (place.state.state === 'unreadable') out.push(`${place.client} ${place.scope}: ${place.path} ${stateText(place.state)}`);
    else if (place.state.state === 'absent' && place.scope === 'given') out.push(`${place.path}: no such file (given with --config)`);
  }
  for (const file of report.settings) if (file.state.state === 'unreadable') out.push(`Claude Code settings ${file.path} ${stateText(file.state)}`);
  out.push(...(report.wrapProblems ?? []));
  for (const server of report.servers) {
    if (server.totalTokens !== null || ['disabled', 'builtin', 'not-measured'].includes(server.status)) continue;
    out.push(`${server.name}: ${server.status}${server.note === undefined ? '' : `: ${server.note}`}`);
  }
  for (const session of report.sessions) {
    if (session.refused !== undefined) out.push(`${sessionLabel(session)}: ${session.refused}`);
    const posture = session.deferral?.posture;
    if (posture?.posture === 'refused' && session.refused === undefined) out.push(`${sessionLabel(session)} deferral, no answer (${posture.refusal}): ${posture.reason}`);
  }
  return out;
}

function notesSection(report: AuditReport, verbose: boolean): string[] {
  const all = problems(report);
  if (all.length === 0) return [];
  const shown = verbose ? all : all.slice(0, MAX_NOTES);
  const lines = ['Problems', ...shown.map((line) => (verbose ? line : ellipsize(line, AUDIT_WIDTH)))];
  if (shown.length < all.length) lines.push(`… and ${all.length - shown.length} more (--verbose lists them all)`);
  return lines;
}

// ---------------------------------------------------------------------------------------------
// --verbose: the details behind the answer
// ---------------------------------------------------------------------------------------------

function placesSection(report: AuditReport): string[] {
  const table = renderTable([{ header: 'client' }, { header: 'scope' }, { header: 'servers', align: 'right' }, { header: 'path' }, { header: 'state' }], report.places.map((place) => [place.client, place.scope, String(place.entries), place.path, stateText(place.state)]));
  const lines = [`Places consulted (${report.roots.platform}, home ${report.roots.home}, cwd ${report.roots.cwd})`, ...table.trimEnd().split('\n')];
  if (report.settings.length > 0) {
    const settings = renderTable([{ header: 'tier' }, { header: 'path' }, { header: 'state' }, { header: 'sets' }], report.settings.map((file) => [file.tier, file.path, stateText(file.state), file.sets.join(', ')]));
    lines.push('', 'Claude Code settings files (variables by name only)', ...settings.trimEnd().split('\n'));
  }
  return lines;
}

function entryStatus(entry: AuditEntry): string {
  if (entry.disabled) return 'disabled';
  if (entry.measurement !== undefined) return entry.measurement.status;
  const why = entry.unmeasured;
  if (why === undefined) return '-';
  return why.reason === 'not-measured' ? 'not measured' : why.reason;
}

function entryNote(entry: AuditEntry): string {
  const notes: string[] = [];
  if (entry.alwaysLoad) notes.push('alwaysLoad');
  if (entry.disabledBy !== undefined) notes.push(`off by ${entry.disabledBy}`);
  if (entry.pendingApproval !== undefined) notes.push(`pending: ${entry.pendingApproval}`);
  if (entry.toolFilter !== undefined) notes.push(`${entry.toolFilter.note}: ${formatCount(entry.toolFilter.tokens)} tokens counted`);
  notes.push(...(entry.notes ?? []));
  if (entry.unmeasured !== undefined && 'detail' in entry.unmeasured) notes.push(entry.unmeasured.detail);
  else if (entry.problem !== undefined) notes.push(entry.problem);
  if (entry.measurement !== undefined && entry.measurement.status !== 'measured') notes.push(entry.measurement.note);
  for (const expansion of entry.expansions) notes.push(`${expansion.where}: \${${expansion.variables.join('}, ${')}} set, not evaluated`);
  if (entry.envNames.length > 0) notes.push(`env ${entry.envNames.join(', ')}`);
  if (entry.headerNames.length > 0) notes.push(`headers ${entry.headerNames.join(', ')} (not sent)`);
  return ellipsize(notes.join('; '), 160);
}

function entriesSection(report: AuditReport): string[] {
  if (report.entries.length === 0) return [];
  const table = renderTable(
    [{ header: 'name' }, { header: 'client' }, { header: 'scope' }, { header: 'status' }, { header: 'tools', align: 'right' }, { header: 'tokens', align: 'right' }, { header: 'notes' }],
    report.entries.map((entry) => [entry.name, entry.client, entry.scope, entryStatus(entry), formatCount(entry.measurement?.toolCount), formatCount(entry.measurement?.totalTokens), entryNote(entry)]),
  );
  return ['Entries, as configured (one row per place)', ...table.trimEnd().split('\n')];
}

function configsSection(report: AuditReport): string[] {
  if (report.configs.length === 0) return [];
  const table = renderTable([{ header: 'client' }, { header: 'scope' }, { header: 'tokens', align: 'right' }, { header: 'path' }], report.configs.map((config) => [config.client, config.scope, formatTotal(config.totals), config.path]));
  return ['Per config file (never merged across clients; >= is a floor)', ...table.trimEnd().split('\n')];
}

function sourceText(source: RecordSource): string {
  return `${source.title}, ${source.address}, ${source.dated === 'undated' ? 'undated' : `dated ${source.dated}`}, read ${source.read}`;
}

function deferralDetail(session: AuditSession): string[] {
  if (session.deferral === undefined) return [];
  const lines: string[] = [];
  const { posture, threshold } = session.deferral;
  const evidence = posture.evidence.map((item) => `${item.variable}${item.value === undefined ? '' : `=${item.value}`} from ${item.source}`).join(', ');
  lines.push(`  deferral: ${posture.posture === 'refused' ? `no answer (${posture.refusal})` : posture.posture}: ${posture.reason}${evidence === '' ? '' : ` [${evidence}]`}`);
  for (const source of session.deferral.sources) lines.push(`    rules from: ${sourceText(source)}`);
  if (threshold !== undefined) {
    lines.push(
      `  threshold: ${threshold.percent}% of a ${formatCount(threshold.contextWindow)}-token window = ${formatCount(threshold.thresholdTokens)}; the definitions it would defer${session.totals.alwaysLoadTokens > 0 ? ` (all but ${formatCount(session.totals.alwaysLoadTokens)} pinned with alwaysLoad)` : ''} are ${formatCount(threshold.lowTokens)}-${formatCount(threshold.highTokens)} in Claude's units: ${threshold.verdict}`,
    );
    const { exact, band, stale } = threshold.conversion;
    const exactNames = exact.length > 0 ? ` (${exact.map((item) => `${item.name} ${formatCount(item.claudeTokens)} from ${item.from}`).join(', ')})` : '';
    lines.push(`  converted to Claude's units: ${plural(exact.length, 'server')} by exact Claude count${exactNames}, ${plural(band.length, 'server')} through the divergence band`);
    for (const item of stale) lines.push(`  stale Claude count: ${item.name}: ${item.why}`);
  }
  if (session.deferral.atSessionStart.loads === 'pinned-only') {
    lines.push('  names and instructions are wire counts (measure\'s session start); Claude Code prefixes names and cuts instructions at 2 KB');
  }
  return lines;
}

function vendorDetail(session: AuditSession): string[] {
  if (session.vendor === undefined) return [];
  if ('record' in session.vendor) {
    const { record } = session.vendor;
    return [
      `  vendor record (not measured here): ${record.states}`,
      ...record.conditions.map((condition) => `    but: ${condition}`),
      ...record.sources.map((source) => `    source: ${sourceText(source)}`),
    ];
  }
  if ('none' in session.vendor) return [`  no deferral on record for ${session.client} (searched: ${session.vendor.none.searched}): every request carries the whole total, and so does the context`];
  return [`  ${session.vendor.unknown}`];
}

function sessionDetail(session: AuditSession): string[] {
  const lines = [`${sessionLabel(session)}: ${session.paths.join(' + ')}`];
  if (session.refused !== undefined) return [...lines, `  refused: ${session.refused}`];
  lines.push(`  every request carries ${formatTotal(session.totals)} tokens of tool definitions (${plural(session.loaded.length, 'server')} loaded${session.managedExclusive === true ? ', managed-mcp.json alone' : ''})`);
  for (const item of session.totals.uncounted) lines.push(`  not counted: ${item.name} (${item.why})`);
  for (const item of session.shadowed) lines.push(`  ${item.name} in ${item.path} does not load: the same name in ${item.by} wins`);
  for (const item of session.denied) lines.push(`  ${item.name} denied by ${item.rule} in ${item.source}`);
  for (const item of session.denyUnevaluable) lines.push(`  deny rule ${item.rule} in ${item.source} cannot be evaluated against ${item.name}: left in`);
  for (const item of session.allow ?? []) if (item.verdict !== 'allowed') lines.push(`  allowlist: ${item.name} ${item.verdict} (reported, not subtracted)`);
  if (session.wrapped !== undefined) lines.push(...renderWrapped(session.wrapped).trimEnd().split('\n').map((line) => `  ${line}`));
  if (session.proposedGateway !== undefined) lines.push(`  ${renderProposedGateway(session.proposedGateway)}`);
  return [...lines, ...deferralDetail(session), ...vendorDetail(session)];
}

/** The conditions no file states, once per client (not once per session). */
function checksSection(report: AuditReport): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const session of report.sessions) {
    const conditions = session.deferral?.conditions ?? [];
    if (conditions.length === 0 || seen.has(session.client)) continue;
    seen.add(session.client);
    lines.push(`${session.client}: conditions no config states, for you to check`, ...conditions.map((condition) => `  check: ${condition}`));
  }
  return lines;
}

function detailsSection(report: AuditReport): string[] {
  const blocks = [placesSection(report), entriesSection(report), configsSection(report), ['Sessions in detail', ...report.sessions.flatMap(sessionDetail)], checksSection(report)];
  return blocks.filter((block) => block.length > 0).flatMap((block) => ['', ...block]);
}

/** Paths under the audited home written from `~`, so the default report keeps the part that names the file. */
function homeShortener(home: string): (line: string) => string {
  if (home.length <= 1) return (line) => line;
  const prefixes = [`${home}/`, `${home}\\`];
  return (line) => prefixes.reduce((text, prefix) => text.split(prefix).join(`~${prefix.slice(-1)}`), line);
}

export function renderAudit(given: AuditReport, options: AuditRenderOptions = {}): string {
  const verbose = options.verbose === true;
  const shorten = homeShortener(given.roots.home);
  // The default report names files from ~ (every string of the report, reasons included); --verbose keeps whole paths.
  const report = verbose ? given : (JSON.parse(JSON.stringify(given), (_key, value: unknown) => (typeof value === 'string' ? shorten(value) : value)) as AuditReport);
  const sections = [sessionsSection(report), serversSection(report), budgetSection(report), changedSection(report), suggestSection(report), notesSection(report, verbose)];
  const lines = sections.filter((section) => section.length > 0).flatMap((section, index) => (index === 0 ? section : ['', ...section]));
  if (verbose) lines.push(...detailsSection(report));
  else lines.push('', 'Places consulted, settings files, per-file totals, posture evidence, sources: --verbose');
  // Paths and reasons come from files and servers: no control character reaches the terminal.
  return `${lines.map((line) => printableText(line, 'note')).join('\n')}\n`;
}
