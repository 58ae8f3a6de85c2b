import { argumentRefusalText } from '../../trust/index.js';
import type { CallCheck } from '../_call.js';
import { refusal } from '../_refusal.js';

/** Arguments that do not match the tool's `inputSchema` (as the client saw it): refused with each problem, in words and in `_meta`. */
export const checkArguments: CallCheck = (target, call) => {
  const checked = call.checker.check(target.name, call.params?.arguments);
  if (checked.ok) return undefined;
  return refusal(argumentRefusalText(target.name, checked.problems), {
    action: 'refused',
    meta: { 'mcpctx/argumentProblems': checked.problems },
    note: 'arguments do not match the inputSchema',
  });
};
