// Whether one message can stall the gateway for everyone: while an attack runs on one session, a
// second session pings the gateway back to back, and the longest time between two answers (or
// between the attack's start and the first answer, or the last answer and the attack's end) is
// what every other client waited. The gateway runs in its own process (`gatewayOverHttp`), so
// this process stays free to ping and to time.
import { gatewayOverHttp } from './_gateway-process.js';
import type { WireClient } from '../support/wire-client.js';

/** The acceptance bound: no client waits longer than this while another one attacks. */
export const MAX_PING_GAP_MS = 250;
/** The pause between one ping's answer and the next ping, so the prober does not load the machine itself. */
const PING_PAUSE_MS = 5;
/** How long one ping may wait: far above the bound, so a stall is measured, not thrown. */
const PING_TIMEOUT_MS = 120_000;

export interface PingGap<T> {
  /** The longest wait of the second session, in ms. */
  longestGapMs: number;
  /** How many pings were answered while the attack ran (a gap test with no ping proves nothing). */
  pings: number;
  /** What the attack resolved with. */
  attack: T;
}

/**
 * Runs `attack` and, at the same time, pings through `probe` (an initialized session of the same
 * gateway) until the attack settles. The attack's failure is thrown after the probing stops.
 */
export async function pingGapDuring<T>(probe: WireClient, attack: () => Promise<T>): Promise<PingGap<T>> {
  let settled = false;
  const started = performance.now();
  const attackRun = attack().finally(() => {
    settled = true;
  });
  attackRun.catch(() => undefined);
  let last = started;
  let longestGapMs = 0;
  let pings = 0;
  // Bounded by the attack itself: each ping either answers or times out, and the loop ends once the attack settles.
  while (!settled) {
    await probe.request('ping', undefined, PING_TIMEOUT_MS);
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
    pings += 1;
    await new Promise((resolve) => setTimeout(resolve, PING_PAUSE_MS));
  }
  const result = await attackRun;
  longestGapMs = Math.max(longestGapMs, performance.now() - last - PING_PAUSE_MS);
  return { longestGapMs, pings, attack: result };
}

/**
 * A gateway over HTTP (`gatewayOverHttp(args)`) with two initialized sessions: `attacker` for the
 * attack and `probe` for the pings. `run` gets both; everything is closed afterwards.
 */
export async function withTwoSessions<T>(args: readonly string[], run: (sessions: { attacker: WireClient; probe: WireClient }) => Promise<T>): Promise<T> {
  const gateway = await gatewayOverHttp(args);
  const attacker = gateway.client();
  const probe = gateway.client();
  try {
    for (const client of [attacker, probe]) {
      await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'gap-test', version: '1' } });
      await client.notify('notifications/initialized');
    }
    return await run({ attacker, probe });
  } finally {
    await Promise.allSettled([attacker.close(), probe.close()]);
    await gateway.stop();
  }
}
