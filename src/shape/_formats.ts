import type * as Toon from '@toon-format/toon';
import { McpctxError } from '../errors/index.js';
import { lazyRequire } from '../lazy/index.js';
import { jsonText } from '../tokens/index.js';
import { describeValue } from '../json/index.js';

const toon = lazyRequire<typeof Toon>('@toon-format/toon');

/** The text formats a tool result can be written in. */
export type TextFormat = 'json' | 'csv' | 'toon';

export const TEXT_FORMATS: readonly TextFormat[] = ['json', 'csv', 'toon'];

/** JSON with no whitespace at all. */
export function toCompactJson(value: unknown): string {
  const text = jsonText(value, 'The value');
  if (text === undefined) throw new McpctxError('INVALID_ARGUMENT', 'The value has no JSON form (undefined or a function).');
  return text;
}

/** TOON (Token-Oriented Object Notation) through `@toon-format/toon`; decodes to the same value. */
export function toToon(value: unknown): string {
  try {
    return toon().encode(value);
  } catch (error) {
    // A cycle overflows the encoder's stack; say so as an error of ours, never a bare RangeError.
    throw new McpctxError('INVALID_ARGUMENT', `The value has no TOON form: ${(error as Error).message}.`, { reason: 'no-toon-form' }, { cause: error });
  }
}

type CsvCell = string | number | boolean | null;

/**
 * RFC 4180 CSV of flat rows: a header of every key in first-seen order, one line per row, `\n`
 * line ends. Nested values are refused (project them to one value first); null is an empty cell.
 */
export function toCsv(rows: readonly unknown[]): string {
  const header: string[] = [];
  const seen = new Set<string>();
  const flat = rows.map((row, index) => {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      throw new McpctxError('INVALID_ARGUMENT', `CSV needs rows that are objects; row ${index} is ${describeValue(row)}.`);
    }
    for (const [key, cell] of Object.entries(row)) {
      if (cell !== null && typeof cell === 'object') {
        throw new McpctxError(
          'INVALID_ARGUMENT',
          `CSV needs flat rows; row ${index} field "${key}" is ${describeValue(cell)}. Project it to one value first.`,
        );
      }
      if (!seen.has(key)) {
        seen.add(key);
        header.push(key);
      }
    }
    return row as Record<string, CsvCell | undefined>;
  });
  if (header.length === 0) return '';
  const lines = [header.map(csvCell).join(',')];
  // Own keys only: a row without "constructor" has an empty cell there, not Object's constructor.
  for (const row of flat) lines.push(header.map((key) => csvCell(Object.hasOwn(row, key) ? row[key] : null)).join(','));
  return lines.join('\n');
}

/** Writes `value` in `format`; CSV takes an array of flat rows. */
export function formatText(value: unknown, format: TextFormat): string {
  switch (format) {
    case 'json':
      return toCompactJson(value);
    case 'toon':
      return toToon(value);
    case 'csv':
      if (!Array.isArray(value)) throw new McpctxError('INVALID_ARGUMENT', `CSV needs an array of rows, got ${describeValue(value)}.`);
      return toCsv(value);
  }
}

function csvCell(cell: CsvCell | undefined): string {
  if (cell === null || cell === undefined) return '';
  const text = String(cell);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

