import { Help, type Option } from 'commander';
import { invocationOf, type CliIo } from './_io.js';

const commanderHelp = new Help();

/**
 * Every option's help says what happens without it: commander prints `(default: X)` for an option
 * with a default value; a flag without one is off; an option that takes a value and has no default
 * value says in its own description what its absence means (`(default: ...)`), which the CLI help
 * test holds every command to.
 */
export function optionDescription(option: Option): string {
  const described = commanderHelp.optionDescription(emptyDefaultAsNone(option));
  if (/[(,] ?default: /.test(described) || option.long === '--help' || option.long === '--version') return described;
  if (option.mandatory) return `${described} (required)`;
  if (option.isBoolean() && !option.negate) return `${described} (default: off)`;
  return described;
}

/** A repeatable option collected into `{}` or `[]` shows `(default: none)`, not the empty value. */
function emptyDefaultAsNone(option: Option): Option {
  const value: unknown = option.defaultValue;
  const empty = Array.isArray(value) ? value.length === 0 : typeof value === 'object' && value !== null && Object.keys(value).length === 0;
  if (!empty || option.defaultValueDescription !== undefined) return option;
  return Object.assign(Object.create(Object.getPrototypeOf(option) as object) as Option, option, { defaultValueDescription: 'none' });
}

/** One example for the end of a command's help (`addHelpText('after', ...)`), spelled with the words that started mcpctx. */
export function exampleHelp(io: CliIo, example: string): string {
  return `\nExample:\n  $ ${invocationOf(io)} ${example}`;
}
