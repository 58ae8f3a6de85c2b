'use strict';
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
