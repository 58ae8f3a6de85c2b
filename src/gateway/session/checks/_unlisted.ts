import { isToolAllowed } from '../../config/index.js';
import type { CallCheck } from '../_call.js';
import { refusal } from '../_refusal.js';
import { deniedText } from './_deny.js';

/**
 * A name no upstream listed is relayed (hidden, not removed: an upstream may serve tools it does
 * not list), except with pins on, where nothing unlisted is trusted, or when the config denies it.
 */
export const unlisted: CallCheck = (target, call) => {
  if (target.listing !== 'unlisted') return undefined;
  const { config, pins } = call.context.services;
  if (pins !== undefined) {
    return refusal(`${target.name} cannot be called: it is not among the tools of ${target.upstream} the gateway trusts. The call was not sent.`);
  }
  return isToolAllowed(config, target.upstream, target.ownName, target.name) ? undefined : refusal(deniedText(target.name));
};
