import { MEASUREMENT_FILE } from '../../measure/index.js';
import { plural } from '../../text/index.js';
import type { HistoryRow } from '../_model.js';
import { plottableSeries, type PlottableSeries } from '../_series.js';
import type { SiteLaunch, SiteMeasurement, SiteTool } from './_check.js';
import { attr, count, noteText, page, shellWord, sparkline, text } from './_html.js';
import { statusLine, trendText } from './_index-page.js';
import type { SiteInput, SiteServer } from './_read.js';
import { browserVerifyHtml } from './_verify-section.js';

// servers/<segment>.html: everything published about one server, each figure next to the command
// that re-derives it.

const BAR_WIDTH = 200;

/** Where a server's measurement.json is copied in the site, relative to the site's root. */
export function measurementCopyPath(segment: string): string {
  return `data/${segment}/${MEASUREMENT_FILE}`;
}

export function serverPage(server: SiteServer, input: SiteInput, resultsName: string): string {
  const { row, measurement, segment } = server;
  const series = plottableSeries(input.history, row.server);
  const rows = input.history.filter((historyRow) => historyRow.server === row.server);
  const badge = server.badge === null ? '' : ` <img class="badge" src="../badges/${attr(segment)}.svg" alt="${attr(`context cost badge of ${row.server}`)}">`;
  const note = (measurement?.note ?? row.note) === '' ? '' : `<p class="note"><strong>Note:</strong> ${noteText(measurement?.note ?? row.note)}</p>`;
  const body = [
    `<h1><span id="server-name">${text(row.server)}</span>${badge}</h1>`,
    `<p>${statusLine(row)}</p>`,
    note,
    measurement === null ? '<p>Not swept yet: there is no record of this server.</p>' : facts(server, measurement),
    measurement?.tools ? toolsSection(measurement.tools) : '',
    historySection(rows, series),
    measurement === null ? '' : verifySection(segment, resultsName),
  ]
    .filter((part) => part !== '')
    .join('\n');
  return page({ title: `${row.server}: context cost`, root: '../', body, script: true });
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
    ['Launch', launchHtml(measurement.launch)],
    ['Isolation', isolationHtml(measurement.isolation)],
    ['Measured at', measurement.measuredAt === null ? '—' : text(measurement.measuredAt)],
    ['Methodology', `<a href="../methodology.html"><code>${text(measurement.methodology)}</code></a>`],
  ];
  return `<dl class="facts">\n${items.map(([term, value]) => `<dt>${text(term)}</dt><dd>${value}</dd>`).join('\n')}\n</dl>`;
}

function launchHtml(launch: SiteLaunch): string {
  const env = launch.envNames.length === 0 ? '' : `<br><span class="muted">environment (names only):</span> ${launch.envNames.map((name) => `<code>${text(name)}</code>`).join(' ')}`;
  if (launch.kind === 'remote') {
    const headers = launch.headerNames.length === 0 ? '' : `<br><span class="muted">headers (names only):</span> ${launch.headerNames.map((name) => `<code>${text(name)}</code>`).join(' ')}`;
    return `<code class="launch">${text(launch.url)}</code>${headers}${env}`;
  }
  return `<code class="launch">${text([launch.command, ...launch.args].map(shellWord).join(' '))}</code>${env}`;
}

function isolationHtml(isolation: SiteMeasurement['isolation']): string {
  const kind = isolation.kind === null ? '<span class="muted">not recorded</span>' : text(isolation.kind);
  const machine = [isolation.platform, isolation.arch, isolation.node === null ? null : `node ${isolation.node}`].filter((part): part is string => part !== null);
  return machine.length === 0 ? kind : `${kind} <span class="muted">(${text(machine.join(', '))})</span>`;
}

function toolsSection(tools: readonly SiteTool[]): string {
  const widest = Math.max(1, ...tools.map((tool) => tool.tokens));
  const rows = tools.map((tool) => {
    const description = tool.description === null ? '<span class="muted">—</span>' : text(clip(tool.description, 160));
    return [
      `<tr data-name="${attr(tool.name.toLowerCase())}">`,
      `<td data-value="${attr(tool.name.toLowerCase())}"><code>${text(tool.name)}</code></td>`,
      `<td data-value="${tool.tokens}">${count(tool.tokens)}</td>`,
      `<td data-value="${tool.tokens}">${bar(tool, widest)}</td>`,
      `<td data-value="${tool.descriptionTokens}">${count(tool.descriptionTokens)}</td>`,
      `<td data-value="${tool.inputSchemaTokens}">${count(tool.inputSchemaTokens)}</td>`,
      `<td class="description">${description}</td>`,
      '</tr>',
    ].join('');
  });
  const header = ['Tool:text', 'Tokens:number', 'Share:number', 'Description:number', 'Input schema:number']
    .map((spec) => {
      const [label, type] = spec.split(':') as [string, string];
      return `<th scope="col" data-type="${type}"><button type="button">${text(label)}</button></th>`;
    })
    .join('');
  return [
    `<h2>Tools (${text(plural(tools.length, 'tool'))})</h2>`,
    '<p class="legend"><span class="key key-description"></span> description <span class="key key-schema"></span> input schema <span class="key key-rest"></span> name and the rest</p>',
    '<div class="scroll">',
    '<table id="tools" class="sortable">',
    `<thead><tr>${header}<th scope="col">Description text</th></tr></thead>`,
    `<tbody>\n${rows.join('\n')}\n</tbody>`,
    '</table>',
    '</div>',
  ].join('\n');
}

/** A bar as long as the tool's share of the heaviest tool, split into description, schema and the rest. */
function bar(tool: SiteTool, widest: number): string {
  const scale = BAR_WIDTH / widest;
  const description = Math.min(tool.descriptionTokens, tool.tokens);
  const schema = Math.min(tool.inputSchemaTokens, tool.tokens - description);
  const rest = tool.tokens - description - schema;
  let x = 0;
  const parts = [
    ['description', description],
    ['schema', schema],
    ['rest', rest],
  ] as const;
  const rects = parts.map(([kind, tokens]) => {
    const width = tokens * scale;
    const rect = `<rect class="part-${kind}" x="${x.toFixed(1)}" width="${width.toFixed(1)}" height="12"/>`;
    x += width;
    return rect;
  });
  return `<svg class="bar" width="${BAR_WIDTH}" height="12" viewBox="0 0 ${BAR_WIDTH} 12" aria-hidden="true">${rects.join('')}</svg>`;
}

function historySection(rows: readonly HistoryRow[], series: PlottableSeries): string {
  if (rows.length === 0) return '<h2>Over time</h2>\n<p>No history yet.</p>';
  const inTrend = new Set(series.since === null ? [] : rows.filter((row) => row.date >= (series.since as string)).map((row) => row.date));
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
      `<td>${inTrend.has(row.date) ? 'yes' : 'no'}</td>`,
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

function clip(value: string, chars: number): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > chars ? `${flat.slice(0, chars)}…` : flat;
}
