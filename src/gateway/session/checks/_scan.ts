import type { CallCheck } from '../_call.js';
import { refusal } from '../_refusal.js';

/** A tool the poisoning scan holds back (`scan: hold`): refused with the findings. */
export const scan: CallCheck = (target) =>
  target.held?.by === 'scan' ? refusal(`${target.name} cannot be called: ${target.held.reason}`) : undefined;
