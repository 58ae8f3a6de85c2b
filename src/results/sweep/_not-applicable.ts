import { type Measurement, type NotApplicable } from '../../measure/index.js';
import { printableText } from '../../text/index.js';
import { hasNumber } from '../history/index.js';

/**
 * Publishes `not-applicable` only when the entry declared it and the failure's own words (its note
 * and stderr tail) contain the declared `expect` (case-insensitive): a declaration alone must never
 * hide a real breakage. The record is the failure's own, with the status changed and a note that
 * starts with the declared reason and quotes the words that matched. A server that measured is
 * published as measured; a failure that does not say the words is published as it is, and its note
 * says the declaration did not match.
 */
export function applyNotApplicable(measurement: Measurement, declared: NotApplicable | undefined): Measurement {
  if (declared === undefined || hasNumber(measurement.status)) return measurement;
  const words = `${measurement.note}\n${measurement.stderrTail ?? ''}`;
  const at = words.toLowerCase().indexOf(declared.expect.toLowerCase());
  if (at === -1) {
    return {
      ...measurement,
      note: printableText(`${measurement.note}; declared not applicable (${declared.reason}), but the failure does not say ${JSON.stringify(declared.expect)}, so the real failure is published`, 'note'),
    };
  }
  const matched = words.slice(at, at + declared.expect.length);
  return {
    ...measurement,
    status: 'not-applicable',
    note: printableText(`${declared.reason}; the failure says ${JSON.stringify(matched)} (${measurement.status}: ${measurement.note})`, 'note'),
  };
}
