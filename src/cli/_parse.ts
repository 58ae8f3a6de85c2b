import { McpctxError } from '../errors/index.js';
import { InvalidArgumentError } from 'commander';
import { DECLARABLE_CAPABILITIES, MAX_BUDGET_MS, isEnvName } from '../mcp/index.js';

export function collectEnv(value: string, previous: Record<string, string>): Record<string, string> {
  const equals = value.indexOf('=');
  // Nothing of the argument is echoed, not even through commander's "argument '…' is invalid"
  // (hence a McpctxError, not an InvalidArgumentError): it may be the secret the flag exists to pass.
  if (equals === -1) throw new McpctxError('USAGE', '--env expects NAME=VALUE; the argument given has no "=" (not shown: it may be a secret)');
  const name = value.slice(0, equals);
  if (!isEnvName(name)) throw new McpctxError('USAGE', '--env expects NAME=VALUE with a valid variable name (letters, digits, _; not starting with a digit); the argument given is not shown: it may be a secret');
  return { ...previous, [name]: value.slice(equals + 1) };
}

export function parsePositiveInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  }
  return number;
}

/** `--max-usd`: a positive number of US dollars. */
export function parseUsd(value: string): number {
  const usd = Number(value);
  if (value.trim() === '' || !Number.isFinite(usd) || usd <= 0) throw new InvalidArgumentError(`expected a positive number of US dollars (e.g. 2.50), got "${value}"`);
  return usd;
}

export function parseCapabilities(value: string): string[] {
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !(DECLARABLE_CAPABILITIES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(`unknown capability ${unknown.join(', ')}; choose from ${DECLARABLE_CAPABILITIES.join(', ')}`);
  }
  return [...new Set(names)];
}

/** `--timeout`: whole milliseconds from 1 to 24 h (Node fires longer timers at once). */
export function parseTimeoutMs(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1 || number > MAX_BUDGET_MS) {
    throw new InvalidArgumentError(`expected whole milliseconds from 1 to ${MAX_BUDGET_MS} (24 h), got "${value}"`);
  }
  return number;
}

/** Where `collectHeader` puts an argument without `=`, so the command refuses it without quoting it. */
export const MALFORMED_HEADER = '\u0000malformed';

/**
 * `--header NAME=ENV_NAME`: the header's value is read from the variable ENV_NAME. Checked by the
 * command, not here: commander would quote the argument, which may be the secret itself.
 */
export function collectHeader(value: string, previous: Record<string, string>): Record<string, string> {
  const equals = value.indexOf('=');
  if (equals === -1) return { ...previous, [MALFORMED_HEADER]: '' };
  return { ...previous, [value.slice(0, equals)]: value.slice(equals + 1) };
}
