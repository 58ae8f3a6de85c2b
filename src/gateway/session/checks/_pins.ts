import type { CallCheck } from '../_call.js';
import { refusal } from '../_refusal.js';

/** A tool the pins hold back (new or changed since pinned, rejected, or an unreadable pin file): refused with why and how to approve it. */
export const pins: CallCheck = (target) =>
  target.held?.by === 'pins' ? refusal(`${target.name} cannot be called: ${target.held.reason}`) : undefined;
