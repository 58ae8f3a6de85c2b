import type { JsonObject } from '../../json/index.js';
import type { CallOutcome } from './_call.js';

/**
 * A tool listed with its outputSchema (`dropOutputSchema: false`) promises structuredContent in
 * every result that is not an error; a validating client (the official SDKs) throws on a result
 * without it. When the gateway reshaped such a result (paged, projected, offloaded) it cannot keep
 * that promise, so the result goes out marked `isError`: the client accepts it and the model still
 * reads the page or the handle. A result passed as the upstream sent it is left alone.
 */
export function agreeWithListedSchema(definition: JsonObject, outcome: CallOutcome): CallOutcome {
  if (outcome.action === 'passed' || !Object.hasOwn(definition, 'outputSchema')) return outcome;
  const { result } = outcome;
  if (result.isError === true || (Object.hasOwn(result, 'structuredContent') && result.structuredContent !== undefined)) return outcome;
  const why = `marked isError: ${String(definition.name)} is listed with an outputSchema and its ${outcome.action} result has no structuredContent`;
  return { ...outcome, result: { ...result, isError: true }, note: outcome.note === undefined ? why : `${outcome.note}; ${why}` };
}
