import { MAX_TOOL_NAME_CHARS, isToolNameTooLong } from '../../config/index.js';
import type { CallCheck } from '../_call.js';
import { refusal, shownName } from '../_refusal.js';

/**
 * A tool the config denies (allow/deny), by its name or by a name that folds onto it: refused
 * inside the gateway, never sent.
 */
export const deny: CallCheck = (target) => (target.listing === 'denied' ? refusal(deniedText(target.name)) : undefined);

export function deniedText(name: string): string {
  if (isToolNameTooLong(name)) {
    return `${shownName(name)} is not a tool name the gateway allows: names are at most ${MAX_TOOL_NAME_CHARS.toLocaleString('en-US')} characters. The call was not sent to the server.`;
  }
  return `${name} is denied by the gateway's configuration: the call was not sent to the server. Use another tool, or ask the user to allow it.`;
}
