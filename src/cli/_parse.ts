import { InvalidArgumentError } from 'commander';
import { DECLARABLE_CAPABILITIES } from '../mcp/index.js';

const ENV_ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

export function collectEnv(value: string, previous: Record<string, string>): Record<string, string> {
  const match = ENV_ASSIGNMENT.exec(value);
  if (!match?.[1]) throw new InvalidArgumentError(`expected NAME=VALUE with a valid variable name, got "${value.split('=')[0]}=…"`);
  return { ...previous, [match[1]]: match[2] ?? '' };
}

export function parsePositiveInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  }
  return number;
}

export function parseCapabilities(value: string): string[] {
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !(DECLARABLE_CAPABILITIES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(`unknown capability ${unknown.join(', ')}; choose from ${DECLARABLE_CAPABILITIES.join(', ')}`);
  }
  return [...new Set(names)];
}
