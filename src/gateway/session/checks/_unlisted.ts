import { isToolAllowed } from '../../config/index.js';
import type { CallCheck } from '../_call.js';
import { refusal, shownName } from '../_refusal.js';
import { deniedText } from './_deny.js';

/**
 * A name no upstream listed is relayed (hidden, not removed: an upstream may serve tools it does
 * not list), except when it folds onto a listed tool (an upstream that matches names loosely
 * would run that tool past its rules and checks: the model is told the name to use), with pins
 * on (nothing unlisted is trusted), or when the config denies it.
 */
export const unlisted: CallCheck = (target, call) => {
  if (target.listing !== 'unlisted') return undefined;
  if (target.lookAlikeOf !== undefined) {
    return refusal(`${target.name} is not a tool here: the tool is called ${target.lookAlikeOf}. The call was not sent; call ${target.lookAlikeOf} by that name.`, { action: 'refused' });
  }
  const { config, pins } = call.context.services;
  if (!isToolAllowed(config, target.upstream, target.ownName, target.name)) return refusal(deniedText(target.name));
  if (pins !== undefined) {
    return refusal(`${shownName(target.name)} cannot be called: it is not among the tools of ${target.upstream} the gateway trusts. The call was not sent.`);
  }
  return undefined;
};
