import { compareRecency } from './_recency.js';
import type { ScoredFragment } from './_types.js';
import type { DemotedEntry, MandatoryScope, NormalizedRecord } from './_types.js';

// Mandatory content is scoped to the task. A store that holds many sessions (or one session of
// days) holds constraints and decisions that bound other work; made mandatory all together they
// grow without limit and crowd out every budget. What stays mandatory: what is in the task's scope
// (its session, else the last SCOPE_WINDOW_HOURS before the newest record) and anything, in scope
// or not, that touches the task (names its identifiers or shares its words). The rest becomes
// optional and competes with its score; each demotion is reported with its reason.

export const SCOPE_WINDOW_HOURS = 24;
const SCOPE_WINDOW_MS = SCOPE_WINDOW_HOURS * 3_600_000;

/** The task's scope: its session when records carry one, else a time window ending at the newest dated record. */
export function mandatoryScope(records: readonly NormalizedRecord[], taskSession: string | undefined): MandatoryScope {
  let newest: NormalizedRecord | undefined;
  let newestWithSession: NormalizedRecord | undefined;
  for (const record of records) {
    if (newest === undefined || compareRecency(record, newest) > 0) newest = record;
    if (record.session !== undefined && (newestWithSession === undefined || compareRecency(record, newestWithSession) > 0)) newestWithSession = record;
  }
  const session = taskSession ?? (newestWithSession === undefined ? undefined : newestWithSession.session);
  if (session !== undefined) return { rule: 'session', session };
  if (newest?.time === undefined) return { rule: 'all' };
  return { rule: 'time-window', since: new Date(newest.time - SCOPE_WINDOW_MS).toISOString(), windowHours: SCOPE_WINDOW_HOURS };
}

/** Why `record` is outside the task's scope, or undefined when it is inside. */
export function outOfScope(record: NormalizedRecord, scope: MandatoryScope): string | undefined {
  if (scope.rule === 'session') {
    const session = record.session;
    return session === scope.session ? undefined : `from ${session === undefined ? 'no session' : `session ${JSON.stringify(session)}`}, not the task's session ${JSON.stringify(scope.session)}`;
  }
  if (scope.rule === 'time-window' && record.time !== undefined && scope.since !== undefined && record.time < Date.parse(scope.since)) {
    return `from ${record.timestamp ?? 'an earlier time'}, before the ${SCOPE_WINDOW_HOURS}-hour window that ends at the newest record`;
  }
  return undefined;
}

function demote(item: ScoredFragment, reason: string, demoted: DemotedEntry[]): void {
  demoted.push({ fragmentId: item.fragment.id, recordId: item.record.id, was: item.mandatoryReason ?? '', reason });
  delete item.mandatoryReason;
}

/** Outside the scope, mandatory fragments that do not touch the task become optional (in place). */
export function scopeMandatory(scored: readonly ScoredFragment[], scope: MandatoryScope): DemotedEntry[] {
  const demoted: DemotedEntry[] = [];
  for (const item of scored) {
    if (item.mandatoryReason === undefined || item.touchesTask) continue;
    const reason = outOfScope(item.record, scope);
    if (reason !== undefined) demote(item, `${reason}, and does not touch the task`, demoted);
  }
  return demoted;
}
