// The site's one stylesheet and one script, written as files beside the pages: the pages' content
// security policy allows no inline style or script, and nothing is fetched from elsewhere.

export const SITE_CSS = `:root { color-scheme: light; --ink: #1f2328; --muted: #656d76; --line: #d0d7de; --head: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); }
header, main, footer { max-width: 1400px; margin: 0 auto; padding: 0 16px; }
header nav { padding: 12px 0; border-bottom: 1px solid var(--line); }
header nav a { margin-right: 16px; }
header .sweep { margin: 4px 0 0; color: var(--muted); font-size: 13px; }
details.tool { border-bottom: 1px solid var(--line); padding: 4px 0; }
details.tool summary { cursor: pointer; }
details.tool h3 { font-size: 14px; margin: 12px 0 4px; }
.full-description { white-space: pre-wrap; overflow-wrap: anywhere; }
pre.schema { max-height: 480px; overflow: auto; }
.truncated { color: #9a6700; }
#stderr { white-space: pre-wrap; overflow-wrap: anywhere; }
.snippet pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.snippet-label { font-weight: 600; }
.copy { font: inherit; font-size: 13px; }
tr.emphasised td { font-weight: 600; }
@media (max-width: 720px) {
  /* Tables marked as cards become one block per row, each cell labelled, so no column is off-screen. */
  table.cards, table.cards tbody, table.cards td { display: block; width: 100%; }
  table.cards thead { display: none; }
  table.cards tr { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); border: 1px solid var(--line); margin: 0 0 10px; padding: 4px 0; }
  table.cards tr[hidden] { display: none; }
  table.cards td.name, table.cards td.status-cell, table.cards td.wide { grid-column: 1 / -1; }
  table.cards td { border: 0; padding: 2px 10px; white-space: normal; max-width: none; }
  table.cards td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-size: 12px; }
  table.cards td.name::before { content: none; }
  table.cards td.name { font-size: 17px; max-width: none; }
  .filter input { min-width: 0; width: 100%; }
  .why, .why-note, .package, .stderr-short { max-width: none; }
}
footer { margin-top: 32px; padding: 16px; color: var(--muted); border-top: 1px solid var(--line); font-size: 13px; }
h1 { font-size: 26px; overflow-wrap: anywhere; }
h1 .badge { vertical-align: middle; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { background: var(--head); padding: 8px 12px; overflow-x: auto; }
.muted { color: var(--muted); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: middle; }
th { background: var(--head); white-space: nowrap; }
th button { font: inherit; font-weight: 600; border: 0; background: none; padding: 0; cursor: pointer; color: inherit; }
th[aria-sort="ascending"] button::after { content: " ▲"; }
th[aria-sort="descending"] button::after { content: " ▼"; }
td[data-value] { white-space: nowrap; }
td.name { white-space: normal; min-width: 140px; max-width: 320px; overflow-wrap: anywhere; }
td.description { white-space: normal; min-width: 240px; max-width: 520px; color: var(--muted); overflow-wrap: anywhere; }
tbody tr:hover { background: #f6f8fa; }
tr.outside { color: var(--muted); }
.filter input { font: inherit; padding: 4px 8px; min-width: 260px; }
.band { display: inline-block; padding: 0 6px; border-radius: 3px; color: #fff; font-size: 12px; background: #9f9f9f; }
.band-brightgreen .band, .band.band-brightgreen { background: #44cc11; }
.band-green .band, .band.band-green { background: #97ca00; }
.band-yellow .band, .band.band-yellow { background: #dfb317; color: #1f2328; }
.band-orange .band, .band.band-orange { background: #fe7d37; }
.band-red .band, .band.band-red { background: #e05d44; }
tr.band-brightgreen td:first-child { box-shadow: inset 4px 0 #44cc11; }
tr.band-green td:first-child { box-shadow: inset 4px 0 #97ca00; }
tr.band-yellow td:first-child { box-shadow: inset 4px 0 #dfb317; }
tr.band-orange td:first-child { box-shadow: inset 4px 0 #fe7d37; }
tr.band-red td:first-child { box-shadow: inset 4px 0 #e05d44; }
.badge { vertical-align: middle; height: 20px; }
.status { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.status-ok { color: #1a7f37; }
.status-pending { color: var(--muted); }
.status-failed { color: #cf222e; }
.why, .why-note, .package { display: block; font-size: 12px; color: var(--muted); white-space: normal; max-width: 320px; overflow-wrap: anywhere; }
.why-note { color: var(--ink); }
.stderr-short { display: block; font-size: 11px; white-space: pre-wrap; overflow-wrap: anywhere; max-width: 320px; background: var(--head); padding: 2px 4px; margin-top: 2px; }
.stderr-none, .stderr-label { display: block; font-size: 12px; }
.stderr-label { color: var(--muted); margin-top: 2px; }
td.status-cell { white-space: normal; }
.trend-up { color: #cf222e; }
.trend-down { color: #1a7f37; }
.trend-flat { color: var(--muted); }
.sparkline { vertical-align: middle; }
.sparkline polyline { fill: none; stroke: #0969da; stroke-width: 1.5; }
.sparkline circle { fill: #0969da; }
.bar .part-description, .key-description { fill: #0969da; background: #0969da; }
.bar .part-input, .key-input { fill: #bf8700; background: #bf8700; }
.bar .part-output, .key-output { fill: #8250df; background: #8250df; }
.bar .part-rest, .key-rest { fill: #8c959f; background: #8c959f; }
.key { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 6px 16px; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.hash { overflow-wrap: anywhere; }
.note { overflow-wrap: anywhere; }
.verify-ok { color: #1a7f37; }
.verify-differs, .verify-error { color: #cf222e; font-weight: 600; }
`;

/**
 * Sorting by any column (click a header; again to reverse), the filter, copy buttons and opening a
 * linked tool definition. Cells carry their sort value in data-value; an empty value sorts last in
 * both directions.
 */
export const SITE_JS = `'use strict';
(function () {
  function sortValue(row, index, numeric) {
    var cell = row.cells[index];
    var raw = cell ? cell.getAttribute('data-value') : null;
    if (raw === null || raw === '') return null;
    return numeric ? Number(raw) : raw;
  }

  function sortBy(table, header, index) {
    var numeric = header.getAttribute('data-type') === 'number';
    var ascending = header.getAttribute('aria-sort') !== 'ascending';
    Array.prototype.forEach.call(header.parentNode.cells, function (other) { other.removeAttribute('aria-sort'); });
    header.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = sortValue(a, index, numeric);
      var y = sortValue(b, index, numeric);
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      var order = x < y ? -1 : x > y ? 1 : 0;
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  document.querySelectorAll('table.sortable').forEach(function (table) {
    var headers = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(headers, function (header, index) {
      var button = header.querySelector('button');
      if (button) button.addEventListener('click', function () { sortBy(table, header, index); });
    });
  });

  // The filter matches a row's name and package at once; the tools' names and descriptions come
  // from search.js, loaded the first time the filter is used so the page itself stays small.
  var filter = document.getElementById('filter');
  var shown = document.getElementById('filter-count');
  var searchRequested = false;
  function applyFilter() {
    var needle = filter.value.trim().toLowerCase();
    var tools = window.mcpctxSearch || {};
    var rows = document.querySelectorAll('#leaderboard tbody tr');
    var visible = 0;
    rows.forEach(function (row) {
      var segment = row.getAttribute('data-segment') || '';
      var text = Object.prototype.hasOwnProperty.call(tools, segment) ? tools[segment] : '';
      var match = needle === '' || (row.getAttribute('data-name') || '').indexOf(needle) !== -1 || text.indexOf(needle) !== -1;
      row.hidden = !match;
      if (match) visible += 1;
    });
    if (shown) shown.textContent = needle === '' ? '' : visible + ' of ' + rows.length;
  }
  if (filter) {
    filter.addEventListener('input', function () {
      if (!searchRequested && filter.getAttribute('data-search')) {
        searchRequested = true;
        var script = document.createElement('script');
        script.src = filter.getAttribute('data-search');
        script.addEventListener('load', applyFilter);
        document.head.appendChild(script);
      }
      applyFilter();
    });
  }

  // Copy buttons: hidden without the script (the snippet is plain text to select), shown here.
  document.querySelectorAll('button.copy').forEach(function (button) {
    var source = document.getElementById(button.getAttribute('data-copy') || '');
    var status = button.parentNode.querySelector('output.copied');
    if (!source) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      var value = source.textContent || '';
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      function said(words) { if (status) status.textContent = words; }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(value).then(function () { said('Copied'); }, function () { said('Selected: press Ctrl+C'); });
      } else {
        said(document.execCommand && document.execCommand('copy') ? 'Copied' : 'Selected: press Ctrl+C');
      }
    });
  });

  // A link to one tool's definition opens it.
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (target && target.tagName === 'DETAILS') target.open = true;
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
})();
`;
