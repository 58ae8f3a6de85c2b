import type { CallCheck } from '../_call.js';
import { refusal, shownName } from '../_refusal.js';

/**
 * A tool whose upstream sent a catalog the gateway could not use (malformed: a name twice, a tool
 * without a name, a cursor loop), or whose name two tools would share: refused, never sent, with
 * the reason, so the model can use another tool and the user can fix the server or the config.
 */
export const unavailable: CallCheck = (target) =>
  target.listing === 'unavailable'
    ? refusal(`${shownName(target.name)} cannot be called: ${target.unavailable ?? 'its server is unavailable'}. The call was not sent. Use another tool, or ask the user to fix that server.`, { action: 'refused' })
    : undefined;
