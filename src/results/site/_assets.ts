// The site's one stylesheet and one script, written as files beside the pages: the pages' content
// security policy allows no inline style or script, and nothing is fetched from elsewhere.

export const SITE_CSS = `:root { color-scheme: light; --ink: #1f2328; --muted: #656d76; --line: #d0d7de; --head: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); }
header, main, footer { max-width: 1400px; margin: 0 auto; padding: 0 16px; }
header nav { padding: 12px 0; border-bottom: 1px solid var(--line); }
header nav a { margin-right: 16px; }
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
.status-measured, .status-dynamic { color: #1a7f37; }
.status-not-yet-run, .status-not-applicable { color: var(--muted); }
.status-auth-required, .status-startup-failure, .status-timeout, .status-protocol-mismatch, .status-remote-auth-wall, .status-protocol-limit, .status-redirect-refused { color: #cf222e; }
.trend-up { color: #cf222e; }
.trend-down { color: #1a7f37; }
.trend-flat { color: var(--muted); }
.sparkline { vertical-align: middle; }
.sparkline polyline { fill: none; stroke: #0969da; stroke-width: 1.5; }
.sparkline circle { fill: #0969da; }
.bar .part-description, .key-description { fill: #0969da; background: #0969da; }
.bar .part-schema, .key-schema { fill: #bf8700; background: #bf8700; }
.bar .part-rest, .key-rest { fill: #8c959f; background: #8c959f; }
.key { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 6px 16px; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.hash { overflow-wrap: anywhere; }
.note { overflow-wrap: anywhere; }
`;

/**
 * Sorting by any column (click a header; again to reverse) and the name filter. Cells carry their
 * sort value in data-value; an empty value sorts last in both directions.
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

  var filter = document.getElementById('filter');
  var shown = document.getElementById('filter-count');
  if (filter) {
    filter.addEventListener('input', function () {
      var needle = filter.value.trim().toLowerCase();
      var rows = document.querySelectorAll('#leaderboard tbody tr');
      var visible = 0;
      rows.forEach(function (row) {
        var match = needle === '' || (row.getAttribute('data-name') || '').indexOf(needle) !== -1;
        row.hidden = !match;
        if (match) visible += 1;
      });
      if (shown) shown.textContent = needle === '' ? '' : visible + ' of ' + rows.length;
    });
  }
})();
`;
