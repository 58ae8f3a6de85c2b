import { plural, printableText } from '../../text/index.js';
import { STATUS_MEANINGS, type ResultsState } from '../_model.js';
import { STATUS_ORDER, leaderboard, type LeaderboardRow, type LeaderboardTrend } from './_rows.js';

/** Longest note a failure row of the markdown shows; the whole note stays in leaderboard.json. */
export const MARKDOWN_NOTE_CHARS = 300;
const EMPTY = '—';

/**
 * `leaderboard.md`: a header naming the tokenizer, methodology and counts by status; one table of
 * every server (rank, server, band, tools, tokens, session start, status, last measured, trend);
 * the rows where deferring costs more than loading; and every server without a number, with its note.
 * Every cell is escaped, so a `|`, a line break, markdown or HTML in a name or note cannot change
 * the shape of a table or inject markup.
 */
export function leaderboardMarkdown(state: ResultsState): string {
  const board = leaderboard(state);
  // The column appears only when some record carries the block: older results keep their bytes.
  const withClaude = board.rows.some((row) => row.claude !== undefined);
  const lines: string[] = [
    '# Context cost leaderboard',
    '',
    `Tokens are the ${board.tokenizer} count of each server's tools/list catalog, methodology ${board.methodology}; ` +
      `this file is ${board.method}. Fewest tokens rank first; only measured and dynamic servers have a rank.`,
    '',
    `${plural(board.servers, 'server')}: ${countsByStatus(board.rows)}.`,
    '',
    'Session start is the tokens of the tool names plus the server instructions, what a client that defers ' +
      'tool definitions loads; ≥ marks a floor, a record that predates capturing the instructions. ' +
      'Trend compares the last two measurements taken under the same isolation.',
    '',
    tableLine(['rank', 'server', 'band', 'tools', 'tokens', 'session start', ...(withClaude ? ['claude'] : []), 'status', 'last measured', 'trend']),
    `|---:|:---|:---|---:|---:|---:|${withClaude ? '---:|' : ''}:---|:---|:---|`,
    ...board.rows.map((row) =>
      tableLine([
        row.rank === null ? EMPTY : String(row.rank),
        row.server,
        row.band ?? EMPTY,
        formatCount(row.tools),
        formatCount(row.tokens),
        row.sessionStart === null ? EMPTY : `${row.sessionStartFloor ? '≥ ' : ''}${formatCount(row.sessionStart)}`,
        ...(withClaude ? [row.claude === undefined ? EMPTY : formatCount(row.claude.tokens)] : []),
        row.status,
        row.lastMeasured ?? 'never',
        formatTrend(row.trend),
      ]),
    ),
  ];
  if (withClaude) {
    const models = [...new Set(board.rows.flatMap((row) => (row.claude === undefined ? [] : [row.claude.model])))];
    lines.push('', `Claude is what the tools add to an Anthropic request (count_tokens with and without them, method tools-delta/v1; ${models.map(markdownText).join(', ')}), shown only where the record carries it for its current capture.`);
  }

  const deferringCostsMore = board.rows.filter((row) => row.sessionStart !== null && row.tokens !== null && row.sessionStart > row.tokens);
  if (deferringCostsMore.length > 0) {
    lines.push('', '## Session start above the catalog', '');
    lines.push('These servers cost a client that defers tool definitions more than one that loads them all: their instructions outweigh their schemas.', '');
    for (const row of deferringCostsMore) {
      lines.push(`- ${markdownText(row.server)}: session start ${row.sessionStartFloor ? 'at least ' : ''}${formatCount(row.sessionStart)}, catalog ${formatCount(row.tokens)} tokens`);
    }
  }

  const unranked = board.rows.filter((row) => row.rank === null);
  if (unranked.length > 0) {
    lines.push('', '## Without a number', '', 'Every server is listed; these did not give one, each with its status and the note of its record.', '');
    lines.push(tableLine(['server', 'status', 'last measured', 'note']), '|:---|:---|:---|:---|');
    for (const row of unranked) lines.push(tableLine([row.server, row.status, row.lastMeasured ?? 'never', boundedNote(row.note)]));
    lines.push('', '### What the statuses mean', '');
    for (const status of STATUS_ORDER) {
      if (unranked.some((row) => row.status === status)) lines.push(`- ${status}: ${STATUS_MEANINGS[status]}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function countsByStatus(rows: readonly LeaderboardRow[]): string {
  const counts = STATUS_ORDER.map((status) => [status, rows.filter((row) => row.status === status).length] as const).filter(([, n]) => n > 0);
  return counts.length === 0 ? 'none' : counts.map(([status, n]) => `${n.toLocaleString('en-US')} ${status}`).join(', ');
}

function formatTrend(trend: LeaderboardTrend | null): string {
  if (trend === null) return EMPTY;
  const arrow = trend.direction === 'up' ? '↑' : trend.direction === 'down' ? '↓' : '→';
  const sign = trend.delta > 0 ? '+' : trend.delta < 0 ? '-' : '±';
  return `${arrow} ${sign}${Math.abs(trend.delta).toLocaleString('en-US')} since ${trend.from}`;
}

function formatCount(value: number | null): string {
  return value === null ? EMPTY : value.toLocaleString('en-US');
}

function boundedNote(note: string): string {
  if (note === '') return EMPTY;
  const chars = [...note];
  return chars.length > MARKDOWN_NOTE_CHARS ? `${chars.slice(0, MARKDOWN_NOTE_CHARS).join('')}…` : note;
}

function tableLine(cells: readonly string[]): string {
  return `| ${cells.map(markdownText).join(' | ')} |`;
}

/**
 * Text as inert markdown on one line: control characters go, line breaks become spaces, HTML becomes entities, and the
 * punctuation that makes emphasis, code, links or a table cell boundary is backslash-escaped.
 */
export function markdownText(text: string): string {
  return printableText(text, 'note')
    .replace(/[\u2028\u2029]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~!#]/g, (char) => `\\${char}`);
}
