import type { Measurement } from '../../measure/index.js';
import type { ResultsState } from '../_model.js';
import { hasNumber } from '../history/index.js';

/** The guard trips when at least this many servers regressed... */
export const GUARD_MIN_REGRESSED = 5;
/** ...and they are at least this share of the servers that could regress. */
export const GUARD_MIN_SHARE = 0.5;

export interface GuardReport {
  /** False when there was nothing to compare with: no previous results, or none swept had a real number. */
  checked: boolean;
  /** Swept this run, and published a real number before (measured or dynamic with at least one tool). */
  couldRegress: string[];
  /** Of those, the ones that now end in a failure status. */
  regressed: string[];
  tripped: boolean;
  note: string;
}

/**
 * The harness-fault guard. When many servers that gave a number last time all fail at once, the
 * likelier cause is this machine (no network, a broken runtime, a full disk), not the servers:
 * publishing would replace good numbers with a wall of failures. An empty catalog is measured but
 * is no evidence that the harness worked, so it does not count as a real number.
 */
export function checkHarness(previous: ResultsState | null, fresh: ReadonlyMap<string, Measurement>): GuardReport {
  const hadNumber = (previous?.servers ?? []).filter(
    (server) => server.measurement !== null && hasNumber(server.measurement.status) && (server.measurement.toolCount ?? 0) > 0,
  );
  const couldRegress = hadNumber.map((server) => server.name).filter((name) => fresh.has(name));
  if (couldRegress.length === 0) {
    const why = previous === null ? 'there were no previous results' : 'no server swept this run had a real number before';
    return { checked: false, couldRegress, regressed: [], tripped: false, note: `the harness check could not be made: ${why}` };
  }
  const regressed = couldRegress.filter((name) => {
    const status = fresh.get(name)?.status;
    return status === undefined || !hasNumber(status);
  });
  const tripped = regressed.length >= GUARD_MIN_REGRESSED && regressed.length >= couldRegress.length * GUARD_MIN_SHARE;
  const counts = `${regressed.length} of ${couldRegress.length} servers that had a number now fail`;
  const note = tripped
    ? `harness fault suspected, nothing written: ${counts} (${regressed.join(', ')}); the guard trips at ${GUARD_MIN_REGRESSED} or more and at least half`
    : `harness check passed: ${counts}`;
  return { checked: true, couldRegress, regressed, tripped, note };
}
