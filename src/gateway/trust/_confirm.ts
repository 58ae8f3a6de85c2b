/**
 * `confirmDestructive`: a call to a tool annotated `destructiveHint: true` waits for the user. The
 * gateway asks through elicitation (the client shows the question and returns the user's answer);
 * only an accepted answer with `confirm: true` lets the call go upstream.
 */
import { isPlainObject } from '../../json/index.js';

/** Arguments longer than this (as JSON) are shown cut in the question. */
const SHOWN_ARGUMENT_CHARS = 2_000;

export function isDestructive(definition: Readonly<Record<string, unknown>>): boolean {
  return isPlainObject(definition.annotations) && definition.annotations.destructiveHint === true;
}

/** The `elicitation/create` params asking the user to allow one call. */
export function confirmationRequest(tool: string, args: unknown): Record<string, unknown> {
  const shown = JSON.stringify(args ?? {});
  const cut = shown.length > SHOWN_ARGUMENT_CHARS ? `${shown.slice(0, SHOWN_ARGUMENT_CHARS)}\u2026` : shown;
  return {
    message: `The tool ${tool} is marked destructive by its server. Allow this call?\nArguments: ${cut}`,
    requestedSchema: {
      type: 'object',
      properties: { confirm: { type: 'boolean', title: 'Allow this call', description: `Run ${tool} with these arguments` } },
      required: ['confirm'],
    },
  };
}

/** Why the call must not go, or undefined when the user allowed it. */
export function confirmationRefusal(tool: string, result: unknown): string | undefined {
  if (isPlainObject(result) && result.action === 'accept' && isPlainObject(result.content) && result.content.confirm === true) return undefined;
  const action = isPlainObject(result) && typeof result.action === 'string' ? result.action : 'no answer';
  return `${tool} is destructive and the user did not allow this call (${action === 'accept' ? 'accepted without confirm: true' : action}). The call was not sent.`;
}
