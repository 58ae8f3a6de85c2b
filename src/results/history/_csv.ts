import { McpctxError } from '../../errors/index.js';
import { RECORD_STATUSES, type IsolationKind, type RecordStatus } from '../../measure/index.js';
import type { HistoryRow } from '../_model.js';
import { compareSweeps } from '../_order.js';

export const HISTORY_FILE = 'history.csv';
export const HISTORY_COLUMNS = ['date', 'sweep', 'server', 'status', 'tools', 'tokens', 'canonical_sha256', 'isolation'] as const;
/** The header before history kept every sweep: its rows still read, with their sweep unknown, and are rewritten with the column. */
const COLUMNS_WITHOUT_SWEEP = HISTORY_COLUMNS.filter((column) => column !== 'sweep');
/** How a row recorded before isolation was kept says so: unknown, never back-filled. */
export const ISOLATION_NOT_RECORDED = 'not-recorded';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const SHA256 = /^[0-9a-f]{64}$/;
const ISOLATIONS: readonly string[] = ['host', 'docker'];

/** `history.csv`: a header, then one row per (sweep, server), sorted by date, sweep, then server; an unknown sweep is an empty cell. */
export function historyCsv(rows: readonly HistoryRow[]): string {
  const lines = [...rows].sort(compareRows).map((row) =>
    [
      row.date,
      row.sweep ?? '',
      csvField(row.server),
      row.status,
      row.tools ?? '',
      row.tokens ?? '',
      row.canonicalSha256 ?? '',
      row.isolation ?? ISOLATION_NOT_RECORDED,
    ].join(','),
  );
  return `${[HISTORY_COLUMNS.join(','), ...lines].join('\n')}\n`;
}

/** Reads `history.csv`; a row that does not parse is refused with its line number, never skipped. */
export function parseHistoryCsv(text: string, file: string): HistoryRow[] {
  const lines = text.split(/\r?\n/).filter((line) => line !== '');
  const [header, ...body] = lines;
  if (header === undefined) return [];
  const withSweep = header === HISTORY_COLUMNS.join(',');
  if (!withSweep && header !== COLUMNS_WITHOUT_SWEEP.join(',')) throw invalid(file, 1, `the header must be ${HISTORY_COLUMNS.join(',')}`);
  return body.map((line, index) => parseRow(line, file, index + 2, withSweep));
}

function parseRow(line: string, file: string, lineNumber: number, withSweep: boolean): HistoryRow {
  const fields = splitCsvLine(line);
  const columns = withSweep ? HISTORY_COLUMNS.length : COLUMNS_WITHOUT_SWEEP.length;
  if (fields === undefined || fields.length !== columns) {
    throw invalid(file, lineNumber, `expected ${columns} fields`);
  }
  // An old row is read as a row of an unknown sweep: the empty cell the new form writes for it.
  if (!withSweep) fields.splice(1, 0, '');
  const [date, sweepText, server, status, tools, tokens, sha, isolation] = fields as [string, string, string, string, string, string, string, string];
  if (!DATE.test(date)) throw invalid(file, lineNumber, `date ${JSON.stringify(date)} is not YYYY-MM-DD`);
  if (sweepText !== '' && !/^[1-9]\d{0,14}$/.test(sweepText)) throw invalid(file, lineNumber, `sweep ${JSON.stringify(sweepText)} is not a sweep number`);
  if (server === '') throw invalid(file, lineNumber, 'the server is empty');
  if (!(RECORD_STATUSES as readonly string[]).includes(status)) throw invalid(file, lineNumber, `unknown status ${JSON.stringify(status)}`);
  if (sha !== '' && !SHA256.test(sha)) throw invalid(file, lineNumber, 'canonical_sha256 is not a sha256 hex digest');
  if (isolation !== ISOLATION_NOT_RECORDED && !ISOLATIONS.includes(isolation)) {
    throw invalid(file, lineNumber, `isolation ${JSON.stringify(isolation)} is not host, docker or ${ISOLATION_NOT_RECORDED}`);
  }
  return {
    date,
    ...(sweepText === '' ? {} : { sweep: Number(sweepText) }),
    server,
    status: status as RecordStatus,
    tools: count(tools, file, lineNumber, 'tools'),
    tokens: count(tokens, file, lineNumber, 'tokens'),
    canonicalSha256: sha === '' ? null : sha,
    isolation: isolation === ISOLATION_NOT_RECORDED ? null : (isolation as IsolationKind),
  };
}

function count(text: string, file: string, lineNumber: number, column: string): number | null {
  if (text === '') return null;
  if (!/^\d{1,15}$/.test(text)) throw invalid(file, lineNumber, `${column} ${JSON.stringify(text)} is not a whole number`);
  return Number(text);
}

/** By sweep (date, then sweep number, unknown first), then server. */
export function compareRows(a: HistoryRow, b: HistoryRow): number {
  return compareSweeps(a, b) || (a.server < b.server ? -1 : a.server > b.server ? 1 : 0);
}

/** A server name quoted when it holds a comma or quote (RFC 4180); servers files refuse line breaks in names. */
function csvField(text: string): string {
  return /[",]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 fields of one line; undefined when a quote is left open. */
function splitCsvLine(line: string): string[] | undefined {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index] as string;
    if (quoted) {
      if (char === '"' && line[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  if (quoted) return undefined;
  fields.push(field);
  return fields;
}

function invalid(file: string, line: number, message: string): McpctxError {
  return new McpctxError('INVALID_RESULTS', `${file}:${line}: ${message}`, { file, line });
}
