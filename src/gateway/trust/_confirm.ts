/**
 * `confirmDestructive`: a call to a tool annotated `destructiveHint: true` waits for the user. The
 * gateway asks through elicitation (the client shows the question and returns the user's answer);
 * only an accepted answer with `confirm: true` lets the call go upstream.
 */
import { isPlainObject } from '../../json/index.js';
import { sha256Hex } from '../../tokens/index.js';

/** Arguments up to this long (as JSON) are shown whole in the question. */
const WHOLE_ARGUMENTS_CHARS = 4_000;
/** Past that, each argument is shown on its own line, its name and value cut to these lengths with the cut marked. */
const SHOWN_NAME_CHARS = 80;
const SHOWN_VALUE_CHARS = 400;
const SHOWN_ARGUMENTS = 40;

export function isDestructive(definition: Readonly<Record<string, unknown>>): boolean {
  return isPlainObject(definition.annotations) && definition.annotations.destructiveHint === true;
}

/** The `elicitation/create` params asking the user to allow one call. */
export function confirmationRequest(tool: string, args: unknown): Record<string, unknown> {
  return {
    message: `The tool ${tool} is marked destructive by its server. Allow this call?\n${shownArguments(args ?? {})}`,
    requestedSchema: {
      type: 'object',
      properties: { confirm: { type: 'boolean', title: 'Allow this call', description: `Run ${tool} with these arguments` } },
      required: ['confirm'],
    },
  };
}

/**
 * The arguments as the user reads them: whole when short. Otherwise every argument gets a line of
 * its own with its value's start and end, each cut marked with how much it hid, and the sha256 of
 * the whole arguments: padding in one argument cannot push another out of sight unannounced.
 */
export function shownArguments(args: unknown): string {
  const whole = JSON.stringify(args);
  if (whole.length <= WHOLE_ARGUMENTS_CHARS) return `Arguments: ${whole}`;
  const lines = [`Arguments: ${whole.length} characters of JSON, too long to show whole (sha256 ${sha256Hex(whole)}); every cut below is marked.`];
  if (!isPlainObject(args)) {
    lines.push(`  ${cutMiddle(whole, SHOWN_VALUE_CHARS)}`);
    return lines.join('\n');
  }
  const names = Object.keys(args);
  for (const name of names.slice(0, SHOWN_ARGUMENTS)) {
    lines.push(`  ${cutMiddle(JSON.stringify(name), SHOWN_NAME_CHARS)}: ${cutMiddle(JSON.stringify(args[name]) ?? 'undefined', SHOWN_VALUE_CHARS)}`);
  }
  if (names.length > SHOWN_ARGUMENTS) lines.push(`  [${names.length - SHOWN_ARGUMENTS} more arguments not shown, of ${names.length}]`);
  return lines.join('\n');
}

/** `text` whole when it fits, else its start and end around a marker saying how many characters were cut there. */
function cutMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)} [${text.length - 2 * half} characters cut] ${text.slice(text.length - half)}`;
}

/** Why the call must not go, or undefined when the user allowed it. */
export function confirmationRefusal(tool: string, result: unknown): string | undefined {
  if (isPlainObject(result) && result.action === 'accept' && isPlainObject(result.content) && result.content.confirm === true) return undefined;
  const action = isPlainObject(result) && typeof result.action === 'string' ? result.action : 'no answer';
  return `${tool} is destructive and the user did not allow this call (${action === 'accept' ? 'accepted without confirm: true' : action}). The call was not sent.`;
}
