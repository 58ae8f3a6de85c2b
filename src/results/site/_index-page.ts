import { BAND_LIMITS } from '../../measure/index.js';
import { plural } from '../../text/index.js';
import { plottableSeries } from '../_series.js';
import type { LeaderboardRow, LeaderboardTrend } from '../leaderboard/index.js';
import { isFailure, shortFailure, statusClass, statusMeaning } from './_failure.js';
import { attr, count, downloadLinks, page, sparkline, text } from './_html.js';
import { npmPackageOf } from './_package.js';
import type { SiteInput, SiteServer } from './_read.js';

// index.html: the leaderboard. Each cell carries the value it sorts by in `data-value` (numbers as
// numbers, '' for none, which sorts last either way), so the script never parses what it shows.

interface Column {
  label: string;
  type: 'number' | 'text';
  /** Why the column holds what it does, as the header's tooltip. */
  help: string;
}

const COLUMNS: readonly Column[] = [
  { label: 'Rank', type: 'number', help: 'measured servers only; 1 = fewest tokens' },
  { label: 'Server', type: 'text', help: 'opens the server page' },
  { label: 'Status', type: 'text', help: 'exactly one per server; see the methodology' },
  { label: 'Band', type: 'number', help: 'colour band of the catalog tokens' },
  { label: 'Tools', type: 'number', help: 'tools in the catalog' },
  { label: 'Tokens', type: 'number', help: 'o200k_base tokens of the tools/list catalog' },
  { label: 'Session start', type: 'number', help: 'tool names and instructions a deferring client loads; ≥ where instructions were not captured' },
  { label: 'Last measured', type: 'text', help: 'date of the sweep that made the record' },
  { label: 'Trend', type: 'number', help: 'change between the last two comparable measurements' },
  { label: 'Isolation', type: 'text', help: 'where the server ran: host or docker' },
];

const BAND_ORDER: readonly string[] = BAND_LIMITS.map((limit) => limit.band);

/** The script file with each server's tool names and descriptions, which the filter loads when first used. */
export const SEARCH_FILE = 'search.js';

export function indexPage(input: SiteInput, stamp: string): string {
  const { leaderboard } = input;
  const headers = COLUMNS.map(
    (column) => `<th scope="col" data-type="${column.type}" title="${attr(column.help)}"><button type="button">${text(column.label)}</button></th>`,
  ).join('');
  const rows = input.servers.map((server) => leaderboardRow(server, input)).join('\n');
  const body = [
    '<h1>MCP server context cost</h1>',
    `<p class="summary">${text(plural(leaderboard.servers, 'server'))}, ${text(`${leaderboard.measured.toLocaleString('en-US')} measured`)}. Tokens of each server's <code>tools/list</code> catalog, counted with ${text(leaderboard.tokenizer)} under methodology <code>${text(leaderboard.methodology)}</code>: <a href="methodology.html">what the numbers mean</a>. Click a column to sort.</p>`,
    `<p class="downloads">Download the data: ${downloadLinks('')}; every record is linked from its server's page.</p>`,
    `<p class="filter"><label for="filter">Filter by server, package, tool or description</label> <input id="filter" type="search" autocomplete="off" spellcheck="false" data-search="${SEARCH_FILE}"> <output id="filter-count" for="filter"></output></p>`,
    '<div class="scroll">',
    `<table id="leaderboard" class="sortable cards">`,
    `<thead><tr>${headers}</tr></thead>`,
    `<tbody>\n${rows}\n</tbody>`,
    '</table>',
    '</div>',
  ].join('\n');
  return page({ title: 'MCP server context cost: leaderboard', root: '', body, script: true, stamp });
}

function leaderboardRow(server: SiteServer, input: SiteInput): string {
  const { row, segment } = server;
  const series = plottableSeries(input.history, row.server);
  const bandClass = row.band === null ? '' : ` class="band-${row.band}"`;
  const badge = server.badge === null ? '' : `<img class="badge" src="badges/${attr(segment)}.svg" alt="${attr(`context cost badge of ${row.server}`)}" title="${attr(row.band === null ? row.status : `band ${row.band}`)}">`;
  const found = server.measurement === null ? null : npmPackageOf(server.measurement.launch);
  const packageLine = found === null ? '' : `<span class="package">${text(found.version === null ? found.name : `${found.name}@${found.version}`)}</span>`;
  const status = `<span class="status ${statusClass(row.status)}" title="${attr(statusMeaning(row.status))}">${text(row.status)}</span>`;
  const cells = [
    cell(row.rank, count(row.rank)),
    cell(row.server.toLowerCase(), `<a href="servers/${attr(segment)}.html">${text(row.server)}</a>${packageLine}`, 'name'),
    cell(row.status, isFailure(row.status) ? `${status}${shortFailure(row.status, server.measurement?.note ?? row.note, server.measurement?.stderrTail ?? null)}` : status, 'status-cell'),
    // The badge carries the band's colour; the band's name is shown where there is no badge.
    cell(row.band === null ? null : BAND_ORDER.indexOf(row.band), badge !== '' || row.band === null ? badge : `<span class="band">${text(row.band)}</span>`),
    cell(row.tools, count(row.tools)),
    cell(row.tokens, count(row.tokens)),
    cell(row.sessionStart, row.sessionStart === null ? '—' : `${row.sessionStartFloor ? '≥ ' : ''}${count(row.sessionStart)}`),
    cell(row.lastMeasured, row.lastMeasured === null ? 'never' : text(row.lastMeasured)),
    cell(row.trend === null ? null : signedDelta(row.trend), series.points.length === 0 && row.trend === null ? '<span class="muted">—</span>' : `${sparkline(series.points, 80, 20)} ${trendText(row.trend)}`),
    cell(row.isolation, row.isolation === null ? '<span class="muted">not recorded</span>' : text(row.isolation)),
  ];
  const labelled = cells.map((html, index) => html.replace('<td', `<td data-label="${attr(COLUMNS[index]?.label ?? '')}"`));
  const name = [row.server, found?.name ?? ''].join(' ').toLowerCase();
  return `<tr data-name="${attr(name)}" data-segment="${attr(segment)}"${bandClass}>${labelled.join('')}</tr>`;
}

function cell(value: number | string | null, html: string, className?: string): string {
  const classAttribute = className === undefined ? '' : ` class="${className}"`;
  return `<td${classAttribute} data-value="${value === null ? '' : attr(String(value))}">${html}</td>`;
}

/**
 * search.js: each server's tool names and descriptions, lower-cased, by page name. A script, not
 * JSON, because a page opened from file:// may load a script but not fetch a file; `<` is written
 * as \u003c so no text can close or open markup whatever the file is pasted into.
 */
export function searchScript(input: SiteInput): string {
  // fromEntries and JSON.parse make every key an own property, `__proto__` included.
  const entries = Object.fromEntries(
    input.servers.map((server) => [
      server.segment,
      (server.measurement?.tools ?? [])
        .map((tool) => `${tool.name} ${tool.description ?? ''}`)
        .join('\n')
        .toLowerCase(),
    ]),
  );
  const json = JSON.stringify(JSON.stringify(entries)).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return `'use strict';\nwindow.mcpctxSearch = JSON.parse(${json});\n`;
}

/** The change with its sign from the direction, whichever sign the file stored. */
export function signedDelta(trend: LeaderboardTrend): number {
  const size = Math.abs(trend.delta);
  return trend.direction === 'down' ? -size : trend.direction === 'up' ? size : 0;
}

export function trendText(trend: LeaderboardTrend | null): string {
  if (trend === null) return '<span class="muted">—</span>';
  const delta = signedDelta(trend);
  const arrow = trend.direction === 'up' ? '▲' : trend.direction === 'down' ? '▼' : '■';
  const sign = delta > 0 ? '+' : delta < 0 ? '−' : '±';
  return `<span class="trend trend-${trend.direction}" title="${attr(`since ${trend.from}`)}">${arrow} ${sign}${count(Math.abs(delta))}</span>`;
}

/** A status with its meaning, for pages that show one server. */
export function statusLine(row: LeaderboardRow): string {
  return `<span class="status ${statusClass(row.status)}">${text(row.status)}</span>: ${text(statusMeaning(row.status))}.`;
}
