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
