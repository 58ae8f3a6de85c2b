import { confirmationRefusal, confirmationRequest, isDestructive } from '../../trust/index.js';
import type { CallCheck } from '../_call.js';
import { refusal } from '../_refusal.js';

/**
 * confirmDestructive: a destructive tool's call waits for the user, asked through elicitation
 * when the client declared it; a client that cannot be asked gets its calls unconfirmed (said
 * once per session). Destructive is the server's own word, read before any rule: a config that
 * drops annotations to save tokens must not turn confirmation off.
 */
export const confirm: CallCheck = async (target, call) => {
  const { context } = call;
  const { services } = context;
  if (!services.config.confirmDestructive || !isDestructive(target.upstreamDefinition)) return undefined;
  if (!Object.hasOwn(context.clientCapabilities(), 'elicitation')) {
    call.sayOnce('unconfirmable', `confirmDestructive: the client did not declare elicitation, so destructive calls go unconfirmed in session ${context.sessionId.slice(0, 8)}`);
    return undefined;
  }
  let why: string | undefined;
  try {
    const answer = await context.askClient('elicitation/create', confirmationRequest(target.name, call.params?.arguments), call.id);
    why = confirmationRefusal(target.name, answer);
  } catch (error) {
    why = `${target.name} is destructive and the user could not be asked (${error instanceof Error ? error.message : String(error)}). The call was not sent.`;
  }
  return why === undefined ? undefined : refusal(why);
};
