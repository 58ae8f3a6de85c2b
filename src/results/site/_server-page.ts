import { MEASUREMENT_FILE } from '../../measure/index.js';
import { plural } from '../../text/index.js';
import type { HistoryRow } from '../_model.js';
import { plottableSeries, type PlottableSeries } from '../_series.js';
import { badgeSnippetSection } from './_badge-snippet.js';
import type { SiteLaunch, SiteMeasurement } from './_check.js';
import { failureSection, isFailure } from './_failure.js';
import { attr, count, noteText, page, shellWord, sparkline, text } from './_html.js';
import { statusLine, trendText } from './_index-page.js';
import { npmPackageOf } from './_package.js';
import type { SiteInput, SiteServer } from './_read.js';
import { browserVerifyHtml } from './_verify-section.js';
import { toolsSection } from './_tools-section.js';

// servers/<segment>.html: everything published about one server, each figure next to the command
// that re-derives it.

/** Where a server's measurement.json is copied in the site, relative to the site's root. */
export function measurementCopyPath(segment: string): string {
  return `data/${segment}/${MEASUREMENT_FILE}`;
}

export interface ServerPageOptions {
  /** The results folder's name, as the verify section names the record's origin. */
  resultsName: string;
  /** Where the site is published, for the badge snippet; null: addresses relative to the site. */
  baseUrl: string | null;
  /** The header's sweep line. */
  stamp: string;
}

export function serverPage(server: SiteServer, input: SiteInput, options: ServerPageOptions): string {
  const { row, measurement, segment } = server;
  const series = plottableSeries(input.history, row.server);
  const rows = input.history.filter((historyRow) => historyRow.server === row.server);
  const badge = server.badge === null ? '' : ` <img class="badge" src="../badges/${attr(segment)}.svg" alt="${attr(`context cost badge of ${row.server}`)}">`;
  const noteValue = measurement?.note ?? row.note;
  const failed = isFailure(row.status);
  const note = noteValue === '' || failed ? '' : `<p class="note"><strong>Note:</strong> ${noteText(noteValue)}</p>`;
  const recordHref = `../${measurementCopyPath(segment)}`;
  const body = [
    `<h1><span id="server-name">${text(row.server)}</span>${badge}</h1>`,
    // A failure's status is the first line of its own section.
    failed ? '' : `<p>${statusLine(row)}</p>`,
    note,
    failed ? failureSection(row.status, noteValue, measurement?.stderrTail ?? null) : '',
    measurement === null ? '<p>Not swept yet: there is no record of this server.</p>' : facts(server, measurement),
    server.badge === null ? '' : badgeSnippetSection(row.server, segment, options.baseUrl),
    measurement?.tools ? toolsSection(measurement.tools, recordHref) : '',
    historySection(rows, series),
    measurement === null ? '' : verifySection(segment, options.resultsName),
  ]
    .filter((part) => part !== '')
    .join('\n');
  return page({ title: `${row.server}: context cost`, root: '../', body, script: true, stamp: options.stamp });
}

function facts(server: SiteServer, measurement: SiteMeasurement): string {
  const { row } = server;
  const sessionStart =
    measurement.sessionStart === null
      ? '—'
      : row.sessionStartFloor
        ? `≥ ${count(measurement.sessionStart)} tokens <span class="muted">(a floor: the server's instructions were not captured)</span>`
        : `${count(measurement.sessionStart)} tokens <span class="muted">(tool names and instructions)</span>`;
  const items: Array<[string, string]> = [
    ['Tokens', measurement.totalTokens === null ? '—' : `${count(measurement.totalTokens)}${row.band === null ? '' : ` <span class="band band-${row.band}">${text(row.band)}</span>`}`],
    ['Tools', count(measurement.toolCount)],
    ['Session-start load', sessionStart],
    ['Trend', trendText(row.trend)],
    ['Canonical sha256', measurement.canonicalSha256 === null ? '—' : `<code class="hash">${text(measurement.canonicalSha256)}</code>`],
    ['Package', packageHtml(measurement)],
    ['Launch', launchHtml(measurement.launch)],
    ['Isolation', isolationHtml(measurement.isolation)],
    ['Measured at', measurement.measuredAt === null ? '—' : text(measurement.measuredAt)],
    ['Methodology', `<a href="../methodology.html"><code>${text(measurement.methodology)}</code></a>`],
  ];
  return `<dl class="facts">\n${items.map(([term, value]) => `<dt>${text(term)}</dt><dd>${value}</dd>`).join('\n')}\n</dl>`;
}

function packageHtml(measurement: SiteMeasurement): string {
  const found = npmPackageOf(measurement.launch);
  const reported = measurement.serverInfo;
  const says =
    reported === null || (reported.name === null && reported.version === null)
      ? ''
      : `<br><span class="muted">the server reports itself as</span> ${[reported.name === null ? '' : `<code>${noteText(reported.name)}</code>`, reported.version === null ? '' : `version <code id="server-version">${noteText(reported.version)}</code>`].filter((part) => part !== '').join(' ')}`;
  if (found === null) return `<span class="muted">not launched as an npm package</span>${says}`;
  const version = found.version === null ? '<span class="muted">no version given (whatever npm resolved that day)</span>' : found.pinned ? `<code id="package-version">${text(found.version)}</code>` : `<code id="package-version">${text(found.version)}</code> <span class="muted">(not an exact version)</span>`;
  return `<a id="npm-link" href="${attr(found.url)}"><code>${text(found.name)}</code></a> ${version}${says}`;
}

function launchHtml(launch: SiteLaunch): string {
  const env = launch.envNames.length === 0 ? '' : `<br><span class="muted">environment (names only):</span> ${launch.envNames.map((name) => `<code>${text(name)}</code>`).join(' ')}`;
  if (launch.kind === 'remote') {
    const headers = launch.headerNames.length === 0 ? '' : `<br><span class="muted">headers (names only):</span> ${launch.headerNames.map((name) => `<code>${text(name)}</code>`).join(' ')}`;
    return `<code class="launch">${text(launch.url)}</code>${headers}${env}`;
  }
  return `<code class="launch">${text([launch.command, ...launch.args].map(shellWord).join(' '))}</code>${env}`;
}

/** What a record made before `isolation.arch` existed shows in its place. */
const ARCH_NOT_ON_RECORD = 'architecture not on record';

function isolationHtml(isolation: SiteMeasurement['isolation']): string {
  const kind = isolation.kind === null ? '<span class="muted">not recorded</span>' : text(isolation.kind);
  // Absent means unknown: said in words, never left out, never taken from another record.
  const arch = isolation.arch ?? ARCH_NOT_ON_RECORD;
  const machine = [isolation.platform, arch, isolation.node === null ? null : `node ${isolation.node}`].filter((part): part is string => part !== null);
  return `${kind} <span class="muted">(${text(machine.join(', '))})</span>`;
}

function historySection(rows: readonly HistoryRow[], series: PlottableSeries): string {
  if (rows.length === 0) return '<h2>Over time</h2>\n<p>No history yet.</p>';
  const inRun = new Set(series.since === null ? [] : rows.filter((row) => row.date >= (series.since as string)).map((row) => row.date));
  const inTrend = new Set(series.points.map((point) => point.date));
  // A failed sweep is part of the run but gives no point: it is a gap, and the table says so.
  const why = (row: HistoryRow): string =>
    inTrend.has(row.date) ? 'yes' : inRun.has(row.date) ? `no: ${text(row.status)}, no number (a gap in the trend)` : 'no: measured under another isolation';
  const notes = [
    series.since === null ? '' : `The comparable series starts ${text(series.since)}${series.isolation === null ? '' : ` (measured under ${text(series.isolation)})`}.`,
    series.cutByIsolation ? 'Older rows were measured under another isolation and are left out of the trend.' : '',
    series.unrecordedRows === 0 ? '' : `${text(plural(series.unrecordedRows, 'row'))} of it ${series.unrecordedRows === 1 ? 'has' : 'have'} no recorded isolation: ${series.unrecordedRows === 1 ? 'it plots' : 'they plot'}, but ${series.unrecordedRows === 1 ? 'its' : 'their'} conditions are not on record.`,
  ].filter((part) => part !== '');
  const body = rows.map((row) =>
    [
      `<tr${inTrend.has(row.date) ? '' : ' class="outside"'}>`,
      `<td>${text(row.date)}</td>`,
      `<td>${text(row.status)}</td>`,
      `<td>${count(row.tools)}</td>`,
      `<td>${count(row.tokens)}</td>`,
      `<td>${row.canonicalSha256 === null ? '—' : `<code class="hash">${text(row.canonicalSha256.slice(0, 12))}</code>`}</td>`,
      `<td>${row.isolation === null ? '<span class="muted">not recorded</span>' : text(row.isolation)}</td>`,
      `<td>${why(row)}</td>`,
      '</tr>',
    ].join(''),
  );
  return [
    '<h2>Over time</h2>',
    `<p>${sparkline(series.points, 240, 40)}</p>`,
    notes.length === 0 ? '' : `<p>${notes.join(' ')}</p>`,
    '<div class="scroll">',
    '<table id="history">',
    '<thead><tr><th scope="col">Date</th><th scope="col">Status</th><th scope="col">Tools</th><th scope="col">Tokens</th><th scope="col">Canonical sha256</th><th scope="col">Isolation</th><th scope="col">In trend</th></tr></thead>',
    `<tbody>\n${body.join('\n')}\n</tbody>`,
    '</table>',
    '</div>',
  ]
    .filter((part) => part !== '')
    .join('\n');
}

function verifySection(segment: string, resultsName: string): string {
  // mcpctx is not on npm, so `npx mcpctx` would fetch whatever package holds that name: the
  // command is the one a clone runs, on the record the reader saves into it.
  return [
    '<h2>Verify</h2>',
    `<p>The record, <a href="../${attr(measurementCopyPath(segment))}">${text(MEASUREMENT_FILE)}</a>, is a byte-identical copy of <code>${text(`${resultsName}/${segment}/${MEASUREMENT_FILE}`)}</code>. It holds the raw capture, and mcpctx's <code>verify</code> re-derives every figure on this page from it. mcpctx is not published on npm: save the record into a clone of mcpctx, run <code>npm ci</code> there, then:</p>`,
    `<pre><code id="verify-command">${text(`node dist/cli/main.js verify ${MEASUREMENT_FILE}`)}</code></pre>`,
    browserVerifyHtml(measurementCopyPath(segment)),
  ].join('\n');
}
