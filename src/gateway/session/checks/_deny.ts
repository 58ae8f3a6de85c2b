import type { CallCheck } from '../_call.js';
import { refusal } from '../_refusal.js';

/** A tool the upstream listed and the config denies (allow/deny): refused inside the gateway, never sent. */
export const deny: CallCheck = (target) => (target.listing === 'denied' ? refusal(deniedText(target.name)) : undefined);

export function deniedText(name: string): string {
  return `${name} is denied by the gateway's configuration: the call was not sent to the server. Use another tool, or ask the user to allow it.`;
}
