/**
 * The `--budget` gate. It fails closed: every session is judged (not only the costliest), and a
 * session passes only when its total is known and within the limit. A total that is only a floor
 * passes only when the floor is already over (a proven OVER) or when the caller accepts floors
 * (`floorOk`); a refused composition, an audit that measured nothing, a session where nothing
 * could be counted, a file named with --config that could not be read, and no session at all are
 * each `unknown`, with the reason. The overall verdict is the worst of them: over, then unknown.
 */
import type { ClientId, PlaceReport } from './_types.js';
import type { SessionTotals } from './_sessions.js';

export type BudgetVerdict = 'within' | 'over' | 'unknown';

export interface SessionBudget {
  client: ClientId;
  paths: string[];
  /** The session's total, or null when there is none (refused, a file not read). */
  tokens: number | null;
  /** False when `tokens` is a floor. */
  complete: boolean;
  verdict: BudgetVerdict;
  /** Why, in words: what was counted against what, or what is missing. */
  reason: string;
}

export interface AuditBudget {
  limit: number;
  /** `--budget-floor-ok`: a floor under the limit passes (said so in its reason). */
  floorOk: boolean;
  verdict: BudgetVerdict;
  sessions: SessionBudget[];
  /** Only when there is no session to judge: why the verdict is unknown. */
  reason?: string;
}

/** What the gate reads of a session. */
export interface BudgetSession {
  client: ClientId;
  paths: string[];
  refused?: string;
  /** Claude Code with managed-mcp.json: the other files do not load, so one unreadable among them changes nothing. */
  managedExclusive?: boolean;
  totals: SessionTotals;
}

export interface BudgetInput {
  limit: number;
  floorOk: boolean;
  measured: boolean;
  sessions: readonly BudgetSession[];
  places: readonly PlaceReport[];
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** A place that should have added to a session and did not: a given file not read, or a client's file that cannot be read. */
function unreadPlaceWhy(place: PlaceReport): string | undefined {
  if (place.state.state === 'unreadable') return `${place.path} cannot be read (${place.state.why}): what it loads is not counted`;
  if (place.state.state === 'absent' && place.scope === 'given') return `${place.path} (given with --config) does not exist`;
  return undefined;
}

function judge(session: BudgetSession, input: BudgetInput, unread: readonly string[]): SessionBudget {
  const row = { client: session.client, paths: session.paths };
  const { limit } = input;
  if (session.refused !== undefined) return { ...row, tokens: null, complete: false, verdict: 'unknown', reason: `composition refused: ${session.refused}` };
  if (!input.measured) return { ...row, tokens: null, complete: false, verdict: 'unknown', reason: 'not measured (--no-measure): the total is unknown' };
  const { totals } = session;
  const missing = [...totals.uncounted.map((item) => `${item.name} (${item.why})`), ...unread];
  if (missing.length === 0) {
    const verdict = totals.tokens > limit ? 'over' : 'within';
    return { ...row, tokens: totals.tokens, complete: true, verdict, reason: `${count(totals.tokens)} tokens ${verdict === 'over' ? '>' : '<='} ${count(limit)}` };
  }
  const floor = { ...row, tokens: totals.tokens, complete: false };
  const notCounted = `not counted: ${missing.join('; ')}`;
  if (totals.tokens > limit) return { ...floor, verdict: 'over', reason: `at least ${count(totals.tokens)} tokens > ${count(limit)} (a floor already over; ${notCounted})` };
  if (totals.counted.length === 0) return { ...floor, verdict: 'unknown', reason: `nothing in it could be counted (${notCounted})` };
  if (input.floorOk) return { ...floor, verdict: 'within', reason: `a floor of ${count(totals.tokens)} <= ${count(limit)}, accepted by --budget-floor-ok (${notCounted})` };
  return { ...floor, verdict: 'unknown', reason: `only a floor (>= ${count(totals.tokens)}), which does not prove it within ${count(limit)} (${notCounted}); --budget-floor-ok accepts floors` };
}

/** Judges every session against the limit; see the file comment for what fails closed. */
export function judgeBudget(input: BudgetInput): AuditBudget {
  const sessions: SessionBudget[] = [];
  const judgedClients = new Set(input.sessions.map((session) => session.client));
  for (const session of input.sessions) {
    // A given file is a session of its own; a client's unreadable file belongs to that client's session.
    const unread = session.client === 'custom' || session.managedExclusive === true ? [] : input.places.filter((place) => place.client === session.client).flatMap((place) => unreadPlaceWhy(place) ?? []);
    sessions.push(judge(session, input, unread));
  }
  for (const place of input.places) {
    const why = unreadPlaceWhy(place);
    if (why === undefined || (place.client !== 'custom' && judgedClients.has(place.client))) continue;
    // Claude Code's user and local scopes share ~/.claude.json: one row per file and client.
    if (sessions.some((row) => row.client === place.client && row.paths.includes(place.path))) continue;
    sessions.push({ client: place.client, paths: [place.path], tokens: null, complete: false, verdict: 'unknown', reason: why });
  }
  const verdict: BudgetVerdict = sessions.some((row) => row.verdict === 'over') ? 'over' : sessions.length === 0 || sessions.some((row) => row.verdict === 'unknown') ? 'unknown' : 'within';
  const budget: AuditBudget = { limit: input.limit, floorOk: input.floorOk, verdict, sessions };
  if (sessions.length === 0) budget.reason = 'no session to compare: no client config was found';
  return budget;
}
