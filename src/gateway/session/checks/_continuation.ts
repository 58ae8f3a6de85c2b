import type { CallCheck } from '../_call.js';

/**
 * A call carrying a page cursor the gateway issued is answered from the stored result, without
 * the upstream: it was checked (arguments, confirmation) when it first went.
 */
export const continuation: CallCheck = (_target, call) => call.context.services.shaper.continuationAsync(call.args, call.results);
